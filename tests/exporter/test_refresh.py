"""Refresh on change: each signal causes a re-read of the collectors that follow it; without
a signal nothing is re-read until the maximum age; a scrape serves the last families."""

from __future__ import annotations

import pytest
from fake_sql_node import Answer, FakeSqlNode, RunningFakeSqlNode
from mysql.connector import errors
from ndbinfo_exporter.collectors import inventory
from ndbinfo_exporter.collectors.base import SlowChanging
from ndbinfo_exporter.collectors.registry import all_collectors
from ndbinfo_exporter.scrape.refresh import (
    LATE,
    SIGNAL_SQL,
    UNKNOWN,
    Refresher,
    parse_signals,
    signals_after,
)
from ndbinfo_exporter.targets import TargetConfig
from test_scrape import PASSWORD, by_collector, gauge_collector, make_scraper, samples

EPOCH_GCI = 70000


def signal_rows(
    nodes=(("1", "STARTED 0 1"), ("2", "STARTED 0 1")),
    ready="2",
    generation="1",
    detected="0",
    tables=("40", "2026-11-23 10:00:00"),
    gci=EPOCH_GCI,
) -> list[dict]:
    rows = [{"kind": "node", "name": node, "value": value} for node, value in nodes]
    for name, value in (
        ("Ndb_number_of_ready_data_nodes", ready),
        ("Ndb_config_generation", generation),
        ("Ndb_metadata_detected_count", detected),
        ("Ndb_metadata_synced_count", "0"),
        ("Ndb_last_commit_epoch_server", str(gci << 32 | 5)),
    ):
        rows.append({"kind": "status", "name": name, "value": value})
    rows.append({"kind": "tables", "name": tables[0], "value": tables[1]})
    return rows


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def collector(signals: set[str], **kwargs):
    return gauge_collector("slow", "SELECT 1", slow=SlowChanging(frozenset(signals), **kwargs))


def refresher(clock: Clock, max_age: float = 120.0) -> Refresher:
    return Refresher(max_age, clock=clock, wall_clock=clock)


def test_first_scrape_reads_and_an_unchanged_state_does_not():
    clock, slow = Clock(), collector({"nodes", "ddl", "config"})
    refresh = refresher(clock)
    signals = parse_signals(signal_rows())
    assert refresh.due("t", slow, signals)
    refresh.read("t", slow, signals, [])
    clock.now += 119
    assert not refresh.due("t", slow, parse_signals(signal_rows()))
    assert refresh.last_read("t", slow) == 1000.0


@pytest.mark.parametrize(
    ("signal", "changed"),
    [
        ("nodes", {"nodes": (("1", "STARTED 0 1"),)}),  # a data node stopped
        ("nodes", {"nodes": (("1", "STARTED 0 1"), ("2", "STARTING 4 1"))}),  # start phase
        ("nodes", {"ready": "1"}),
        ("config", {"nodes": (("1", "STARTED 0 2"), ("2", "STARTED 0 2"))}),
        ("config", {"generation": "2"}),
        ("ddl", {"tables": ("41", "2026-11-23 10:00:00")}),
        ("ddl", {"tables": ("40", "2026-11-23 11:00:00")}),  # a table altered by copy
        ("ddl", {"detected": "1"}),
    ],
)
def test_each_signal_causes_a_re_read_of_the_collectors_that_follow_it(signal, changed):
    clock = Clock()
    follows, ignores = collector({signal}), collector({"nodes", "ddl", "config"} - {signal})
    refresh = refresher(clock)
    before, after = parse_signals(signal_rows()), parse_signals(signal_rows(**changed))
    refresh.read("t", follows, before, [])
    assert refresh.due("t", follows, after)
    other = refresher(clock)
    other.read("t", ignores, before, [])
    if "nodes" in changed:
        return  # a node row carries its status, start phase and configuration generation
    assert not other.due("t", ignores, after)


def test_maximum_age_forces_a_re_read():
    clock, slow = Clock(), collector({"nodes"})
    refresh = refresher(clock, max_age=60)
    signals = parse_signals(signal_rows())
    refresh.read("t", slow, signals, [])
    clock.now += 59.9
    assert not refresh.due("t", slow, signals)
    clock.now += 0.1
    assert refresh.due("t", slow, signals)


def test_global_checkpoints_force_a_re_read_for_lcp_state():
    clock, slow = Clock(), collector({"nodes"}, max_gcis=60)
    refresh = refresher(clock)
    refresh.read("t", slow, parse_signals(signal_rows()), [])
    assert not refresh.due("t", slow, parse_signals(signal_rows(gci=EPOCH_GCI + 59)))
    assert refresh.due("t", slow, parse_signals(signal_rows(gci=EPOCH_GCI + 60)))


