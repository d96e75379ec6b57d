"""End to end, the availability, checkpoint and space alerts on their own stack
(e2e_alerts_stack.py): on a healthy simulated cluster no alert expression is true, and every
injected fault makes its alert's expression true, as Prometheus evaluates it over the scraped
series (the `for` durations are covered by the promtool unit tests)."""

# ruff: noqa: F401, F811 - the fixtures `stack` and `healthy` are imported for the tests' arguments
from __future__ import annotations

import httpx
import pytest

from tests.rules.e2e_alerts_stack import (
    ALERTS,
    DRIFT,
    FAULT_SECONDS,
    LINGERING_ALERTS,
    MGM_NODE,
    OTHER_SQL_NODE,
    RECOVERY_SECONDS,
    RESTART_ALERTS,
    RESTART_SECONDS,
    STUCK_NODE,
    STUCK_PHASE,
    Stack,
    healthy,
    stack,
)
from tests.support.live_stack import PrometheusBuild, every_prometheus_build, wait_until

pytestmark = pytest.mark.integration


def test_healthy_cluster_has_no_true_alert_expression(stack: Stack):
    """Whichever tests ran before: those that restart nodes of A leave LINGERING_ALERTS true,
    the restart alerts never for data node 1, which no test stops; B's nodes never restart."""
    stack.sim_a.reset()
    stack.wait_healthy_a()
    assert {
        name: alerts - LINGERING_ALERTS
        for name, alerts in stack.true_alerts(stack.exporter_a).items()
    } == {name: set() for name in stack.servers}
    for alert in RESTART_ALERTS:
        assert not stack.matches(alert, stack.exporter_a, node_id="1")
    # B differs from A only by the configuration drift of one data node.
    assert stack.true_alerts(stack.exporter_b) == {
        name: {"NdbConfigInconsistent"} for name in stack.servers
    }


@every_prometheus_build
def test_every_build_evaluates_every_rule_without_error(
    stack: Stack, prometheus_build: PrometheusBuild
):
    prometheus_build.require()
    url = stack.servers[prometheus_build.name].url
    groups = httpx.get(f"{url}/api/v1/rules", timeout=10.0).json()["data"]["groups"]
    rules = [rule for group in groups for rule in group["rules"]]
    assert {rule["name"] for rule in rules if rule["type"] == "alerting"} == ALERTS
    assert [(rule["name"], rule.get("lastError")) for rule in rules if rule["health"] != "ok"] == []


# Alerts that need hours of Prometheus time (a trend over 2 or 6 hours, a backup 26 hours
# old, a start phase unchanged for 15 minutes): test_e2e_slow_alerts.py makes each one true
# from its ndbsim fault, on a cluster and rules whose clock runs faster. Here, on this module's
# clock, the series each one reads come from the live exporter (with the target's own labels,
# `sim` included) on every build, and the healthy-cluster test above keeps them quiet, also
# after the data-memory, redo-log and tablespace-full faults of the scenarios (a spike
# predicts nothing).
SLOW_ALERTS = {
    "NdbDataMemoryExhaustionPredicted": "node:ndb_data_memory_used:ratio_min1h",
    "NdbRedoLogExhaustionPredicted": "log:ndb_redo_log_used:ratio_max1h",
    "NdbUndoLogExhaustionPredicted": "log:ndb_undo_log_used:ratio_max1h",
    "NdbTablespaceExhaustionPredicted": "filegroup:ndb_tablespace_used:ratio_max1h",
    "NdbBackupTooOld": "time() - cluster:ndb_backup_last_id_change:timestamp_seconds >= 0",
    # the subscription that brings BackupCompleted (none completes within this module)
    "NdbBackupNotCompleted": "ndb_mgmd_subscription_up == 1",
    "NdbRestartPhaseStuck": "ndb_data_node_start_phase",
    "NdbVersionSkew": 'ndb_node_info{node_type="NDB", node_version!=""}',
    "NdbConfigGenerationSkew": "ndb_data_node_config_generation",
}


