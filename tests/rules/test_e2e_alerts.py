"""End to end: ndbsim -> exporter -> Prometheus loaded with the NDB rules.

On a healthy simulated cluster no alert expression is true; every injected fault makes its
alert's expression true, as Prometheus evaluates it over the scraped series (the `for`
durations are covered by the promtool unit tests).

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

from collections import defaultdict
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass

import pytest
from live_stack import Exporter, Prometheus, running_exporter, running_prometheus, wait_until
from ndbinfo_exporter.collectors.registry import all_collectors
from ndbsim.testing import NdbsimHandle, running_ndbsim
from rules_model import alert_rules

pytestmark = pytest.mark.integration

CLUSTER = "e2e"
SIM_ARGS = ("--data-nodes", "4", "--tables", "4")  # node groups 0 = {1, 2} and 1 = {3, 4}
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
RECOVERY_SECONDS = 30.0

# Only the collectors the alert rules read, to keep each scrape of ndbsim short.
COLLECTORS_A = (
    "status",
    "nodes",
    "processes",
    "membership",
    "memoryusage",
    "logspaces",
    "replicas",
    "fragments",
    "config",
    "transporters",
    "counters",
)
COLLECTORS_B = ("status", "replicas", "config", "counters")

EXPRESSIONS: dict[str, list[str]] = defaultdict(list)
for _rule in alert_rules():
    EXPRESSIONS[_rule["alert"]].append(_rule["expr"])


def collector_flags(enabled: tuple[str, ...]) -> list[str]:
    disabled = [f"--no-collector.{c.name}" for c in all_collectors() if c.name not in enabled]
    return [*disabled, REFRESH_MAX_AGE]


@dataclass
class Stack:
    prometheus: Prometheus
    sim_a: NdbsimHandle
    sim_b: NdbsimHandle
    exporter_a: Exporter
    exporter_b: Exporter

    def matches(self, alert: str, exporter: Exporter, **labels: str) -> list[dict]:
        """Series for which one of the alert's expressions is true for the simulated cluster
        of `exporter` (and for its SQL node, where the alert names one)."""
        sim = "a" if exporter is self.exporter_a else "b"
        found = []
        for expr in EXPRESSIONS[alert]:
            for sample in self.prometheus.query(expr):
                metric = sample["metric"]
                if metric.get("instance", exporter.address) != exporter.address:
                    continue
                if metric.get("sim") == sim and all(
                    metric.get(key) == value for key, value in labels.items()
                ):
                    found.append(metric)
        return found

    def true_alerts(self, exporter: Exporter) -> set[str]:
        return {alert for alert in EXPRESSIONS if self.matches(alert, exporter)}

    def wait_for_alert(self, alert: str, exporter: Exporter, **labels: str) -> list[dict]:
        return wait_until(
            lambda: self.matches(alert, exporter, **labels),
            FAULT_SECONDS,
            f"{alert} {labels or ''} to be true via {exporter.address}",
            interval=1.0,
        )

    def wait_healthy_a(self) -> None:
        wait_until(
            lambda: not self.true_alerts(self.exporter_a) or None,
            RECOVERY_SECONDS,
            "no alert expression to be true for SQL node A",
            interval=1.0,
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
        sim_a = running.enter_context(running_ndbsim(*SIM_ARGS, speed=SPEED_A))
        sim_b = running.enter_context(
            running_ndbsim(*SIM_ARGS, "--config", f"{param}={value}@{node}", speed=SPEED_B)
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
        prometheus = running.enter_context(running_prometheus(targets, workdir, SCRAPE_INTERVAL))
        # Rates need a few samples: wait until both SQL nodes were scraped several times.
        for exporter, metric in (
            (exporter_a, "ndb_nodegroup_running_data_nodes"),
            (exporter_a, "ndb_sql_api_transactions_committed_total"),
            (exporter_b, "ndb_lcp_completed_gci"),
            (exporter_b, "ndb_sql_api_transactions_committed_total"),
        ):
            wait_until(
                lambda e=exporter, m=metric: _scraped(prometheus, e, m),
                60.0,
                f"{metric} scraped from {exporter.address}",
            )
        yield Stack(prometheus, sim_a, sim_b, exporter_a, exporter_b)


@pytest.fixture
def healthy(stack: Stack) -> Iterator[Stack]:
    """A healthy cluster A before the scenario, back to healthy after it."""
    stack.sim_a.reset()
    stack.wait_healthy_a()
    yield stack
    stack.sim_a.reset()


def test_healthy_cluster_has_no_true_alert_expression(stack: Stack):
    assert stack.true_alerts(stack.exporter_a) == set()
    # B differs from A only by the configuration drift of one data node.
    assert stack.true_alerts(stack.exporter_b) == {"NdbConfigInconsistent"}


def test_config_drift_makes_config_inconsistent_true(stack: Stack):
    param = DRIFT[0]
    assert stack.wait_for_alert("NdbConfigInconsistent", stack.exporter_b, param=param)
    assert not stack.matches("NdbConfigInconsistent", stack.exporter_a)


def test_lcp_stall_makes_lcp_stalled_true(stack: Stack):
    sim = stack.sim_b
    assert not stack.matches("NdbLcpStalled", stack.exporter_b)
    sim.fault("lcp-stall")
    try:
        stack.wait_for_alert("NdbLcpStalled", stack.exporter_b)
    finally:
        sim.reset()
    wait_until(
        lambda: not stack.matches("NdbLcpStalled", stack.exporter_b) or None,
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
    assert not healthy.matches("NdbClusterDown", exporter)
    assert not healthy.matches("NdbNodeGroupDegraded", exporter, nodegroup="1")


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
    healthy.sim_a.fault("primaries-away", node=2)
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
    wait_until(
        lambda: healthy.prometheus.query(
            f"ndb_data_node_start_phase{{{selector}}} == {STUCK_PHASE}"
        ),
        FAULT_SECONDS,
        f"data node {STUCK_NODE} to reach start phase {STUCK_PHASE}",
        interval=1.0,
    )
    status = sim.wait_for(lambda s: s["cluster_time"] > begin + RESTART_SECONDS + 2)
    assert {n["node_id"]: n["state"] for n in status["nodes"]}[STUCK_NODE] == "STARTING"
    assert healthy.matches("NdbDataNodeNotStarted", healthy.exporter_a, node_id=str(STUCK_NODE))
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
    overloads = wait_until(
        lambda: stack.prometheus.query(f"ndb_transporter_overloads_total{{{sender}}} > 0"),
        FAULT_SECONDS,
        "the overload counter of the node to rise",
        interval=1.0,
    )
    sim.clear("send-overload")
    wait_until(
        lambda: stack.prometheus.query(f"ndb_transporter_overloaded_links{{{sender}}} == 0"),
        RECOVERY_SECONDS,
        "the node's links to leave overload",
        interval=1.0,
    )
    assert not stack.prometheus.query(
        f'ndb_transporter_overloaded_links{{instance="{exporter.address}"}} > 0'
    )
    after = stack.prometheus.query(f"ndb_transporter_overloads_total{{{sender}}}")
    assert float(after[0]["value"][1]) >= float(overloads[0]["value"][1])
    assert stack.prometheus.query(f"resets(ndb_transporter_overloads_total{{{sender}}}[5m]) == 0")


def test_stopped_exporter_makes_exporter_down_true(stack: Stack):
    """Last: it stops exporter A for good."""
    stack.exporter_a.stop()
    assert stack.wait_for_alert("NdbExporterDown", stack.exporter_a)