def test_unknown_signals_and_unsettled_rows_re_read():
    clock = Clock()
    slow = collector({"nodes"}, settled=lambda rows: not rows)
    refresh = refresher(clock)
    signals = parse_signals(signal_rows())
    refresh.read("t", slow, signals, [])
    assert refresh.due("t", slow, UNKNOWN)
    refresh.read("t", slow, signals, [{"moving": 1}])
    assert refresh.due("t", slow, signals)
    refresh.read("t", slow, signals, [])
    assert not refresh.due("t", slow, signals)


def test_an_error_answered_by_the_sql_node_re_reads_a_late_answer_serves():
    """Error 1296 (no data node reachable) must not hide the state behind old rows; a lost
    connection or a read timeout means a slow SQL node, which is not loaded further."""
    assert signals_after(errors.DatabaseError(msg="Got error 157", errno=1296)) is UNKNOWN
    assert signals_after(errors.OperationalError(msg="Lost connection", errno=2013)) is LATE
    assert signals_after(TimeoutError()) is LATE
    clock, slow = Clock(), collector({"nodes", "ddl", "config"})
    refresh = refresher(clock, max_age=60)
    assert refresh.due("t", slow, LATE)  # nothing to serve yet
    refresh.read("t", slow, parse_signals(signal_rows()), [])
    assert not refresh.due("t", slow, LATE)
    clock.now += 60
    assert refresh.due("t", slow, LATE)


def test_fast_collectors_are_always_due():
    clock = Clock()
    fast = gauge_collector("fast", "SELECT 1")
    refresh = refresher(clock)
    refresh.read("t", fast, parse_signals(signal_rows()), [])
    assert refresh.due("t", fast, parse_signals(signal_rows()))
    assert refresh.last_read("t", fast) is None


def test_the_slowly_changing_collectors_declare_it():
    slow = {c.name for c in all_collectors() if c.slow}
    assert slow >= {
        "fragments",
        "replicas",
        "table_distribution",
        "dictionary",
        "table_info",
        "config",
        "table_detail",
        "inventory",
    }
    assert not {"nodes", "status", "transporters", "memoryusage"} & slow


def test_inventory_follows_the_node_signal_and_the_maximum_age():
    """Host hardware changes only across a data node restart: a node's new state reads it
    again, a table created or a configuration reloaded does not, and without a signal it is
    read again at the maximum age."""
    clock = Clock()
    refresh = refresher(clock, max_age=60)
    signals = parse_signals(signal_rows())
    refresh.read("t", inventory.COLLECTOR, signals, [])
    restarting = signal_rows(nodes=(("1", "STARTED 0 1"), ("2", "STARTING 4 1")))
    assert refresh.due("t", inventory.COLLECTOR, parse_signals(restarting))
    other = signal_rows(tables=("41", "2026-11-23 10:00:00"), detected="1", generation="2")
    assert not refresh.due("t", inventory.COLLECTOR, parse_signals(other))
    clock.now += 59.9
    assert not refresh.due("t", inventory.COLLECTOR, signals)
    clock.now += 0.1
    assert refresh.due("t", inventory.COLLECTOR, signals)


def answer(rows: list[dict]) -> Answer:
    return Answer(["kind", "name", "value"], [(r["kind"], r["name"], r["value"]) for r in rows])


@pytest.fixture
def node():
    fake = FakeSqlNode(
        password=PASSWORD,
        answers={
            "SELECT node_id FROM ndbinfo.nodes": Answer(["node_id"], [(1,), (2,)]),
            SIGNAL_SQL: answer(signal_rows()),
        },
    )
    with RunningFakeSqlNode(fake) as running:
        yield running


@pytest.fixture
def target(node):
    return TargetConfig(host="127.0.0.1", port=node.port, user="exporter", password=PASSWORD)


