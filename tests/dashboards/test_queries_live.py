"""Every dashboard query, run against a real Prometheus scraping the exporter in front of ndbsim.

Two simulated clusters are scraped by one Prometheus server of each build (1 s interval, the
project's rule files loaded): "healthy", and "faulty", which gets the conditions the dashboards declare for their
fault-only queries (a per-node config override at start, node restarts and ndbsim faults at
run time). Each query must return data in the healthy cluster, or, if declared fault-only,
return nothing there and data in the faulty one, on every Prometheus build.

Queries declared with the REPLICATION condition need a source and a replica cluster
(ndbsim --replica), which this stack does not run: they must return nothing in the healthy
cluster, and the test that would run them under replication is skipped, naming them.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager

import httpx
import pytest
from dashboard_queries import load_dashboards, queries
from live_stack import (
    Prometheus,
    PrometheusBuild,
    every_prometheus_build,
    running_exporter,
    running_prometheus_builds,
    wait_until,
)
from ndb_dashboards import build
from ndb_dashboards.common import REPLICATION

pytestmark = pytest.mark.integration

RATE_WINDOW = "10s"
SETTLE_TIMEOUT = 75.0
PASSWORD = "ndbsim"
EXPORTER_FLAGS = (
    "--collector.table_detail",
    "--collector.restart_info.phases=true",
    "--collector.host_cpu",
    # Prometheus scrapes every second here: leave the collectors most of that second.
    "--exporter.scrape-timeout-offset=0.1",
)


@contextmanager
def _exporter(sim, workdir) -> Iterator[str]:
    """The exporter for ``sim``, once it reports the node up; yields its address."""
    with running_exporter(sim.port, sim.user, sim.password, workdir, *EXPORTER_FLAGS) as exporter:
        url = f"http://{exporter.address}/metrics"
        wait_until(lambda: "\nndb_up 1" in httpx.get(url, timeout=10).text, 30, "ndb_up 1")
        yield exporter.address


def _concrete(expr: str, cluster: str) -> str:
    text = (
        expr.replace("$__rate_interval", RATE_WINDOW)
        .replace("$cluster", cluster)
        .replace("$instance", ".*")
        .replace("$node", ".*")
    )
    assert "$" not in text, f"unsubstituted variable in {text}"
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


def _settle(prometheus: Prometheus, pending: dict[str, str], cluster: str) -> dict[str, str]:
    """Poll until every pending query returns data; what is still empty at the deadline."""
    deadline = time.monotonic() + SETTLE_TIMEOUT
    while pending and time.monotonic() < deadline:
        pending = {e: w for e, w in pending.items() if not prometheus.query(_concrete(e, cluster))}
        if pending:
            time.sleep(1)
    return pending


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    from ndbsim.testing import running_ndbsim

    workdir = tmp_path_factory.mktemp("live-queries")
    conditions = _fault_conditions()
    config_args = []
    for condition in sorted(set(conditions.values())):
        if condition.startswith("config:"):
            config_args += ["--config", condition.removeprefix("config:")]
    with ExitStack() as running:
        healthy_sim = running.enter_context(running_ndbsim(password=PASSWORD))
        faulty_sim = running.enter_context(running_ndbsim(*config_args, password=PASSWORD, seed=2))
        targets = {
            running.enter_context(_exporter(sim, workdir)): {
                "cluster": name,
                "instance": f"mysqld-{name}",
            }
            for name, sim in (("healthy", healthy_sim), ("faulty", faulty_sim))
        }
        servers = running.enter_context(running_prometheus_builds(targets, workdir, "1s"))
        for condition in sorted(set(conditions.values())):
            _apply(faulty_sim, condition)
        yield servers, conditions


def _server(stack, prometheus_build: PrometheusBuild) -> tuple[Prometheus, dict[str, str]]:
    prometheus_build.require()
    servers, conditions = stack
    return servers[prometheus_build.name], conditions


@every_prometheus_build
def test_every_healthy_query_returns_data(stack, prometheus_build):
    prometheus, conditions = _server(stack, prometheus_build)
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


def test_replication_queries_need_a_replica_stack():
    replicated = sorted(
        w for e, w in _all_queries().items() if _fault_conditions().get(e) == REPLICATION
    )
    assert replicated, "no replication queries declared"
    pytest.skip(
        f"{len(replicated)} replication queries need ndbsim --replica, not run here: "
        + "; ".join(replicated)
    )