@pytest.mark.parametrize(("alert", "series"), SLOW_ALERTS.items(), ids=list(SLOW_ALERTS))
def test_slow_alerts_read_live_series_and_are_quiet(stack: Stack, alert, series):
    assert alert in ALERTS
    for name, prometheus in stack.servers.items():
        wait_until(
            lambda p=prometheus: any(
                sample["metric"].get("sim") == "a" for sample in p.query(series)
            ),
            FAULT_SECONDS,
            f"{series} of {alert} for SQL node A on {name}",
            interval=1.0,
        )
    assert stack.quiet(alert, stack.exporter_a)


def test_config_drift_makes_config_inconsistent_true(stack: Stack):
    param = DRIFT[0]
    assert stack.wait_for_alert("NdbConfigInconsistent", stack.exporter_b, param=param)
    assert stack.quiet("NdbConfigInconsistent", stack.exporter_a)


def test_lcp_stall_makes_lcp_stalled_true(stack: Stack):
    sim = stack.sim_b
    assert stack.quiet("NdbLcpStalled", stack.exporter_b)
    sim.fault("lcp-stall")
    try:
        stack.wait_for_alert("NdbLcpStalled", stack.exporter_b)
    finally:
        sim.reset()
    wait_until(
        lambda: stack.quiet("NdbLcpStalled", stack.exporter_b),
        RECOVERY_SECONDS,
        "NdbLcpStalled to clear after the LCP resumed",
        interval=1.0,
    )


def test_stopped_data_node_makes_node_alerts_true(healthy: Stack):
    healthy.sim_a.stop_node(2)
    exporter = healthy.exporter_a
    assert healthy.wait_for_alert("NdbDataNodeDown", exporter, node_id="2")
    assert healthy.wait_for_alert("NdbNodeGroupDegraded", exporter, nodegroup="0")
    assert healthy.wait_for_alert("NdbDeadFragmentReplicas", exporter, node_id="2")
    # A sees 3 ready data nodes, B of the same cluster sees 4.
    assert healthy.wait_for_alert("NdbSqlNodeDisconnected", exporter)
    assert healthy.quiet("NdbClusterDown", exporter)
    assert not any(
        healthy.matches_on(prometheus, "NdbNodeGroupDegraded", exporter, nodegroup="1")
        for prometheus in healthy.servers.values()
    )


def test_stopped_node_group_makes_cluster_down_true(healthy: Stack):
    healthy.sim_a.stop_node(3)
    healthy.sim_a.stop_node(4)
    assert healthy.wait_for_alert("NdbClusterDown", healthy.exporter_a)


@pytest.mark.parametrize(
    ("fault", "share", "alerts"),
    [
        ("redo-log", 0.95, ("NdbRedoLogSpaceHigh", "NdbRedoLogSpaceCritical")),
        ("data-memory", 0.97, ("NdbDataMemoryHigh", "NdbDataMemoryCritical")),
    ],
)
def test_filled_space_makes_space_alerts_true(healthy: Stack, fault, share, alerts):
    healthy.sim_a.fault(fault, share=share)
    for alert in alerts:
        found = healthy.wait_for_alert(alert, healthy.exporter_a)
        assert {metric["node_id"] for metric in found} == {"1", "2", "3", "4"}


def test_lost_arbitrator_makes_no_arbitrator_true(healthy: Stack):
    healthy.sim_a.fault("arbitrator-lost")
    assert healthy.wait_for_alert("NdbNoArbitrator", healthy.exporter_a)


def test_primaries_away_makes_primaries_not_on_preferred_node_true(healthy: Stack):
    """Primaries move when a node fails and restarts: with the fault set, node 2's restart
    leaves them on the other replica."""
    sim = healthy.sim_a
    sim.fault("primaries-away", node=2)
    sim.stop_node(2)
    sim.start_node(2)
    sim.wait_for(
        lambda s: {n["node_id"]: n["state"] for n in s["nodes"]}.get(2) == "STARTED",
        timeout=FAULT_SECONDS,
    )
    found = healthy.wait_for_alert("NdbPrimariesNotOnPreferredNode", healthy.exporter_a)
    assert {metric["node_id"] for metric in found} == {"2"}
    healthy.sim_a.clear("primaries-away")
    healthy.wait_healthy_a()


