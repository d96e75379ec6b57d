"""Every dashboard query, run against a real Prometheus scraping the exporter in front of ndbsim.

Two simulated clusters are scraped by one Prometheus server of each build (2 s interval, the
project's rule files loaded): "healthy", and "faulty", which gets the conditions the dashboards declare for their
fault-only queries (a per-node config override at start, node restarts and ndbsim faults at
run time). Each query must return data in the healthy cluster, or, if declared fault-only,
return nothing there and data in the faulty one, on every Prometheus build; every healthy
query returns data on VictoriaMetrics too (vmagent scraping the same exporters, MetricsQL
answering), and through Thanos Query (over a sidecar of the newest Prometheus build).

Queries declared with the REPLICATION condition need a source and a replica cluster: they
must return nothing in the healthy cluster, and data in a replication pair (ndbsim --replica)
scraped by the same servers, its source's SQL node labelled cluster="primary" and its
replica's cluster="dr" and source_cluster="primary" (both selected in the cluster variable). Under each fault of the link,
the panels that show it must show it.

The large cluster (48 data nodes) has a module of its own: test_large_cluster_live.py.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass

import pytest
from ndb_dashboards import build
from ndb_dashboards.common import REPLICATION
from ndb_dashboards.replication import UID as REPLICATION_UID
from ndb_harness import Ndbsim, running_ndbsim
from ndbinfo_exporter.collectors.registry import all_collectors

from tests.dashboards.dashboard_queries import load_dashboards, queries
from tests.dashboards.live import EXPORTER_FLAGS, PASSWORD, SCRAPE_INTERVAL, concrete, exporter_up
from tests.support.live_stack import (
    PROMETHEUS_BUILDS,
    THANOS,
    THANOS_PROGRAM,
    VICTORIAMETRICS,
    Prometheus,
    PrometheusBuild,
    every_prometheus_build,
    require_programs,
    require_victoriametrics,
    running_prometheus_builds,
)

pytestmark = [pytest.mark.integration, pytest.mark.long(minutes=3)]

SETTLE_TIMEOUT = 75.0
# The replication pair: its source's SQL node (the binlog server) and its replica's, each
# scraped with the collectors of the Replication dashboard alone.
SOURCE, REPLICA = "primary", "dr"
PAIR = f"{SOURCE}|{REPLICA}"
PAIR_COLLECTORS = (
    "status",
    "binlog",
    "binlog_files",
    "replica_status",
    "apply_status",
    "applier_workers",
)
PAIR_FLAGS = EXPORTER_FLAGS[-1:] + tuple(
    f"--no-collector.{c.name}" for c in all_collectors() if c.name not in PAIR_COLLECTORS
)
FAULT_TIMEOUT = 30.0
# What the Replication dashboard's panels show of the pair: (panel, refId) -> a comparison
# its values must pass (PromQL keeps the series that pass it). Healthy: both threads run.
HEALTHY_PAIR = {
    ("I/O thread", "A"): "== 2",
    ("SQL thread", "A"): "== 1",
    ("Last error numbers", "A"): "== 0",
    ("Last error numbers", "B"): "== 0",
}
# Under each fault of the link (an ndbsim fault name[:k=v,...]), the panels that show it.
FAULT_PANELS = {
    "replica-behind": {
        ("Seconds behind source", "A"): "> 300",
        ("Epoch lag per source server", "A"): "> 150",
        ("Channels", "B"): "> 300",
    },
    "replica-sql-error": {
        ("SQL thread", "A"): "== 0",
        ("Last error numbers", "B"): "== 1032",
        ("Channels", "D"): "== 1032",
    },
    "replica-io-disconnect": {
        ("I/O thread", "A"): "== 1",
        ("Last error numbers", "A"): "== 2003",
        ("Channels", "C"): "== 2003",
    },
    "injector-behind": {
        ("Binlog injector lag", "A"): "> 30",
        ("Event buffer", "A"): "> 10",
    },
    # the event buffer overflowed: a LOST_EVENTS incident stops the replica's SQL thread
    "injector-behind:gap=true": {
        ("SQL thread", "A"): "== 0",
        ("Last error numbers", "B"): "== 1590",
    },
}


@dataclass
class Stack:
    servers: dict[str, Prometheus]
    conditions: dict[str, str]  # fault-only query -> its condition
    pair: Ndbsim


def _all_queries() -> dict[str, str]:
    """Every distinct query expression -> where it is used (first use)."""
    found: dict[str, str] = {}
    for uid, dashboard in load_dashboards().items():
        for panel, target in queries(dashboard):
            found.setdefault(target["expr"], f"{uid} / {panel['title']} / {target['refId']}")
    return found


def _fault_conditions() -> dict[str, str]:
    conditions: dict[str, str] = {}
    for board in build.boards():
        conditions.update(board.faults)
    return conditions


def _apply(sim, condition: str) -> None:
    """Apply a run-time condition: restart-node:N, stop-node:N or an ndbsim fault name[:k=v,...]."""
    name, _, argument = condition.partition(":")
    if name in ("config", REPLICATION):
        return  # given to ndbsim at start; replication is not run here
    if name == "restart-node":
        sim.stop_node(int(argument))
        sim.start_node(int(argument))
    elif name == "stop-node":
        sim.stop_node(int(argument))
    else:
        params = dict(pair.split("=", 1) for pair in argument.split(",") if pair)
        sim.fault(name, **params)


def _settle(
    prometheus: Prometheus, pending: dict[str, str], cluster: str, timeout: float = SETTLE_TIMEOUT
) -> dict[str, str]:
    """Poll until every pending query returns data; what is still empty at the deadline."""
    deadline = time.monotonic() + timeout
    while pending and time.monotonic() < deadline:
        pending = {e: w for e, w in pending.items() if not prometheus.query(concrete(e, cluster))}
        if pending:
            time.sleep(1)
    return pending


@pytest.fixture(scope="module")
def stack(tmp_path_factory) -> Iterator[Stack]:
    workdir = tmp_path_factory.mktemp("live-queries")
    conditions = _fault_conditions()
    config_args = []
    for condition in sorted(set(conditions.values())):
        if condition.startswith("config:"):
            config_args += ["--config", condition.removeprefix("config:")]
    with ExitStack() as running:
        healthy_sim = running.enter_context(running_ndbsim(password=PASSWORD))
        faulty_sim = running.enter_context(running_ndbsim(*config_args, password=PASSWORD, seed=2))
        pair = running.enter_context(
            running_ndbsim("--tables", "4", password=PASSWORD, replica=True, speed=5)
        )
        targets = {
            running.enter_context(exporter_up(sim, workdir)): {
                "cluster": name,
                "instance": f"mysqld-{name}",
            }
            for name, sim in (("healthy", healthy_sim), ("faulty", faulty_sim))
        }
        for name, port, source in (
            (SOURCE, pair.port, {}),
            (REPLICA, pair.replica_port, {"source_cluster": SOURCE}),
        ):
            address = running.enter_context(exporter_up(pair, workdir, port, PAIR_FLAGS))
            targets[address] = {"cluster": name, "instance": f"mysqld-{name}", **source}
        servers = running.enter_context(
            running_prometheus_builds(
                targets, workdir, SCRAPE_INTERVAL, victoriametrics=True, thanos=True
            )
        )
        for condition in sorted(set(conditions.values())):
            _apply(faulty_sim, condition)
        yield Stack(servers, conditions, pair)


def _server(stack: Stack, prometheus_build: PrometheusBuild) -> tuple[Prometheus, dict[str, str]]:
    prometheus_build.require()
    return stack.servers[prometheus_build.name], stack.conditions


@every_prometheus_build
def test_every_healthy_query_returns_data(stack, prometheus_build):
    _assert_healthy_queries_return_data(*_server(stack, prometheus_build))


def test_every_healthy_query_returns_data_on_victoriametrics(stack):
    """The same queries, through VictoriaMetrics' engine (MetricsQL) over the same scrapes."""
    require_victoriametrics()
    _assert_healthy_queries_return_data(stack.servers[VICTORIAMETRICS], stack.conditions)


