"""The scrape orchestration against a MySQL-protocol server, with test collectors."""

from __future__ import annotations

import asyncio
import logging

import pytest
from ndbinfo_exporter.collectors.base import Collector, Option
from ndbinfo_exporter.scrape.pool import Pools
from ndbinfo_exporter.targets import TargetConfig
from prometheus_client.core import GaugeMetricFamily

from tests.support.fake_sql_node import Answer, FakeSqlNode, RunningFakeSqlNode
from tests.support.scraping import PASSWORD, by_collector, gauge_collector, make_scraper, samples


@pytest.fixture
def node():
    fake = FakeSqlNode(
        password=PASSWORD,
        answers={
            "SELECT node_id FROM ndbinfo.nodes": Answer(["node_id"], [(1,), (2,)]),
            "SELECT node_id FROM ndbinfo.nodes /* slow */": Answer(["node_id"], [(1,)], delay=30),
        },
    )
    with RunningFakeSqlNode(fake) as running:
        yield running


@pytest.fixture
def target(node):
    return TargetConfig(host="127.0.0.1", port=node.port, user="exporter", password=PASSWORD)


async def test_healthy_scrape_reports_every_collector(target):
    scraper = make_scraper(
        [
            gauge_collector("fast", "SELECT node_id FROM ndbinfo.nodes"),
            gauge_collector("absent_table", "SELECT 1", reads={"no_such_view": ("x",)}),
            gauge_collector("too_new", "SELECT 1", min_version=(9, 9, 0)),
        ]
    )
    try:
        result = await scraper.scrape(target, timeout=5)
    finally:
        scraper.close()
    assert result.up and result.error is None
    assert samples(result, "ndb_up") == {(): 1}
    assert by_collector(result, "ndb_exporter_collector_success") == {"fast": 1}
    assert by_collector(result, "ndb_exporter_collector_skipped") == {
        "fast": 0,
        "absent_table": 1,
        "too_new": 1,
    }
    assert set(by_collector(result, "ndb_exporter_collector_duration_seconds")) == {"fast"}
    assert samples(result, "ndb_version_info") == {
        (
            ("flavour", "mysql"),
            ("flavour_version", "8.4.3"),
            ("ndb_version", "8.4.3"),
            ("version", "8.4.3-cluster"),
        ): 1
    }
    assert samples(result, "test_fast_rows") == {(("node_id", "1"),): 1, (("node_id", "2"),): 1}
    assert result.target_info.objects == frozenset({"nodes", "memoryusage"})
    kept = scraper.last(target.name)  # for the view: without the rendered exposition
    assert (kept.families, kept.finished_at) == (result.families, result.finished_at)
    assert (kept.exposition.text, result.exposition.text != b"") == (b"", True)


async def test_a_scraper_that_renders_none_returns_the_same_families(target):
    """check and report read the families only: their scraper renders no exposition."""
    collectors = [gauge_collector("fast", "SELECT node_id FROM ndbinfo.nodes")]
    rendering, silent = make_scraper(collectors), make_scraper(collectors, renders=False)
    try:
        rendered, unrendered = [await s.scrape(target, timeout=5) for s in (rendering, silent)]
    finally:
        rendering.close()
        silent.close()
    assert samples(unrendered, "test_fast_rows") == samples(rendered, "test_fast_rows")
    assert [f.name for f in unrendered.families] == [f.name for f in rendered.families]
    assert (unrendered.exposition.text, unrendered.exposition.openmetrics) == (b"", b"")
    assert b"test_fast_rows" in rendered.exposition.text


async def test_slow_collector_fails_alone_within_the_deadline(node, target):
    slow = gauge_collector("slow", "SELECT node_id FROM ndbinfo.nodes /* slow */")
    fast = gauge_collector("fast", "SELECT node_id FROM ndbinfo.nodes")
    scraper = make_scraper([slow, fast])
    try:
        result = await scraper.scrape(target, timeout=1.5)
        # The slow statement is still being answered by the server: the scrape did not wait for it.
        assert node.open_connections >= 1
        assert by_collector(result, "ndb_exporter_collector_success") == {"slow": 0, "fast": 1}
        assert result.up
        # The connection that timed out is not handed out again.
        pool = scraper.pool(target)
        again = await scraper.scrape(target, timeout=1.5)
        assert by_collector(again, "ndb_exporter_collector_success") == {"slow": 0, "fast": 1}
        assert pool.open_connections <= 3
    finally:
        scraper.close()


async def test_query_timeout_bounds_a_collector(target):
    scraper = make_scraper(
        [gauge_collector("slow", "SELECT node_id FROM ndbinfo.nodes /* slow */")], query_timeout=1
    )
    try:
        result = await scraper.scrape(target, timeout=20)
    finally:
        scraper.close()
    assert by_collector(result, "ndb_exporter_collector_success") == {"slow": 0}


def broken_collector() -> Collector:
    def broken(rows, context):
        raise ValueError(f"cannot parse row (password {PASSWORD})")

    return Collector(
        name="broken",
        help="raises",
        default_enabled=True,
        reads={},
        min_version=(0, 0, 0),
        sql="SELECT node_id FROM ndbinfo.nodes",
        collect=broken,
    )


