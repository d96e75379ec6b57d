"""End to end: ndbsim -> exporter -> Prometheus loaded with the NDB rules.

On a healthy simulated cluster no alert expression is true; every injected fault makes its
alert's expression true, as Prometheus evaluates it over the scraped series (the `for`
durations are covered by the promtool unit tests). One Prometheus server of each build
(live_stack.PROMETHEUS_BUILDS) scrapes the same exporters, and every check holds on each.

Two simulated SQL nodes of one cluster (label cluster="e2e") are scraped:
- A, at a low speed so that its ndbinfo answers stay fast, takes the node, memory, log,
  arbitration, connection, transporter overload, stuck start and moved primaries faults;
- B, whose data node 2 runs with a different MaxNoOfConcurrentOperations, runs at a high
  speed so that 300 global checkpoints pass within seconds for the LCP stall.
Stopping a data node of A also makes A see fewer ready data nodes than B
(NdbSqlNodeDisconnected). Alerts on cluster-wide data carry no `instance` (they are the same
whichever SQL nodes report them), so each SQL node's target also gets a `sim` label ("a", "b")
that tells the two simulated clusters apart.
"""

from __future__ import annotations

import itertools
import time
from collections import defaultdict
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass

import httpx
import pytest
from live_stack import (
    Exporter,
    Prometheus,
    PrometheusBuild,
    every_prometheus_build,
    running_exporter,
    running_prometheus_builds,
    wait_until,
    wait_until_quiet,
)
from ndbinfo_exporter.collectors.registry import all_collectors
from ndbsim.testing import NdbsimHandle, running_ndbsim
from rules_model import alert_rules

pytestmark = pytest.mark.integration

CLUSTER = "e2e"
SIM_ARGS = ("--data-nodes", "4")  # node groups 0 = {1, 2} and 1 = {3, 4}
# A: 8 tables, one of them a disk data table, so that A has a tablespace (ts_1); B: 4, so that
# its scrapes stay short at its high speed
TABLES_A, TABLES_B = "8", "4"
MGM_NODE = 49
SPEED_A = 5
SPEED_B = 60  # 300 GCIs of 2 cluster seconds in 10 s
DRIFT = ("MaxNoOfConcurrentOperations", "65536", 2)
STUCK_NODE, STUCK_PHASE = 4, 4  # node 4: its restart does not add to node 2's reconnects
RESTART_SECONDS = 12  # cluster seconds of ndbsim's node restart
OVERLOADED_LINK = ("3", "4")
# ndbsim runs 5 (A) and 60 (B) times faster than wall time: the exporter's maximum age of the
# slowly changing collectors' rows is scaled down from its two minutes in the same way.
REFRESH_MAX_AGE = "--exporter.refresh-max-age=20"
# A scrape of a simulated SQL node takes up to about two seconds on a busy 2-core machine
# (ndbsim answers one ndbinfo statement at a time and recomputes its tables for each one).
SCRAPE_INTERVAL = "3s"
FAULT_SECONDS = 45.0
RECOVERY_SECONDS = 60.0  # collector timeouts on a busy machine delay the healthy state

# Only the collectors the alert rules read, to keep each scrape of ndbsim short.
COLLECTORS_A = (
    "status",
    "nodes",
    "processes",
    "membership",
    "memoryusage",
    "logspaces",
    "lcp",
    "replicas",
    "fragments",
    "config",
    "transporters",
    "counters",
    "tc_latency",
    "transactions",
    "locks",
    "send_buffers",
    "disk_data",
    "certificates",
    "backup",
    "cpu",
    "diskpagebuffer",
    "resources",
    "logbuffers",
)
COLLECTORS_B = ("status", "lcp", "config", "counters")

# Alerts that stay true for their window (15 minutes, an hour) after a data node restarted:
# the tests that stop and start a data node leave them true on a cluster healthy again.
RESTART_ALERTS = {"NdbDataNodeRestarted", "NdbDataNodeRestartLoop"}

EXPRESSIONS: dict[str, list[str]] = defaultdict(list)
for _rule in alert_rules():
    EXPRESSIONS[_rule["alert"]].append(_rule["expr"])


def collector_flags(enabled: tuple[str, ...]) -> list[str]:
    disabled = [f"--no-collector.{c.name}" for c in all_collectors() if c.name not in enabled]
    return [*disabled, REFRESH_MAX_AGE]