def test_every_healthy_query_returns_data_through_thanos_query(stack):
    """The same queries, through Thanos Query (Grafana's data source on Thanos) over a sidecar
    of the newest Prometheus build."""
    require_programs(THANOS_PROGRAM)
    _assert_healthy_queries_return_data(stack.servers[THANOS], stack.conditions)


def _assert_healthy_queries_return_data(prometheus: Prometheus, conditions: dict[str, str]):
    pending = {e: w for e, w in _all_queries().items() if e not in conditions}
    empty = _settle(prometheus, pending, "healthy")
    assert not empty, "queries without data in a healthy cluster:\n" + "\n".join(
        f"  {where}: {expr}" for expr, where in empty.items()
    )
    needless = [e for e in conditions if prometheus.query(concrete(e, "healthy"))]
    assert not needless, "declared fault-only but with data in a healthy cluster:\n" + "\n".join(
        f"  [{conditions[e]}] {e}" for e in needless
    )


@every_prometheus_build
def test_fault_only_queries_return_data_under_their_fault(stack, prometheus_build):
    prometheus, conditions = _server(stack, prometheus_build)
    assert conditions, "no fault-only queries declared"
    where = _all_queries()
    faulty = {e: where[e] for e, c in conditions.items() if c != REPLICATION}
    empty = _settle(prometheus, faulty, "faulty")
    assert not empty, "fault-only queries without data under their fault:\n" + "\n".join(
        f"  {w} [{conditions[e]}]: {e}" for e, w in empty.items()
    )