async def test_failing_collect_gives_success_zero_and_one_log_line(target, caplog):
    failing = broken_collector()
    scraper = make_scraper([failing, gauge_collector("fast", "SELECT node_id FROM ndbinfo.nodes")])
    from ndbinfo_exporter import logs

    logs.add_secret(PASSWORD)
    try:
        with caplog.at_level(logging.INFO):
            result = await scraper.scrape(target, timeout=5)
    finally:
        scraper.close()
    assert by_collector(result, "ndb_exporter_collector_success") == {"broken": 0, "fast": 1}
    records = [r for r in caplog.records if getattr(r, "fields", {}).get("collector") == "broken"]
    assert len(records) == 1
    assert not records[0].exc_info
    assert PASSWORD not in records[0].fields["err"]
    assert "cannot parse row" in records[0].fields["err"]
    # The same line is kept with the result, for the cluster view.
    assert result.collector_errors == {"broken": records[0].fields["err"]}


async def test_failing_collect_keeps_its_connection(node, target):
    """A collector's bug is not a broken connection: the pool keeps and reuses it."""
    scraper = make_scraper([broken_collector()], max_connections=1)
    try:
        for _ in range(3):
            result = await scraper.scrape(target, timeout=5)
            assert by_collector(result, "ndb_exporter_collector_success") == {"broken": 0}
    finally:
        scraper.close()
    assert sum(query.startswith("SELECT @@version") for query in node.queries) == 1


async def test_concurrent_scrapes_share_one_collection(node, target):
    scraper = make_scraper([gauge_collector("fast", "SELECT node_id FROM ndbinfo.nodes")])
    node.answers["SELECT node_id FROM ndbinfo.nodes"].delay = 0.5
    try:
        first, second = await asyncio.gather(
            scraper.scrape(target, timeout=5), scraper.scrape(target, timeout=5)
        )
        assert first is second
        assert node.queries.count("SELECT node_id FROM ndbinfo.nodes") == 1
        third = await scraper.scrape(target, timeout=5)
        assert third is not first
    finally:
        scraper.close()


async def test_connection_limit_under_twenty_concurrent_scrapes(node, target):
    for i in range(10):
        node.answers[f"SELECT node_id FROM ndbinfo.nodes /* {i} */"] = Answer(
            ["node_id"], [(1,)], delay=0.2
        )
    collectors = [
        gauge_collector(f"c{i}", f"SELECT node_id FROM ndbinfo.nodes /* {i} */") for i in range(10)
    ]
    scraper = make_scraper(collectors, max_connections=3)
    other_credentials = [
        TargetConfig(target.host, target.port, f"user{i}", PASSWORD, auth_module=f"m{i}")
        for i in range(3)
    ]
    try:
        results = await asyncio.gather(
            *(
                scraper.scrape(other_credentials[i % 4] if i % 4 < 3 else target, 30)
                for i in range(20)
            )
        )
    finally:
        scraper.close()
    assert all(r.up for r in results)
    assert all(
        set(by_collector(r, "ndb_exporter_collector_success").values()) == {1} for r in results
    )
    assert 1 <= node.max_open_connections <= 3


async def test_server_down_then_back(target):
    fake = FakeSqlNode(password=PASSWORD)
    scraper = make_scraper([gauge_collector("fast", "SELECT 1", reads={})])
    try:
        with RunningFakeSqlNode(fake) as running:
            down_target = TargetConfig("127.0.0.1", running.port, "exporter", PASSWORD)
            assert (await scraper.scrape(down_target, 5)).up
        # The server is gone; the pooled connection is stale.
        result = await scraper.scrape(down_target, 5)
        assert not result.up
        assert samples(result, "ndb_up") == {(): 0}
        assert PASSWORD not in (result.error or "")
    finally:
        scraper.close()


async def test_a_target_evicted_with_its_pool_leaves_no_state(target):
    """More targets than the pool limit: the least recently used one's pool is closed, and
    everything the scraper kept of it (latest scrape, families, refresh, logs) goes with it."""
    scraper = make_scraper([gauge_collector("fast", "SELECT node_id FROM ndbinfo.nodes")])
    scraper._pools = Pools(max_connections=3, query_timeout=10.0, limit=1)
    nodes = Answer(["node_id"], [(1,)])
    other = FakeSqlNode(password=PASSWORD, answers={"SELECT node_id FROM ndbinfo.nodes": nodes})
    try:
        with RunningFakeSqlNode(other) as running:
            second = TargetConfig("127.0.0.1", running.port, "exporter", PASSWORD)
            assert (await scraper.scrape(target, 5)).up
            assert scraper.last(target.name) is not None
            assert (await scraper.scrape(second, 5)).up
    finally:
        scraper.close()
    assert scraper.last(target.name) is None
    assert set(scraper._states) == {second.name}  # states only for live pools


