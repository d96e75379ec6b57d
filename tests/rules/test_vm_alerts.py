"""End to end on VictoriaMetrics and on a Thanos Receive hashring: vmagent scrapes the
exporters and remote-writes to a VictoriaMetrics server, vmalert evaluates the shipped rule
files unchanged over it and sends its alerts to Alertmanager; a Prometheus 3 server scrapes the
same exporters (through shared_scrapes fronts: every backend stores the same samples),
evaluates the same files and remote-writes its samples to three Thanos receivers (replication
factor 2), over which Thanos Query and Thanos Ruler evaluate the same files once more. One
receiver is stopped once the samples flow, for the rest of the module.

Every group loads in vmalert and in the Ruler and no rule reports an error, whatever the
cluster does; the healthy cluster makes no alert expression true, also across an exporter
restart and a data node restart (but the alerts that remember a restart); each fault of
FAULTS, set one after another, makes the same alerts true on the three backends, its expected
ones among them; and Thanos Query returns every sample Prometheus holds. The table of FAULTS
is docs/scaling.md's (test_scaling_doc_table_is_the_faults).

One simulated cluster (with its replica cluster for the replication fault) at SPEED, so that
300 global checkpoints of the LCP stall pass within half a minute. The alerts that need hours
(the *ExhaustionPredicted trends, the backup ages) are made true on a compressed clock under
vmalert too, in test_e2e_slow_alerts.py.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field

import httpx
import pytest
from ndb_harness import Exporter, Ndbsim, running_alertmanager, running_exporter, running_ndbsim
from ndb_harness.api import api_data
from ndb_harness.ports import HOST, free_port
from ndb_harness.thanos import (
    Hashring,
    ThanosComponent,
    running_hashring,
    running_query,
    running_ruler,
)
from ndb_harness.victoriametrics import VictoriaMetricsStack, running_victoriametrics_stack

from tests.rules.rules_model import ALERTMANAGER_FILE, ROOT, alert_rules, load_yaml, tool
from tests.support.live_stack import (
    PROMETHEUS_BUILDS,
    RULE_FILES,
    THANOS_PROGRAM,
    VICTORIAMETRICS_PROGRAMS,
    Prometheus,
    collector_flags,
    prometheus_of_build,
    require_programs,
    require_victoriametrics,
    running_pair_exporters,
    scrape_config,
    serving,
    shared_scrape_handler,
    shared_scrapes,
    wait_until,
)
from tests.support.markdown import table_rows

SCALING_DOC = ROOT / "docs" / "scaling.md"
SOURCE, REPLICA = "vm", "vm-dr"
SPEED = 20  # 300 GCIs of 2 cluster seconds in 30 s
SCRAPE_INTERVAL = "3s"
FAULT_SECONDS = 60.0
RECOVERY_SECONDS = 90.0
SOURCE_COLLECTORS = (
    "status",
    "nodes",
    "processes",
    "membership",
    "memoryusage",
    "lcp",
    "replicas",
    "fragments",
    "config",
    "counters",
    "tc_latency",
)
REPLICA_COLLECTORS = ("status", "binlog", "replica_status", "apply_status")
# Alerts that stay true for their window after a data node restarted, or that remember its
# links' reconnects.
RESTART_ALERTS = {"NdbDataNodeRestarted", "NdbDataNodeRestartLoop", "NdbTransporterFlapping"}
ALERTS = {rule["alert"] for rule in alert_rules()}
GROUPS = {group["name"] for path in RULE_FILES for group in load_yaml(path)["groups"]}
STOPPED_RECEIVER = 2  # of three; Prometheus writes to the first
# Prometheus forwards what it scrapes; the Ruler records and alerts itself.
SCRAPED_ONLY = [
    {"source_labels": ["__name__"], "regex": "ALERTS|ALERTS_FOR_STATE|.+:.+", "action": "drop"}
]


@dataclass(frozen=True)
class Fault:
    """One fault of the table: what it is, the ndbsim fault that makes it (or a data node
    stopped) and the alerts it must make true on both backends."""

    what: str
    fault: str
    params: dict[str, float] = field(default_factory=dict)
    alerts: frozenset[str] = frozenset()


# In this order: the faults whose 5-minute rates stay high after their reset come last.
FAULTS = (
    Fault(
        "a data node down",
        "stop-node",
        {"node": 2},
        frozenset({"NdbDataNodeDown", "NdbNodeGroupDegraded", "NdbDeadFragmentReplicas"}),
    ),
    Fault(
        "DataMemory high",
        "data-memory",
        {"share": 0.97},
        frozenset({"NdbDataMemoryHigh", "NdbDataMemoryCritical"}),
    ),
    Fault("LCP stall", "lcp-stall", {}, frozenset({"NdbLcpStalled"})),
    Fault(
        "a replica behind",
        "replica-behind",
        {"seconds": 900},
        frozenset({"NdbReplicationLagHigh"}),
    ),
    Fault(
        "a rate-based alert: operation errors",
        "operation-errors",
        {"share": 1.0},
        frozenset({"NdbOperationErrorsHigh"}),
    ),
    Fault(
        "a recording rule read by an alert of another group: transaction aborts",
        "transaction-aborts",
        {"share": 1.0},
        frozenset({"NdbTransactionAbortsHigh"}),
    ),
)


def _alert_key(labels: dict[str, str]) -> tuple[tuple[str, str], ...]:
    """An alert's labels as every backend gives them: vmalert adds the group's name; on the
    Receive hashring every series carries its tenant (`tenant_id`), which the rules'
    aggregations keep."""
    return tuple(sorted((k, v) for k, v in labels.items() if k not in ("alertgroup", "tenant_id")))


@dataclass
class ThanosReceive:
    """Receive nodes in a hashring, Query over them and the Ruler, Thanos Ruler evaluating the
    rules over Query; ``stopped_at``: when a receiver was stopped (Unix time)."""

    hashring: Hashring
    query: ThanosComponent
    ruler: ThanosComponent
    stopped_at: float = 0.0


@dataclass
class Stack:
    sim: Ndbsim
    prometheus: Prometheus
    victoriametrics: VictoriaMetricsStack
    alertmanager: Prometheus
    source: Exporter
    restart_source: Callable[[], Exporter]
    thanos: ThanosReceive

    @property
    def backends(self) -> dict[str, Prometheus | VictoriaMetricsStack | ThanosComponent]:
        return {
            "prometheus": self.prometheus,
            "vmalert": self.victoriametrics,
            "thanos": self.thanos.ruler,
        }

    def true_alerts(self) -> dict[str, set[tuple[tuple[str, str], ...]]]:
        """Backend -> the alerts true on it for the simulated clusters (labels and all)."""
        return {
            name: {
                _alert_key(labels)
                for labels in backend.alerts()
                if labels.get("cluster") in (SOURCE, REPLICA)
            }
            for name, backend in self.backends.items()
        }

    def wait_same(self, expected: set[str], ignored: set[str], timeout: float) -> set[str]:
        """Wait until every backend makes the same alerts true (`ignored` apart), among them
        every one of `expected` and no other when `expected` is empty; their names."""
        last: list[dict] = [{}]

        def same() -> tuple[set[str]] | None:
            true = {
                name: {key for key in keys if dict(key)["alertname"] not in ignored}
                for name, keys in self.true_alerts().items()
            }
            last[0] = true
            names = {dict(key)["alertname"] for key in true["vmalert"]}
            if not true["prometheus"] == true["vmalert"] == true["thanos"] or not expected <= names:
                return None
            return (names,) if expected or not names else None

        try:
            what = f"the same alerts on every backend, with {expected or 'none'}"
            return wait_until(same, timeout, what, 1.0)[0]
        except AssertionError as exc:
            raise AssertionError(f"{exc}; true: {last[0]}") from None

    def wait_healthy(self, ignored: set[str] = RESTART_ALERTS) -> None:
        self.wait_same(set(), ignored, RECOVERY_SECONDS)

    def assert_every_group_loads_without_error(self) -> None:
        for evaluator in (self.victoriametrics, self.thanos.ruler):
            groups = evaluator.rule_groups()
            assert {group["name"] for group in groups} == GROUPS
            rules = [rule for group in groups for rule in group["rules"]]
            assert {rule["name"] for rule in rules if rule["type"] == "alerting"} == ALERTS
            assert [(r["name"], r["lastError"]) for r in rules if r["health"] != "ok"] == []


def _scraped(
    backend: Prometheus | VictoriaMetricsStack | ThanosComponent, metric: str, cluster: str
) -> bool:
    return bool(backend.query(f'count_over_time({metric}{{cluster="{cluster}"}}[1m]) >= 3'))


def _alertmanager_config() -> dict:
    """The project's routing, with receivers that notify nobody."""
    config = load_yaml(ALERTMANAGER_FILE)
    config["receivers"] = [{"name": r["name"]} for r in config["receivers"]]
    return config


