"""Every dashboard query, run against a real Prometheus scraping the exporter in front of ndbsim.

Two simulated clusters are scraped by one Prometheus server of each build (2 s interval, the
project's rule files loaded): "healthy", and "faulty", which gets the conditions the dashboards declare for their
fault-only queries (a per-node config override at start, node restarts and ndbsim faults at
run time). Each query must return data in the healthy cluster, or, if declared fault-only,
return nothing there and data in the faulty one, on every Prometheus build; every healthy
query returns data on VictoriaMetrics too (vmagent scraping the same exporters, MetricsQL
answering).

Queries declared with the REPLICATION condition need a source and a replica cluster: they
must return nothing in the healthy cluster, and data in a replication pair (ndbsim --replica)
scraped by the same servers, its source's SQL node labelled cluster="primary" and its
replica's cluster="dr" and source_cluster="primary" (both selected in the cluster variable). Under each fault of the link,
the panels that show it must show it.

A third cluster, "large", has 48 data nodes and 2,000 tables: no panel may draw more than 20
series there (a table no more than 50 rows unless it is sorted and its query limited), and
with a data node stopped the Overview's status and data node stats must leave their green step.
"""

from __future__ import annotations

import http.server
import re
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass

import httpx
import pytest
from ndb_dashboards import build
from ndb_dashboards.common import REPLICATION
from ndb_dashboards.replication import UID as REPLICATION_UID
from ndb_harness import MysqlAccount, Ndbsim, running_exporter, running_ndbsim
from ndbinfo_exporter.collectors.registry import all_collectors

from tests.dashboards.dashboard_queries import load_dashboards, panels, queries
from tests.support.live_stack import (
    PROMETHEUS_BUILDS,
    VICTORIAMETRICS,
    Prometheus,
    PrometheusBuild,
    every_prometheus_build,
    require_victoriametrics,
    running_prometheus_builds,
    serving,
    wait_until,
)

pytestmark = [pytest.mark.integration, pytest.mark.long(minutes=3)]

# Every 2 s: a full scrape of the default simulated cluster takes about a second on a busy
# 2-core machine, and the scrape timeout is the interval.
SCRAPE_INTERVAL = "2s"
RATE_WINDOW = "10s"  # five scrapes
SETTLE_TIMEOUT = 75.0
# A scrape of 48 data nodes x 2,000 tables takes about 2 s alone and several times that while
# the suite's other stacks share the two cores: its first complete series take longer.
LARGE_SETTLE_TIMEOUT = 240.0
PASSWORD = "ndbsim"
EXPORTER_FLAGS = (
    "--collector.table_detail",
    "--collector.restart_info.phases=true",
    "--collector.host_cpu",
    "--collector.hot_tables",
    # The scrape timeout is the short interval here: leave the collectors most of it.
    "--exporter.scrape-timeout-offset=0.1",
)
# The replication pair: its source's SQL node (the binlog server) and its replica's, each
# scraped with the collectors of the Replication dashboard alone.
SOURCE, REPLICA = "primary", "dr"
PAIR = f"{SOURCE}|{REPLICA}"
PAIR_COLLECTORS = ("status", "binlog", "replica_status", "apply_status")
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


@contextmanager
def _exporter(
    sim, workdir, port: int | None = None, flags: tuple[str, ...] = EXPORTER_FLAGS
) -> Iterator[str]:
    """The exporter for ``sim``'s SQL node on ``port`` (default: its first), once it reports
    the node up; yields its address."""
    account = MysqlAccount(sim.host, port or sim.port, sim.user, sim.password)
    with running_exporter(flags, mysqld=account, log_dir=workdir) as exporter:
        url = f"http://{exporter.address}/metrics"
        wait_until(lambda: "\nndb_up 1" in httpx.get(url, timeout=10).text, 30, "ndb_up 1")
        yield exporter.address