def _panel_query(title: str, ref_id: str) -> str:
    dashboard = load_dashboards()[REPLICATION_UID]
    return next(
        target["expr"]
        for panel, target in queries(dashboard)
        if (panel["title"], target["refId"]) == (title, ref_id)
    )


def _showing(panels: dict[tuple[str, str], str]) -> dict[str, str]:
    """The panels' queries kept to the values that pass their comparison -> where they are."""
    return {
        f"({_panel_query(title, ref_id)}) {comparison}": f"{title} / {ref_id} {comparison}"
        for (title, ref_id), comparison in panels.items()
    }


def _not_shown(stack: Stack, shown: dict[str, str], timeout: float) -> list[str]:
    """What a Prometheus build does not show of the pair within ``timeout``: "build: where:
    query" lines."""
    for prometheus_build in PROMETHEUS_BUILDS:
        prometheus_build.require()
    return [
        f"  {name}: {where}: {expr}"
        for name, prometheus in stack.servers.items()
        for expr, where in _settle(prometheus, shown, PAIR, timeout).items()
    ]


def test_replication_queries_return_data_on_a_replication_pair(stack):
    replicated = {e: w for e, w in _all_queries().items() if stack.conditions.get(e) == REPLICATION}
    assert replicated, "no replication queries declared"
    empty = _not_shown(stack, replicated, SETTLE_TIMEOUT)
    assert not empty, "replication queries without data on the pair:\n" + "\n".join(empty)
    wrong = _not_shown(stack, _showing(HEALTHY_PAIR), FAULT_TIMEOUT)
    assert not wrong, "the healthy pair shown otherwise:\n" + "\n".join(wrong)


@pytest.mark.parametrize("fault", sorted(FAULT_PANELS))
def test_replication_panels_show_the_fault_of_the_link(stack, fault):
    _apply(stack.pair, fault)
    try:
        missed = _not_shown(stack, _showing(FAULT_PANELS[fault]), FAULT_TIMEOUT)
    finally:
        stack.pair.reset()
    assert not missed, f"not shown under {fault}:\n" + "\n".join(missed)