@pytest.fixture(scope="module")
def stack(tmp_path_factory) -> Iterator[Stack]:
    require_victoriametrics()
    require_programs(THANOS_PROGRAM)
    build = PROMETHEUS_BUILDS[-1]
    workdir = tmp_path_factory.mktemp("vm-alerts")
    with ExitStack() as running:
        sim = running.enter_context(
            running_ndbsim("--data-nodes", "4", "--tables", "4", replica=True, speed=SPEED)
        )
        source, replica = running_pair_exporters(
            running, sim, workdir, SOURCE_COLLECTORS, REPLICA_COLLECTORS
        )
        max_age = 0.9 * float(SCRAPE_INTERVAL.removesuffix("s"))
        source_front = shared_scrape_handler(source.address, max_age)
        fronts = {
            running.enter_context(serving(source_front)): {
                "instance": source.address,
                "cluster": SOURCE,
            },
            running.enter_context(shared_scrapes(replica.address, max_age)): {
                "instance": replica.address,
                "cluster": REPLICA,
                "source_cluster": SOURCE,
            },
        }
        alertmanager = running.enter_context(
            running_alertmanager(tool("prometheus-alertmanager"), _alertmanager_config(), workdir)
        )
        hashring = running.enter_context(running_hashring(THANOS_PROGRAM, workdir / "thanos"))
        ruler_grpc = f"{HOST}:{free_port()}"
        query = running.enter_context(
            running_query(THANOS_PROGRAM, [*hashring.endpoints, ruler_grpc], workdir / "thanos")
        )
        ruler = running.enter_context(
            running_ruler(
                THANOS_PROGRAM,
                RULE_FILES,
                query.url,
                workdir / "thanos",
                SCRAPE_INTERVAL,
                ruler_grpc,
            )
        )
        remote_write = {
            "url": hashring.write_url,
            "queue_config": {"batch_send_deadline": "1s"},
            "write_relabel_configs": SCRAPED_ONLY,
        }
        prometheus = running.enter_context(
            prometheus_of_build(
                fronts, workdir / "prometheus", SCRAPE_INTERVAL, build, remote_write=[remote_write]
            )
        )
        victoriametrics = running.enter_context(
            running_victoriametrics_stack(
                VICTORIAMETRICS_PROGRAMS,
                scrape_config(fronts, SCRAPE_INTERVAL),
                RULE_FILES,
                workdir / "victoriametrics",
                SCRAPE_INTERVAL,
                notifier_url=alertmanager.url,
            )
        )
        # the front of the source's exporter stays (its `instance` too), the exporter behind
        # it restarts, on a port of its own (no other program can have taken it meanwhile)
        source_runs = ExitStack()
        running.callback(source_runs.close)

        def restart_source() -> Exporter:
            stack.source.stop()
            restarted = source_runs.enter_context(
                running_exporter(
                    collector_flags(SOURCE_COLLECTORS),
                    mysqld=sim.account(),
                    log_dir=workdir,
                    name="source2",
                )
            )
            source_front.exporter = restarted.address
            return restarted

        thanos = ThanosReceive(hashring, query, ruler)
        stack = Stack(
            sim, prometheus, victoriametrics, alertmanager, source, restart_source, thanos
        )
        for backend, (metric, cluster) in (
            (backend, case)
            for backend in (prometheus, victoriametrics, query)
            for case in (
                ("ndb_sql_api_transactions_committed_total", SOURCE),
                ("ndb_lcp_completed_gci", SOURCE),
                ("ndb_replica_seconds_behind_source", REPLICA),
            )
        ):
            wait_until(
                lambda b=backend, m=metric, c=cluster: _scraped(b, m, c),
                60.0,
                f"{metric} of {cluster} scraped",
            )
        thanos.stopped_at = time.time()
        hashring.receivers[STOPPED_RECEIVER].process.stop()
        # the evaluations that reach Query before its next health check of the receiver fail
        # (the Ruler's default strategy aborts on a store that does not answer); from then on
        # Query leaves the receiver out, and reads its series from their other copy
        stopped = hashring.receivers[STOPPED_RECEIVER].grpc
        wait_until(
            lambda: any(
                store["name"] == stopped and store.get("lastError")
                for stores in api_data(f"{query.url}/api/v1/stores").values()
                for store in stores
            ),
            30.0,
            "Query's health check finds the receiver stopped",
        )
        time.sleep(2 * float(SCRAPE_INTERVAL.removesuffix("s")))
        wait_until(
            lambda: (
                not [
                    rule
                    for group in ruler.rule_groups()
                    for rule in group["rules"]
                    if rule["health"] != "ok"
                ]
            ),
            30.0,
            "every rule of the Ruler evaluated without error after the receiver stopped",
        )
        yield stack