@dataclass
class Stack:
    servers: dict[str, Prometheus]
    sim_a: NdbsimHandle
    sim_b: NdbsimHandle
    exporter_a: Exporter
    exporter_b: Exporter

    def matches(self, alert: str, exporter: Exporter, **labels: str) -> list[dict]:
        """Series for which one of the alert's expressions is true for the simulated cluster
        of `exporter` (and for its SQL node, where the alert names one), on every server;
        nothing if it is not true on one of them."""
        found = []
        for prometheus in self.servers.values():
            on_server = self.matches_on(prometheus, alert, exporter, **labels)
            if not on_server:
                return []
            found += on_server
        return found

    def matches_on(
        self, prometheus: Prometheus, alert: str, exporter: Exporter, **labels: str
    ) -> list[dict]:
        sim = "a" if exporter is self.exporter_a else "b"
        found = []
        for expr in EXPRESSIONS[alert]:
            for sample in prometheus.query(expr):
                metric = sample["metric"]
                if metric.get("instance", exporter.address) != exporter.address:
                    continue
                # a series of one SQL node's own counters (recorded per `instance`) has no `sim`
                if metric.get("sim", sim if "instance" in metric else None) == sim and all(
                    metric.get(key) == value for key, value in labels.items()
                ):
                    found.append(metric)
        return found

    def true_alerts(self, exporter: Exporter) -> dict[str, set[str]]:
        """Server -> the alerts with a true expression for `exporter`."""
        return {
            name: {alert for alert in EXPRESSIONS if self.matches_on(prometheus, alert, exporter)}
            for name, prometheus in self.servers.items()
        }

    def quiet(self, alert: str, exporter: Exporter) -> bool:
        """No expression of `alert` is true for `exporter` on any server."""
        return not any(
            self.matches_on(prometheus, alert, exporter) for prometheus in self.servers.values()
        )

    def wait_for_alert(self, alert: str, exporter: Exporter, **labels: str) -> list[dict]:
        return wait_until(
            lambda: self.matches(alert, exporter, **labels),
            FAULT_SECONDS,
            f"{alert} {labels or ''} to be true via {exporter.address} on {list(self.servers)}",
            interval=1.0,
        )

    def wait_for_query(self, expr: str, timeout: float, what: str) -> dict[str, list[dict]]:
        """Server -> the result of `expr`, once it returns data on every server."""
        return {
            name: wait_until(
                lambda p=prometheus: p.query(expr), timeout, f"{what} on {name}", interval=1.0
            )
            for name, prometheus in self.servers.items()
        }

    def wait_healthy_a(self) -> None:
        """No alert true for A but those that remember a restart (RESTART_ALERTS)."""
        wait_until_quiet(
            lambda: {
                k: v - RESTART_ALERTS
                for k, v in self.true_alerts(self.exporter_a).items()
                if v - RESTART_ALERTS
            },
            RECOVERY_SECONDS,
            "SQL node A to be healthy",
        )


def _scraped(prometheus: Prometheus, exporter: Exporter, metric: str) -> bool:
    return bool(
        prometheus.query(f'count_over_time({metric}{{instance="{exporter.address}"}}[1m]) >= 3')
    )


@pytest.fixture(scope="module")
def stack(tmp_path_factory) -> Iterator[Stack]:
    workdir = tmp_path_factory.mktemp("e2e-alerts")
    param, value, node = DRIFT
    with ExitStack() as running:
        sim_a = running.enter_context(
            running_ndbsim(*SIM_ARGS, "--tables", TABLES_A, speed=SPEED_A)
        )
        sim_b = running.enter_context(
            running_ndbsim(
                *SIM_ARGS,
                "--tables",
                TABLES_B,
                "--config",
                f"{param}={value}@{node}",
                speed=SPEED_B,
            )
        )
        exporter_a = running.enter_context(
            running_exporter(
                sim_a.port, sim_a.user, sim_a.password, workdir, *collector_flags(COLLECTORS_A)
            )
        )
        exporter_b = running.enter_context(
            running_exporter(
                sim_b.port, sim_b.user, sim_b.password, workdir, *collector_flags(COLLECTORS_B)
            )
        )
        targets = {
            exporter_a.address: {"cluster": CLUSTER, "sim": "a"},
            exporter_b.address: {"cluster": CLUSTER, "sim": "b"},
        }
        servers = running.enter_context(
            running_prometheus_builds(targets, workdir, SCRAPE_INTERVAL)
        )
        # Rates need a few samples: wait until both SQL nodes were scraped several times.
        for (name, prometheus), (exporter, metric) in itertools.product(
            servers.items(),
            (
                (exporter_a, "ndb_nodegroup_running_data_nodes"),
                (exporter_a, "ndb_sql_api_transactions_committed_total"),
                (exporter_b, "ndb_lcp_completed_gci"),
                (exporter_b, "ndb_sql_api_transactions_committed_total"),
            ),
        ):
            wait_until(
                lambda p=prometheus, e=exporter, m=metric: _scraped(p, e, m),
                60.0,
                f"{metric} scraped from {exporter.address} by {name}",
            )
        yield Stack(servers, sim_a, sim_b, exporter_a, exporter_b)


