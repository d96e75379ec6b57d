"""Many viewers, one collection: the view's statements counted by a proxy in front of ndbsim;
and a cluster of 8 data nodes with 2,000 tables stays pageable."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from ndb_harness import MysqlAccount, running_exporter, running_ndbsim
from ndbinfo_exporter.collectors import status
from ndbinfo_exporter.health import placement
from ndbinfo_exporter.view.source import VIEW_INTERVAL_SECONDS

from tests.view.counting_proxy import counting_proxy

pytestmark = pytest.mark.integration

STATUS_STATEMENT = status.COLLECTOR.sql  # sent once per scrape
# The placement per table and data node, without the node whose copy is read; sent when the
# scrape read the distribution again, not at every refresh.
PLACEMENT_STATEMENT = placement.sql_for(1).split("WHERE")[0]
DETAIL_STATEMENT = placement.detail_sql(1, 1).split("WHERE")[0]
VIEWERS = 40


def viewers(url: str) -> set[int]:
    """Status codes of VIEWERS requests sent at once (threads: the test may share its thread
    with Playwright's event loop)."""
    paths = ["/api/v1/cluster", "/api/v1/placement", "/api/v1/findings", "/api/v1/config", "/"]
    with ThreadPoolExecutor(VIEWERS) as pool:
        answers = pool.map(
            lambda i: httpx.get(url + paths[i % len(paths)], timeout=60), range(VIEWERS)
        )
        return {answer.status_code for answer in answers}


def refreshed(url: str) -> None:
    """Returns once the view's background refresh has finished."""
    for _ in range(600):
        answer = httpx.get(url + "/api/v1/cluster", timeout=60)
        if answer.headers["x-view-refreshing"] == "false":
            return
        time.sleep(0.1)
    raise AssertionError("the view's refresh never finished")


def test_concurrent_viewers_cause_one_collection_per_interval():
    with (
        running_ndbsim("--data-nodes", "4", "--tables", "40") as sim,
        counting_proxy(sim.port) as proxy,
        running_exporter(
            mysqld=MysqlAccount(sim.host, proxy.port, sim.user, sim.password)
        ) as exporter,
    ):
        assert viewers(exporter.url) == {200}
        assert proxy.seen(STATUS_STATEMENT) == 1
        assert proxy.seen(PLACEMENT_STATEMENT) == 1
        assert proxy.seen(DETAIL_STATEMENT) == 0

        time.sleep(VIEW_INTERVAL_SECONDS + 0.5)  # let the cached data age past the refresh interval
        assert viewers(exporter.url) == {200}  # the model they have, while one refresh runs
        refreshed(exporter.url)
        assert proxy.seen(STATUS_STATEMENT) == 2
        # The distribution did not change and its collectors were not due: the placement of
        # the first scrape is served again.
        assert proxy.seen(PLACEMENT_STATEMENT) == 1

        # A table's fragments are read when the first viewer opens it and served from then
        # on to every viewer that opens it, until the placement is read again.
        table_id = httpx.get(f"{exporter.url}/api/v1/placement").json()["tables"][0]["table_id"]
        first = httpx.get(f"{exporter.url}/api/v1/placement/{table_id}", timeout=60)
        assert first.status_code == 200, first.text
        assert proxy.seen(DETAIL_STATEMENT) == 1
        with ThreadPoolExecutor(VIEWERS) as pool:
            answers = list(
                pool.map(
                    lambda _: httpx.get(f"{exporter.url}/api/v1/placement/{table_id}", timeout=60),
                    range(VIEWERS),
                )
            )
        assert {answer.status_code for answer in answers} == {200}
        assert proxy.seen(DETAIL_STATEMENT) == 1


def test_eight_data_nodes_and_two_thousand_tables():
    with (
        running_ndbsim("--data-nodes", "8", "--tables", "2000") as sim,
        running_exporter(mysqld=sim.account()) as exporter,
    ):
        first = httpx.get(
            f"{exporter.url}/api/v1/placement", params={"page_size": 100}, timeout=120
        )
        assert first.status_code == 200, first.text
        body = first.json()
        assert body["total_tables"] >= 2000
        assert len(body["tables"]) == 100
        assert body["pages"] == -(-body["matched_tables"] // 100)
        assert [n["node_id"] for n in body["nodes"]] == list(range(1, 9))
        tables = _all_tables(exporter.url)
        assert len(tables) == body["matched_tables"]
        assert sum(n["primaries"] for n in body["nodes"]) == sum(t["fragments"] for t in tables)
        assert all(
            {s["node_id"] for s in t["nodes"]} <= set(range(1, 9))
            and sum(s["primaries"] for s in t["nodes"]) == t["fragments"]
            for t in tables
        )
        cluster = httpx.get(f"{exporter.url}/api/v1/cluster", timeout=60).json()
        assert sum(len(g["nodes"]) for g in cluster["topology"]["node_groups"]) == 8


def _all_tables(url: str) -> list[dict]:
    tables, page, pages = [], 1, 1
    while page <= pages:
        params = {"page_size": 500, "page": page}
        answer = httpx.get(f"{url}/api/v1/placement", params=params, timeout=60).json()
        tables += answer["tables"]
        page, pages = page + 1, answer["pages"]
    return tables