# The large cluster: the most data nodes NDB allows, and many tables.
LARGE = "large"
LARGE_CLUSTER = ("--data-nodes", "48", "--tables", "2000")
# Without the opt-in per-table collectors: they export a fixed number of tables
# (--collector.*.limit) whatever the tables, and reading 2,000 tables' fragments on 48 data
# nodes would not fit in the scrape interval.
LARGE_FLAGS = tuple(
    flag
    for flag in EXPORTER_FLAGS
    if flag not in ("--collector.table_detail", "--collector.hot_tables")
)
MAX_SERIES = 20  # a graph, bar gauge or state timeline
MAX_ROWS = 50  # a table that is not sorted and limited
STOPPED_NODE = 2
# The Overview's panels that must leave green while a data node is stopped.
STOPPED_NODE_PANELS = ("Cluster status", "Data nodes not started", "Node groups degraded")


class _LatestScrape(http.server.BaseHTTPRequestHandler):
    """Answers at once with the last complete scrape of the exporter it follows (503 while it
    follows none). A scrape of the large cluster can outlast the short scrape interval on a
    busy machine, and its series (not their age) are what the test reads; the large cluster
    runs only while its test does, so that the other tests do not pay for it."""

    body = b""

    def do_GET(self) -> None:
        body = type(self).body
        self.send_response(200 if body else 503)
        self.send_header("Content-Type", "text/plain; version=0.0.4")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@contextmanager
def _following(exporter: str) -> Iterator[None]:
    """The front serves ``exporter``'s scrapes, fetched one after the other in the background,
    once one reports ndb_up 1."""
    stop = threading.Event()

    def fetch() -> None:
        while not stop.is_set():
            try:
                response = httpx.get(f"http://{exporter}/metrics", timeout=120)
                if response.status_code == 200:
                    _LatestScrape.body = response.content
            except httpx.HTTPError:
                pass
            stop.wait(1)

    thread = threading.Thread(target=fetch)
    thread.start()
    try:
        wait_until(lambda: b"\nndb_up 1" in _LatestScrape.body, 180, "the large cluster's scrape")
        yield
    finally:
        stop.set()
        thread.join()
        _LatestScrape.body = b""


@dataclass
class Stack:
    servers: dict[str, Prometheus]
    conditions: dict[str, str]  # fault-only query -> its condition
    pair: Ndbsim