@pytest.fixture
def healthy(stack: Stack) -> Iterator[Stack]:
    """A healthy cluster A before the scenario, back to healthy after it."""
    stack.sim_a.reset()
    stack.wait_healthy_a()
    yield stack
    stack.sim_a.reset()


def test_healthy_cluster_has_no_true_alert_expression(stack: Stack):
    """Whichever tests ran before: those that restart data nodes of A leave RESTART_ALERTS
    true for them, never for data node 1, which no test stops; B's nodes never restart."""
    stack.sim_a.reset()
    stack.wait_healthy_a()
    assert {
        name: alerts - RESTART_ALERTS
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
    assert {rule["name"] for rule in rules if rule["type"] == "alerting"} == set(EXPRESSIONS)
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
    "NdbRestartPhaseStuck": "ndb_data_node_start_phase",
    "NdbVersionSkew": 'ndb_node_info{node_type="NDB", node_version!=""}',
    "NdbConfigGenerationSkew": "ndb_data_node_config_generation",
}


@pytest.mark.parametrize(("alert", "series"), SLOW_ALERTS.items(), ids=list(SLOW_ALERTS))
def test_slow_alerts_read_live_series_and_are_quiet(stack: Stack, alert, series):
    assert alert in EXPRESSIONS
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


def test_stopped_management_node_makes_management_node_down_true(healthy: Stack):
    healthy.sim_a.stop_node(MGM_NODE)
    assert healthy.wait_for_alert(
        "NdbManagementNodeDown", healthy.exporter_a, node_id=str(MGM_NODE)
    )


def test_refused_connections_make_sql_node_unreachable_true(healthy: Stack):
    healthy.sim_a.fault("refuse-connections")
    healthy.sim_a.fault("drop-connections")
    assert healthy.wait_for_alert("NdbSqlNodeUnreachable", healthy.exporter_a)


def test_slow_ndbinfo_makes_collector_failing_true(healthy: Stack):
    healthy.sim_a.fault("slow-ndbinfo", seconds=5, table="memoryusage")
    assert healthy.wait_for_alert(
        "NdbExporterCollectorFailing", healthy.exporter_a, collector="memoryusage"
    )


@pytest.mark.parametrize(
    ("fault", "params", "alert", "node_id"),
    [
        ("long-transaction", {"node": 2}, "NdbLongRunningTransaction", "2"),
        ("lock-contention", {}, "NdbLockWaits", "1"),
    ],
)
def test_transaction_faults_make_their_alert_true(healthy: Stack, fault, params, alert, node_id):
    healthy.sim_a.fault(fault, **params)
    found = healthy.wait_for_alert(alert, healthy.exporter_a)
    assert {metric["node_id"] for metric in found} == {node_id}


@pytest.mark.parametrize(
    ("fault", "params", "alert", "labels"),
    [
        ("send-buffer-pressure", {"node": 3}, "NdbSendBufferHigh", {"node_id": "3"}),
        ("tablespace-full", {"share": 0.95}, "NdbTablespaceFull", {"filegroup": "ts_1"}),
        (
            "certificate-expiring",
            {"node": 2, "days": 2},
            "NdbTlsCertificateExpiring",
            {"node_id": "2"},
        ),
    ],
)
def test_resource_faults_make_resource_alerts_true(healthy: Stack, fault, params, alert, labels):
    healthy.sim_a.fault(fault, **params)
    found = healthy.wait_for_alert(alert, healthy.exporter_a)
    assert [{key: metric[key] for key in labels} for metric in found] == [labels] * len(found)
    healthy.sim_a.clear(fault)
    healthy.wait_healthy_a()


# The epoch must stay for the whole minute of NdbGlobalCheckpointStalled's window.
GCP_STALL_SECONDS = 120.0