pytestmark = [pytest.mark.integration, pytest.mark.long(minutes=3)]


def test_healthy_cluster_fires_nothing_across_restarts(stack: Stack):
    """Healthy, then across a restart of the source's exporter and of a data node: nothing
    true on either backend but the alerts that remember the restart, and vmalert sends
    those (they fire at once) to Alertmanager."""
    stack.wait_healthy(ignored=set())
    stack.assert_every_group_loads_without_error()
    stack.source = stack.restart_source()
    stack.wait_healthy(ignored=set())
    sim = stack.sim
    sim.stop_node(3)
    sim.start_node(3)
    sim.wait_for(
        lambda s: {n["node_id"]: n["state"] for n in s["nodes"]}.get(3) == "STARTED",
        timeout=FAULT_SECONDS,
    )
    assert "NdbDataNodeRestarted" in stack.wait_same({"NdbDataNodeRestarted"}, set(), 60.0)
    stack.wait_healthy()
    stack.assert_every_group_loads_without_error()

    def sent() -> list[dict]:
        response = httpx.get(f"{stack.alertmanager.url}/api/v2/alerts", timeout=10.0)
        return [a for a in response.json() if a["labels"]["alertname"] == "NdbDataNodeRestarted"]

    (received,) = wait_until(sent, 30.0, "NdbDataNodeRestarted in Alertmanager")
    assert (received["labels"]["cluster"], received["labels"]["node_id"]) == (SOURCE, "3")


