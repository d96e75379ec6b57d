"""The dashboards at the most data nodes NDB allows: a simulated cluster of 48 data nodes and
2,000 tables, scraped by a Prometheus server beside a default ("healthy") cluster that says
which metrics to expect. No panel may draw more than 20 series there (a table no more than 50
rows unless it is sorted and its query limited), and with a data node stopped the Overview's
status and data node stats must leave their green step.

A module of its own, with one Prometheus build and no other cluster, so that the large
cluster's slow scrapes and waits do not keep the other dashboard stacks running.
"""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager

import httpx
import pytest
from ndb_harness import Ndbsim, running_exporter, running_ndbsim

from tests.dashboards.dashboard_queries import load_dashboards, panels
from tests.dashboards.live import EXPORTER_FLAGS, PASSWORD, SCRAPE_INTERVAL, concrete, exporter_up
from tests.support.live_stack import (
    PROMETHEUS_BUILDS,
    Prometheus,
    prometheus_of_build,
    serving,
    wait_until,
)

pytestmark = [pytest.mark.integration, pytest.mark.long(minutes=2)]

# A scrape of 48 data nodes x 2,000 tables takes about 2 s alone and several times that while
# the suite's other stacks share the two cores: its first complete series take longer.
LARGE_SETTLE_TIMEOUT = 240.0
HEALTHY, LARGE = "healthy", "large"  # the cluster labels
# The large cluster: the most data nodes NDB allows, and many tables.
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
                prometheus.query(concrete(target["expr"], LARGE))
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
            result = prometheus.query(concrete(panel["targets"][0]["expr"], LARGE))
            found[panel["title"]] = _colour(panel, float(result[0]["value"][1])) if result else ""
    return found


def test_panels_stay_legible_at_48_data_nodes_and_show_a_stopped_node(tmp_path):
    build = PROMETHEUS_BUILDS[0]
    with ExitStack() as running:
        healthy_sim = running.enter_context(running_ndbsim(password=PASSWORD))
        healthy = running.enter_context(exporter_up(healthy_sim, tmp_path, flags=LARGE_FLAGS))
        large = running.enter_context(
            running_ndbsim(*LARGE_CLUSTER, password=PASSWORD, seed=3, startup_timeout=180)
        )
        exporter = running.enter_context(
            running_exporter(LARGE_FLAGS, mysqld=large.account(), log_dir=tmp_path)
        )
        front = running.enter_context(serving(_LatestScrape))
        running.enter_context(_following(exporter.address))
        targets = {
            address: {"cluster": cluster, "instance": f"mysqld-{cluster}"}
            for address, cluster in ((healthy, HEALTHY), (front, LARGE))
        }
        prometheus = running.enter_context(
            prometheus_of_build(targets, tmp_path / build.name, SCRAPE_INTERVAL, build)
        )
        _check_the_large_cluster(prometheus, large)


def _metric_names(prometheus: Prometheus, cluster: str) -> set[str]:
    """The exporter's metrics of ``cluster``."""
    result = prometheus.query(f'count by (__name__) ({{cluster="{cluster}", __name__=~"ndb_.*"}})')
    return {series["metric"]["__name__"] for series in result}


def _check_the_large_cluster(prometheus: Prometheus, large: Ndbsim) -> None:
    wait_until(
        lambda: _metric_names(prometheus, HEALTHY) <= _metric_names(prometheus, LARGE),
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