def test_stuck_start_makes_data_node_not_started_true(healthy: Stack):
    sim = healthy.sim_a
    sim.stop_node(STUCK_NODE)
    sim.fault("stuck-start", node=STUCK_NODE, phase=STUCK_PHASE)
    begin = sim.status()["cluster_time"]
    sim.start_node(STUCK_NODE)
    found = healthy.wait_for_alert("NdbDataNodeNotStarted", healthy.exporter_a)
    assert {(metric["node_id"], metric["state"]) for metric in found} == {
        (str(STUCK_NODE), "STARTING")
    }
    # the start runs through the earlier phases, then stays in STUCK_PHASE beyond its
    # normal restart time
    selector = f'instance="{healthy.exporter_a.address}",node_id="{STUCK_NODE}"'
    healthy.wait_for_query(
        f"ndb_data_node_start_phase{{{selector}}} == {STUCK_PHASE}",
        FAULT_SECONDS,
        f"data node {STUCK_NODE} to reach start phase {STUCK_PHASE}",
    )
    status = sim.wait_for(lambda s: s["cluster_time"] > begin + RESTART_SECONDS + 2)
    assert {n["node_id"]: n["state"] for n in status["nodes"]}[STUCK_NODE] == "STARTING"
    # waited for, not queried once: on a busy machine a scrape whose nodes collector timed out
    # leaves the expression without data until the next scrape
    assert healthy.wait_for_alert(
        "NdbDataNodeNotStarted", healthy.exporter_a, node_id=str(STUCK_NODE)
    )
    sim.clear("stuck-start")
    healthy.wait_healthy_a()


def test_stopped_management_and_sql_nodes_make_their_alerts_true(healthy: Stack):
    """A management node and the other SQL node stop; the free API slots, which never
    connected, stay quiet."""
    healthy.sim_a.stop_node(MGM_NODE)
    healthy.sim_a.stop_node(OTHER_SQL_NODE)
    assert healthy.wait_for_alert(
        "NdbManagementNodeDown", healthy.exporter_a, node_id=str(MGM_NODE)
    )
    found = healthy.wait_for_alert("NdbSqlNodeGone", healthy.exporter_a)
    assert {metric["node_id"] for metric in found} == {str(OTHER_SQL_NODE)}


def test_refused_connections_make_sql_node_unreachable_true(healthy: Stack):
    healthy.sim_a.fault("refuse-connections")
    healthy.sim_a.fault("drop-connections")
    assert healthy.wait_for_alert("NdbSqlNodeUnreachable", healthy.exporter_a)


def test_slow_ndbinfo_makes_collector_failing_true(healthy: Stack):
    healthy.sim_a.fault("slow-ndbinfo", seconds=5, table="memoryusage")
    assert healthy.wait_for_alert(
        "NdbExporterCollectorFailing", healthy.exporter_a, collector="memoryusage"
    )


def test_aborted_backup_makes_backup_failed_true(healthy: Stack):
    healthy.sim_a.fault("backup-abort")
    assert healthy.sim_a.start_backup()["backup_id"] > 0
    assert healthy.wait_for_alert("NdbBackupFailed", healthy.exporter_a)


def test_half_the_data_nodes_without_arbitrator_makes_arbitration_lost_true(healthy: Stack):
    sim = healthy.sim_a
    sim.fault("arbitrator-lost")
    sim.stop_node(2)  # 3 of 4 data nodes left: won without an arbitrator
    sim.stop_node(4)  # 1 and 3 of 4, every node group, no arbitrator: lost, they shut down
    assert healthy.wait_for_alert("NdbArbitrationLost", healthy.exporter_a)


def test_management_server_down_makes_mgmd_alerts_true(healthy: Stack):
    healthy.sim_a.fault("mgm-down")
    for alert in ("NdbMgmdUnreachable", "NdbMgmdSubscriptionLost"):
        assert healthy.wait_for_alert(alert, healthy.exporter_a)


def test_stopped_exporter_makes_exporter_down_true(stack: Stack):
    """Last: it stops exporter A for good."""
    stack.exporter_a.stop()
    assert stack.wait_for_alert("NdbExporterDown", stack.exporter_a)