async def test_a_scrape_serves_the_last_families_until_a_signal(node, target):
    slow = gauge_collector(
        "slow", "SELECT node_id FROM ndbinfo.nodes", slow=SlowChanging(frozenset({"nodes"}))
    )
    fast = gauge_collector("fast", "SELECT node_id FROM ndbinfo.nodes /* fast */")
    scraper = make_scraper([slow, fast])
    statement = "SELECT node_id FROM ndbinfo.nodes"
    try:
        first = await scraper.scrape(target, timeout=5)
        second = await scraper.scrape(target, timeout=5)
        assert node.queries.count(statement) == 1
        assert node.queries.count(SIGNAL_SQL) == 2
        assert samples(second, "test_slow_rows") == samples(first, "test_slow_rows")
        assert by_collector(second, "ndb_exporter_collector_success") == {"slow": 1, "fast": 1}
        assert set(
            by_collector(second, "ndb_exporter_collector_last_refresh_timestamp_seconds")
        ) == {"slow"}
        assert second.rows["slow"] == [{"node_id": 1}, {"node_id": 2}]
        node.answers[SIGNAL_SQL] = answer(signal_rows(nodes=(("1", "STARTED 0 1"),), ready="1"))
        await scraper.scrape(target, timeout=5)
        assert node.queries.count(statement) == 2
    finally:
        scraper.close()


async def test_a_scrape_reads_the_inventory_again_on_a_node_signal():
    hardware = Answer(
        [*inventory.COLLECTOR.reads["hwinfo"], "online"],
        [(1, 8, 4, 1, 1 << 34, "Xeon", 8), (2, 8, 4, 1, 1 << 34, "Xeon", 8)],
    )
    fake = FakeSqlNode(
        password=PASSWORD,
        objects=("nodes", "hwinfo", "cpuinfo"),
        answers={inventory.SQL: hardware, SIGNAL_SQL: answer(signal_rows())},
    )
    scraper = make_scraper([inventory.COLLECTOR])
    with RunningFakeSqlNode(fake) as node:
        target = TargetConfig(host="127.0.0.1", port=node.port, user="exporter", password=PASSWORD)
        try:
            await scraper.scrape(target, timeout=5)
            second = await scraper.scrape(target, timeout=5)
            assert node.queries.count(inventory.SQL) == 1
            assert len(samples(second, "ndb_data_node_memory_bytes")) == 2
            assert set(
                by_collector(second, "ndb_exporter_collector_last_refresh_timestamp_seconds")
            ) == {"inventory"}
            restarting = signal_rows(nodes=(("1", "STARTED 0 1"), ("2", "STARTING 4 1")))
            node.answers[SIGNAL_SQL] = answer(restarting)
            await scraper.scrape(target, timeout=5)
            assert node.queries.count(inventory.SQL) == 2
        finally:
            scraper.close()


async def test_collect_selects_collectors_and_rejects_unknown_names(node, target):
    scraper = make_scraper(
        [
            gauge_collector("one", "SELECT node_id FROM ndbinfo.nodes"),
            gauge_collector("two", "SELECT node_id FROM ndbinfo.nodes"),
        ]
    )
    try:
        assert scraper.selection([]) is None
        only = scraper.selection(["two"])
        result = await scraper.scrape(target, timeout=5, only=only)
        assert by_collector(result, "ndb_exporter_collector_success") == {"two": 1}
        assert scraper.last(target.name) is None  # the view keeps full scrapes only
        assert SIGNAL_SQL not in node.queries  # no slowly changing collector ran
        with pytest.raises(ValueError, match="'three' is not an enabled collector"):
            scraper.selection(["two", "three"])
    finally:
        scraper.close()


async def test_signals_late_serve_the_last_rows_rather_than_read_them_again(node, target):
    """A SQL node too slow to answer the signals within the scrape is not made to scan the
    distribution state on top of its load."""
    statement = "SELECT node_id FROM ndbinfo.nodes"
    slow = gauge_collector("slow", statement, slow=SlowChanging(frozenset({"nodes"})))
    scraper = make_scraper([slow])
    try:
        await scraper.scrape(target, timeout=5)
        node.answers[SIGNAL_SQL] = Answer(["kind", "name", "value"], [], delay=6)
        late = await scraper.scrape(target, timeout=2)
        assert node.queries.count(statement) == 1
        assert by_collector(late, "ndb_exporter_collector_success") == {"slow": 1}
        assert samples(late, "test_slow_rows")
    finally:
        scraper.close()


def test_a_read_with_late_signals_keeps_the_signals_of_the_read_before():
    clock, slow = Clock(), collector({"nodes"})
    refresh = refresher(clock, max_age=60)
    before = parse_signals(signal_rows())
    refresh.read("t", slow, before, [])
    clock.now += 60
    refresh.read("t", slow, LATE, [])  # read at the maximum age, the signals did not come
    assert not refresh.due("t", slow, before)
    assert refresh.due("t", slow, parse_signals(signal_rows(ready="1")))