def test_gcp_stall_makes_global_checkpoint_stalled_true(healthy: Stack):
    sim, exporter = healthy.sim_a, healthy.exporter_a
    sim.fault("gcp-stall")
    found = wait_until(
        lambda: healthy.matches("NdbGlobalCheckpointStalled", exporter),
        GCP_STALL_SECONDS,
        f"NdbGlobalCheckpointStalled to be true via {exporter.address}",
        interval=1.0,
    )
    assert {metric["cluster"] for metric in found} == {CLUSTER}
    assert all("node_id" not in metric and "instance" not in metric for metric in found)
    sim.clear("gcp-stall")
    healthy.wait_healthy_a()


@pytest.mark.parametrize(
    ("fault", "params", "alerts"),
    [
        ("resource-pool", {"share": 0.95}, ("NdbResourcePoolHigh",)),
        ("buffer-full", {"buffer": "long-message", "share": 0.9}, ("NdbLongMessageBufferHigh",)),
        ("buffer-full", {"buffer": "redo", "share": 0.9}, ("NdbRedoBufferHigh",)),
        ("buffer-full", {"buffer": "undo", "share": 0.9}, ("NdbUndoBufferHigh",)),
        (
            "undo-log-growth",
            {"rate": 0.01, "share": 0.97},
            ("NdbUndoLogSpaceHigh", "NdbUndoLogSpaceCritical"),
        ),
    ],
    ids=["resource-pool", "long-message", "redo", "undo", "undo-log"],
)
def test_buffer_and_pool_faults_make_their_alerts_true(healthy: Stack, fault, params, alerts):
    healthy.sim_a.fault(fault, **params)
    for alert in alerts:
        found = healthy.wait_for_alert(alert, healthy.exporter_a)
        assert {metric["node_id"] for metric in found} == {"1", "2", "3", "4"}
    healthy.sim_a.clear(fault)
    healthy.wait_healthy_a()


def test_restarted_node_makes_transporter_flapping_true(healthy: Stack):
    """Near the end: the reconnects stay in the rule's 15-minute window and keep it true."""
    for _ in range(3):
        healthy.sim_a.stop_node(2)
        healthy.sim_a.start_node(2)
    assert healthy.wait_for_alert("NdbTransporterFlapping", healthy.exporter_a, node_id="1")


def test_send_overload_makes_transporter_overloaded_true(stack: Stack):
    """After the flapping test, which leaves A's NdbTransporterFlapping true. The overload
    counters only ever go up: once the fault is cleared the node has no overloaded link,
    while `rate(...[5m]) > 0` keeps the expression true for the rule's 5 minutes."""
    sim, exporter = stack.sim_a, stack.exporter_a
    sim.reset()
    node, remote = OVERLOADED_LINK
    sim.fault("send-overload", node=int(node), remote=int(remote))
    found = stack.wait_for_alert("NdbTransporterOverloaded", exporter)
    assert {metric["node_id"] for metric in found} == {node}
    sender = f'instance="{exporter.address}",node_id="{node}"'
    overloads = stack.wait_for_query(
        f"ndb_transporter_overloads_total{{{sender}}} > 0",
        FAULT_SECONDS,
        "the overload counter of the node to rise",
    )
    sim.clear("send-overload")
    stack.wait_for_query(
        f"ndb_transporter_overloaded_links{{{sender}}} == 0",
        RECOVERY_SECONDS,
        "the node's links to leave overload",
    )
    for name, prometheus in stack.servers.items():
        assert not prometheus.query(
            f'ndb_transporter_overloaded_links{{instance="{exporter.address}"}} > 0'
        )
        after = prometheus.query(f"ndb_transporter_overloads_total{{{sender}}}")
        assert float(after[0]["value"][1]) >= float(overloads[name][0]["value"][1])
        assert prometheus.query(f"resets(ndb_transporter_overloads_total{{{sender}}}[5m]) == 0")


def test_latency_degradation_makes_operation_latency_high_true(stack: Stack):
    """Near the end: the 5-minute rate keeps the slow operations, and the expression true,
    for 5 minutes after the fault is cleared."""
    sim, exporter = stack.sim_a, stack.exporter_a
    sim.reset()
    sim.fault("latency-degradation", factor=50)
    found = stack.wait_for_alert("NdbOperationLatencyHigh", exporter)
    assert {metric["node_id"] for metric in found} == {"1", "2", "3", "4"}
    assert {metric["operation"] for metric in found} == {"key"}
    sim.reset()