@pytest.mark.parametrize("fault", FAULTS, ids=[f.fault for f in FAULTS])
def test_fault_makes_the_same_alerts_true_on_both(stack: Stack, fault: Fault):
    """Each fault after the previous one cleared (the last two leave their rates high for
    five minutes: they run last)."""
    sim = stack.sim
    stack.wait_healthy(ignored=RESTART_ALERTS | {"NdbOperationErrorsHigh"})
    if fault.fault == "stop-node":
        sim.stop_node(int(fault.params["node"]))
    else:
        sim.fault(fault.fault, **fault.params)
    try:
        stack.wait_same(set(fault.alerts), set(), FAULT_SECONDS)
        stack.assert_every_group_loads_without_error()
    finally:
        sim.reset()


def test_receive_hashring_with_a_receiver_stopped_keeps_every_sample(stack: Stack):
    """Every sample Prometheus scraped, from before the receiver stopped until a few seconds
    ago (what remote write has delivered), Thanos Query returns too, deduplicated: the
    hashring kept each series on the receiver left of its two."""
    time.sleep(max(0.0, stack.thanos.stopped_at + 30.0 - time.time()))
    at = f"{time.time() - 10.0:.3f}"
    window = f"{int(float(at) - stack.thanos.stopped_at) + 20}s"
    for metric in (
        "up",
        "ndb_sql_api_transactions_committed_total",
        "ndb_replica_seconds_behind_source",
    ):
        expr = f"sum by (cluster) (count_over_time({metric}[{window}]))"
        counts = {
            name: {
                series["metric"]["cluster"]: series["value"][1]
                for series in api_data(f"{url}/api/v1/query", query=expr, time=at)["result"]
            }
            for name, url in (
                ("prometheus", stack.prometheus.url),
                ("thanos", stack.thanos.query.url),
            )
        }
        assert counts["prometheus"], expr
        assert counts["thanos"] == counts["prometheus"], expr


def _doc_table() -> dict[str, tuple[set[str], ...]]:
    """docs/scaling.md's fault table: fault -> (alerts under Prometheus, under vmalert, under
    Thanos Ruler)."""
    rows = {}
    for cells in table_rows(SCALING_DOC.read_text()):
        if len(cells) == 6 and (found := re.fullmatch(r"`ndbsim fault (.+?)`.*", cells[1])):
            alerts = [set(re.findall(r"Ndb\w+", cell)) for cell in cells[2:5]]
            rows[found.group(1).split()[0]] = tuple(alerts)
    return rows


def test_scaling_doc_table_is_the_faults():
    assert _doc_table() == {f.fault: (set(f.alerts),) * 3 for f in FAULTS}