def _concrete(expr: str, cluster: str) -> str:
    text = (
        expr.replace("$__rate_interval", RATE_WINDOW)
        .replace("$cluster", cluster)
        .replace("$instance", ".*")
        .replace("$node", ".*")
    )
    assert not re.search(r"\$[A-Za-z_{]", text), f"unsubstituted variable in {text}"
    return text


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
        pending = {e: w for e, w in pending.items() if not prometheus.query(_concrete(e, cluster))}
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
            running.enter_context(_exporter(sim, workdir)): {
                "cluster": name,
                "instance": f"mysqld-{name}",
            }
            for name, sim in (("healthy", healthy_sim), ("faulty", faulty_sim))
        }
        large_front = running.enter_context(serving(_LatestScrape))
        targets[large_front] = {"cluster": LARGE, "instance": f"mysqld-{LARGE}"}
        for name, port, source in (
            (SOURCE, pair.port, {}),
            (REPLICA, pair.replica_port, {"source_cluster": SOURCE}),
        ):
            address = running.enter_context(_exporter(pair, workdir, port, PAIR_FLAGS))
            targets[address] = {"cluster": name, "instance": f"mysqld-{name}", **source}
        servers = running.enter_context(
            running_prometheus_builds(targets, workdir, SCRAPE_INTERVAL, victoriametrics=True)
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


def _assert_healthy_queries_return_data(prometheus: Prometheus, conditions: dict[str, str]):
    pending = {e: w for e, w in _all_queries().items() if e not in conditions}
    empty = _settle(prometheus, pending, "healthy")
    assert not empty, "queries without data in a healthy cluster:\n" + "\n".join(
        f"  {where}: {expr}" for expr, where in empty.items()
    )
    needless = [e for e in conditions if prometheus.query(_concrete(e, "healthy"))]
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


def _limited(panel: dict) -> bool:
    """A table sorted by a column whose every query keeps only the top or bottom rows."""
    sorted_by = panel.get("options", {}).get("sortBy")
    exprs = [target["expr"] for target in panel.get("targets", [])]
    return bool(sorted_by) and all(e.startswith(("topk(", "bottomk(")) for e in exprs)


def _rows(panel: dict, results: list[list[dict]]) -> int:
    """The rows a table shows: one per series, or per value of the row label of a matrix."""
    for step in panel.get("transformations", []):
        if step["id"] == "groupingToMatrix":
            row = step["options"]["rowField"]
            return len({series["metric"].get(row) for result in results for series in result})
    return max(map(len, results), default=0)


def _too_many_series(prometheus: Prometheus) -> list[str]:
    """Panels drawing more than MAX_SERIES series (tables: rows) in the large cluster."""
    found = []
    for uid, dashboard in load_dashboards().items():
        for panel in panels(dashboard):
            results = [
                prometheus.query(_concrete(target["expr"], LARGE))
                for target in panel.get("targets", [])
            ]
            if panel["type"] == "table":
                rows = _rows(panel, results)
                if rows > MAX_ROWS and not _limited(panel):
                    found.append(f"  {uid} / {panel['title']}: {rows} rows")
            elif sum(map(len, results)) > MAX_SERIES:
                found.append(f"  {uid} / {panel['title']}: {sum(map(len, results))} series")
    return found


def _colour(panel: dict, value: float) -> str:
    """The colour of the panel's threshold step that ``value`` falls in."""
    steps = panel["fieldConfig"]["defaults"]["thresholds"]["steps"]
    colour = steps[0]["color"]
    for step in steps[1:]:
        if value >= step["value"]:
            colour = step["color"]
    return colour


def _overview_colours(prometheus: Prometheus) -> dict[str, str]:
    """The colour each of STOPPED_NODE_PANELS shows in the large cluster ("" without data)."""
    found = {}
    for panel in panels(load_dashboards()["ndb-overview"]):
        if panel["title"] in STOPPED_NODE_PANELS:
            result = prometheus.query(_concrete(panel["targets"][0]["expr"], LARGE))
            found[panel["title"]] = _colour(panel, float(result[0]["value"][1])) if result else ""
    return found


def test_panels_stay_legible_at_48_data_nodes_and_show_a_stopped_node(stack, tmp_path):
    prometheus = next(iter(stack.servers.values()))
    with ExitStack() as running:
        large = running.enter_context(
            running_ndbsim(*LARGE_CLUSTER, password=PASSWORD, seed=3, startup_timeout=180)
        )
        exporter = running.enter_context(
            running_exporter(LARGE_FLAGS, mysqld=large.account(), log_dir=tmp_path)
        )
        running.enter_context(_following(exporter.address))
        _check_the_large_cluster(prometheus, large)


def _metric_names(prometheus: Prometheus, cluster: str) -> set[str]:
    """The exporter's metrics of ``cluster`` but the per-table ones (opt-in collectors the
    large cluster runs without)."""
    result = prometheus.query(
        f'count by (__name__) ({{cluster="{cluster}", __name__=~"ndb_.*", __name__!~"ndb_table_.*"}})'
    )
    return {series["metric"]["__name__"] for series in result}


def _check_the_large_cluster(prometheus: Prometheus, large: Ndbsim) -> None:
    wait_until(
        lambda: _metric_names(prometheus, "healthy") <= _metric_names(prometheus, LARGE),
        LARGE_SETTLE_TIMEOUT,
        "every collector's series from the large cluster",
    )
    wait_until(
        lambda: all(_overview_colours(prometheus).values()),
        LARGE_SETTLE_TIMEOUT,
        "the large cluster's Overview stats",
    )
    too_many = _too_many_series(prometheus)
    assert not too_many, "panels past the legible at 48 data nodes:\n" + "\n".join(too_many)
    wait_until(
        lambda: set(_overview_colours(prometheus).values()) == {"green"},
        LARGE_SETTLE_TIMEOUT,
        "the large cluster's Overview to be green",
    )
    large.stop_node(STOPPED_NODE)
    wait_until(
        lambda: "green" not in _overview_colours(prometheus).values(),
        LARGE_SETTLE_TIMEOUT,
        f"the Overview to leave green with data node {STOPPED_NODE} stopped",
    )