def test_restarts_make_restarted_and_restart_loop_true(stack: Stack):
    """Near the end: three restarts of data node 2 stay in the rules' windows and keep both
    alerts true for the rest of the module. Before each stop, a scrape of the started node
    with an uptime longer than the next restart's first scrape can show, so that each
    restart is a drop of the uptime: an uptime of this start (not more than the cluster
    seconds since it), scraped after it."""
    sim, exporter = stack.sim_a, stack.exporter_a
    sim.reset()
    selector = f'instance="{exporter.address}",node_id="2"'
    for _ in range(3):
        sim.stop_node(2)
        sim.start_node(2)
        started = time.time()
        since_start = f"(time() - {started}) * {SPEED_A} + {RESTART_SECONDS}"
        stack.wait_for_query(
            f"ndb_data_node_uptime_seconds{{{selector}}} > {5 * RESTART_SECONDS} < {since_start}"
            f" and timestamp(ndb_data_node_uptime_seconds{{{selector}}}) > {started}",
            FAULT_SECONDS,
            "data node 2 scraped a while after its start",
        )
    for alert in sorted(RESTART_ALERTS):
        assert stack.wait_for_alert(alert, exporter, node_id="2")


def test_send_overload_makes_slowdown_and_buffer_full_true(stack: Stack):
    """Near the end: an overloaded link is also in slowdown, and the threads of its data node
    that send on it wait on full buffers; both alerts read gauges, quiet once it is cleared."""
    stack.sim_a.reset()
    sender = OVERLOADED_LINK[0]
    stack.sim_a.fault("send-overload", node=int(sender), remote=int(OVERLOADED_LINK[1]))
    threads = {"NdbTransporterSlowdown": {None}, "NdbThreadBufferFull": {"ldm", "tc", "send"}}
    for alert, thread in threads.items():
        found = stack.wait_for_alert(alert, stack.exporter_a, node_id=sender)
        assert {metric.get("thread") for metric in found} <= thread
    stack.sim_a.reset()
    for alert in threads:
        wait_until(
            lambda a=alert: stack.quiet(a, stack.exporter_a), RECOVERY_SECONDS, f"{alert} quiet"
        )


def test_operation_errors_make_operation_errors_high_true(stack: Stack):
    """Near the end: the 5-minute rates keep the errors, and the expression true, for 5
    minutes after the fault is cleared. One error per success, so that the 5-minute ratio
    passes 5% within the wait (about 15 s of errors)."""
    sim, exporter = stack.sim_a, stack.exporter_a
    sim.reset()
    sim.fault("operation-errors", share=1.0)
    found = stack.wait_for_alert("NdbOperationErrorsHigh", exporter, operation="transaction")
    assert {metric["node_id"] for metric in found} == {"1", "2", "3", "4"}
    sim.reset()


def test_transaction_aborts_make_transaction_aborts_high_true(stack: Stack):
    """Near the end: the 5-minute rates keep the aborts, and the expression true, for 5
    minutes after the fault is cleared. Every transaction aborts, so that the 5-minute ratio
    passes 5% within the wait. The SQL node's own counters: the alert names its instance."""
    sim, exporter = stack.sim_a, stack.exporter_a
    sim.reset()
    sim.fault("transaction-aborts", share=1.0)
    found = stack.wait_for_alert("NdbTransactionAbortsHigh", exporter)
    assert {metric["instance"] for metric in found} == {exporter.address}
    assert stack.quiet("NdbTransactionAbortsHigh", stack.exporter_b)
    sim.reset()


def test_disk_page_buffer_misses_make_hit_ratio_low_true(stack: Stack):
    """Near the end: the 5-minute rates keep the misses, and the expression true, for
    5 minutes after the fault is cleared. Data node 1 never restarts in this module: it is
    past its cache's warm-up; the others may have restarted within the last 30 minutes."""
    sim, exporter = stack.sim_a, stack.exporter_a
    sim.reset()
    sim.fault("disk-page-buffer-misses", share=0.2)
    stack.wait_for_alert("NdbDiskPageBufferHitRatioLow", exporter, node_id="1")
    sim.reset()
    requests = f'ndb_disk_page_buffer_page_requests_total{{instance="{exporter.address}"'
    stack.wait_for_query(
        f'min(sum without (result) (increase({requests}, result="direct_return"}}[20s]))'
        f' / sum without (result) (increase({requests}, result=~"direct_return|wait_io"}}[20s])))'
        " > 0.95",
        RECOVERY_SECONDS,
        "the disk page buffer to serve the new requests again",
    )


def test_stopped_exporter_makes_exporter_down_true(stack: Stack):
    """Last: it stops exporter A for good."""
    stack.exporter_a.stop()
    assert stack.wait_for_alert("NdbExporterDown", stack.exporter_a)