async def test_a_node_gone_during_the_scrape_answers_down():
    """A SQL node stopped while a statement runs (its connections dropped, its port closed)
    did not answer the scrape: ndb_up 0, not a failing collector on a node that is up."""
    slow_sql = "SELECT node_id FROM ndbinfo.nodes /* slow */"
    fake = FakeSqlNode(password=PASSWORD, answers={slow_sql: Answer(["node_id"], [], delay=30)})
    scraper = make_scraper([gauge_collector("slow", slow_sql)])
    running = RunningFakeSqlNode(fake)
    running.__enter__()
    target = TargetConfig("127.0.0.1", fake.port, "exporter", PASSWORD)
    try:
        scrape = asyncio.ensure_future(scraper.scrape(target, 10))
        while slow_sql not in fake.queries:
            await asyncio.sleep(0.05)
        await asyncio.to_thread(running.__exit__)
        result = await scrape
        assert (result.up, samples(result, "ndb_up")) == (False, {(): 0})
        assert result.error.startswith("went away during the scrape: ")
        assert PASSWORD not in result.error
    finally:
        scraper.close()


async def test_non_ndb_server_skips_ndb_collectors(node, target):
    node.ndbinfo_version = None
    node.version = "8.0.36"
    node.objects = ()
    scraper = make_scraper([gauge_collector("fast", "SELECT node_id FROM ndbinfo.nodes")])
    try:
        result = await scraper.scrape(target, 5)
    finally:
        scraper.close()
    assert result.up
    assert result.target_info.ndb_version == (0, 0, 0)
    assert by_collector(result, "ndb_exporter_collector_skipped") == {"fast": 1}


async def test_collector_params_come_from_options(node, target):
    node.answers["SELECT node_id FROM ndbinfo.nodes WHERE node_id < 5"] = Answer(
        ["node_id"], [(3,)]
    )
    seen = {}

    def params(context):
        seen.update(context.options)
        return (context.options["limit"],)

    collector = gauge_collector(
        "limited",
        "SELECT node_id FROM ndbinfo.nodes WHERE node_id < %s",
        params=params,
        options=(Option("limit", "upper bound", 9, int),),
    )
    scraper = make_scraper([collector], options={"limited": {"limit": 5}})
    try:
        result = await scraper.scrape(target, 5)
    finally:
        scraper.close()
    assert seen == {"limit": 5}
    assert samples(result, "test_limited_rows") == {(("node_id", "3"),): 1}


async def test_unchanged_rows_reuse_the_previous_rendering(node, target):
    calls = []

    def collect(rows, context):
        calls.append(len(rows))
        family = GaugeMetricFamily("test_memo_rows", "Rows seen.", value=len(rows))
        return [family]

    collector = Collector(
        name="memo",
        help="memo test collector",
        default_enabled=True,
        reads={"nodes": ("node_id",)},
        min_version=(7, 5, 0),
        sql="SELECT node_id FROM ndbinfo.nodes",
        collect=collect,
    )
    scraper = make_scraper([collector])
    first = await scraper.scrape(target, 5)
    second = await scraper.scrape(target, 5)
    assert calls == [2]
    assert first.families[-1] is second.families[-1]
    assert b"test_memo_rows 2.0" in second.exposition.text

    node.answers["SELECT node_id FROM ndbinfo.nodes"] = Answer(["node_id"], [(1,)])
    third = await scraper.scrape(target, 5)
    assert calls == [2, 1]
    assert b"test_memo_rows 1.0" in third.exposition.text


async def test_the_statement_follows_the_target_and_the_server_id_is_learned(node, target):
    """A collector whose SQL is a function of the target runs the statement named for the
    SQL node's version; the detection reads @@server_id with @@version, in one statement."""
    node.version, node.server_id = "5.7.44-ndb-7.6.34-cluster-gpl", 7
    node.answers["SHOW SLAVE STATUS"] = Answer(["node_id"], [(4,)])

    def statement(info):
        return "SHOW SLAVE STATUS" if info.server_version < (8, 0, 22) else "SHOW REPLICA STATUS"

    scraper = make_scraper([gauge_collector("chosen", statement, reads={})])
    try:
        result = await scraper.scrape(target, 5)
    finally:
        scraper.close()
    assert result.target_info.server_id == 7
    assert samples(result, "test_chosen_rows") == {(("node_id", "4"),): 1}
    assert "SHOW REPLICA STATUS" not in node.queries
    assert sum(query.startswith("SELECT @@version") for query in node.queries) == 1


async def test_an_absent_source_is_no_failure_and_other_errors_are(node, target):
    node.errors["SELECT node_id FROM mysql.absent"] = 1146
    node.errors["SELECT node_id FROM mysql.denied"] = 1142
    scraper = make_scraper(
        [
            gauge_collector(
                "absent", "SELECT node_id FROM mysql.absent", absent_errors=frozenset({1146})
            ),
            gauge_collector(
                "denied", "SELECT node_id FROM mysql.denied", absent_errors=frozenset({1146})
            ),
        ]
    )
    try:
        result = await scraper.scrape(target, 5)
    finally:
        scraper.close()
    assert by_collector(result, "ndb_exporter_collector_success") == {"absent": 1, "denied": 0}
    assert samples(result, "test_absent_rows") == {}
