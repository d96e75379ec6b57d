"""Refresh on change: each signal causes a re-read of the collectors that follow it; without
a signal nothing is re-read until the maximum age (one read for age per scrape, and none for
collectors that are not aged); a scrape serves the last families."""

from __future__ import annotations

import asyncio
import json

import pytest
from mysql.connector import errors
from ndbinfo_exporter.collectors import (
    certificates,
    config,
    inventory,
    pgman_latency,
    processes,
    tc_latency,
)
from ndbinfo_exporter.collectors._one_copy import objects_fingerprint
from ndbinfo_exporter.collectors.base import SlowChanging
from ndbinfo_exporter.collectors.registry import all_collectors
from ndbinfo_exporter.scrape.refresh import (
    LATE,
    LINKS_LIMIT,
    LINKS_SQL,
    OBJECTS_SQL,
    SIGNAL_SQL,
    UNKNOWN,
    Refresher,
    follows_links,
    links_sql,
    parse_signals,
    signals_after,
)
from ndbinfo_exporter.targets import TargetConfig

from tests.support.collector_fixtures import FIXTURES
from tests.support.fake_sql_node import Answer, FakeSqlNode, RunningFakeSqlNode
from tests.support.scraping import PASSWORD, by_collector, gauge_collector, make_scraper, samples


def signal_rows(
    nodes=(("1", "STARTED 0 1"), ("2", "STARTED 0 1")),
    ready="2",
    generation="1",
    detected="0",
    tables=("40", "2026-11-23 10:00:00"),
    altered="0",
) -> list[dict]:
    rows = [{"kind": "node", "name": node, "value": value} for node, value in nodes]
    for name, value in (
        ("Ndb_number_of_ready_data_nodes", ready),
        ("Ndb_config_generation", generation),
        ("Ndb_metadata_detected_count", detected),
        ("Ndb_metadata_synced_count", "0"),
        ("Com_alter_table", altered),
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
    return Refresher("t", max_age, clock=clock, wall_clock=clock)


def is_due(refresh: Refresher, collector, signals, objects_read: bool = False) -> bool:
    return collector in refresh.due([collector], signals, objects_read)


def objects(count: int = 900, fragments: int = 5000) -> list[dict]:
    """Rows of OBJECTS_SQL: the lowest reporting node's copy gives the signal."""
    sums = {"tables": count, "ids": 40000, "partitions": 2500, "fragments": fragments}
    return [{"node_id": 1, **sums}, {"node_id": 2, **sums, "tables": count + 1}]


def test_first_scrape_reads_and_an_unchanged_state_does_not():
    clock, slow = Clock(), collector({"nodes", "ddl", "config"})
    refresh = refresher(clock)
    signals = parse_signals(signal_rows())
    assert is_due(refresh, slow, signals)
    refresh.record_read(slow, signals, [])
    clock.now += 119
    assert not is_due(refresh, slow, parse_signals(signal_rows()))
    assert refresh.last_read(slow) == 1000.0


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
        ("ddl", {"altered": "1"}),  # an ALTER TABLE began on this SQL node
    ],
)
def test_each_signal_causes_a_re_read_of_the_collectors_that_follow_it(signal, changed):
    clock = Clock()
    follows, ignores = collector({signal}), collector({"nodes", "ddl", "config"} - {signal})
    refresh = refresher(clock)
    before, after = parse_signals(signal_rows()), parse_signals(signal_rows(**changed))
    refresh.record_read(follows, before, [])
    assert is_due(refresh, follows, after)
    other = refresher(clock)
    other.record_read(ignores, before, [])
    if "nodes" in changed:
        return  # a node row carries its status, start phase and configuration generation
    assert not is_due(other, ignores, after)


def test_maximum_age_forces_a_re_read():
    clock, slow = Clock(), collector({"nodes"})
    refresh = refresher(clock, max_age=60)
    signals = parse_signals(signal_rows())
    refresh.record_read(slow, signals, [])
    clock.now += 59.9
    assert not is_due(refresh, slow, signals)
    clock.now += 0.1
    assert is_due(refresh, slow, signals)


def test_a_collector_not_aged_is_read_again_only_on_a_signal():
    """The distribution's collectors: a change of the objects signal (read at the maximum
    age) reads them again, age alone does not."""
    clock, slow = Clock(), collector({"nodes", "objects"}, aged=False)
    refresh = refresher(clock, max_age=60)
    signals = refresh.observe(parse_signals(signal_rows(), objects()))
    refresh.record_read(slow, signals, [])
    clock.now += 600
    assert not is_due(refresh, slow, refresh.observe(parse_signals(signal_rows())))
    assert refresh.objects_due([slow])
    altered = refresh.observe(parse_signals(signal_rows(), objects(fragments=5001)))
    assert not refresh.objects_due([slow])
    assert is_due(refresh, slow, altered, objects_read=True)


def test_the_objects_signal_is_read_at_the_maximum_age_and_carried_between_reads():
    clock, slow = Clock(), collector({"objects"}, aged=False)
    refresh = refresher(clock, max_age=60)
    assert not refresh.objects_due([collector({"nodes"})])  # nobody follows it
    assert refresh.objects_due([slow])
    refresh.observe(parse_signals(signal_rows(), objects()))
    clock.now += 59.9
    assert not refresh.objects_due([slow])
    carried = refresh.observe(parse_signals(signal_rows()))
    assert carried.get("objects") == parse_signals([], objects()).get("objects")
    clock.now += 0.1
    assert refresh.objects_due([slow])


def test_the_objects_signal_comes_with_the_rows_of_the_collector_that_gives_it():
    """table_distribution's rows carry the objects signal: once read before the first reads,
    it costs no read of its own, and a change in those rows reads the followers again at the
    next scrape."""
    clock, follower = Clock(), collector({"objects"}, aged=False)
    giver = gauge_collector(
        "giver",
        "SELECT 1",
        slow=SlowChanging(frozenset({"nodes"}), fingerprint=objects_fingerprint),
    )
    refresh = refresher(clock, max_age=60)
    assert refresh.objects_due([follower, giver])  # before the first reads
    signals = refresh.observe(parse_signals(signal_rows(), objects()))
    for slow in (follower, giver):
        refresh.record_read(slow, signals, objects() if slow is giver else [])
    clock.now += 600
    assert not refresh.objects_due([follower, giver])
    assert refresh.objects_due([follower])  # where the giver does not run
    unchanged = refresh.observe(parse_signals(signal_rows()))
    assert refresh.due([follower, giver], unchanged, False) == [giver]  # its age
    refresh.record_read(giver, unchanged, objects(count=901))
    changed = refresh.observe(parse_signals(signal_rows()))
    assert is_due(refresh, follower, changed)


def test_reads_for_age_alone_are_spread_one_per_scrape_oldest_first():
    clock = Clock()
    first, second = (
        gauge_collector(name, "SELECT 1", slow=SlowChanging(frozenset({"nodes"})))
        for name in ("first", "second")
    )
    refresh = refresher(clock, max_age=60)
    signals = parse_signals(signal_rows())
    refresh.record_read(first, signals, [])
    clock.now += 1
    refresh.record_read(second, signals, [])
    clock.now += 100
    assert refresh.due([second, first], signals, False) == [first]
    assert refresh.due([second, first], signals, True) == []  # the objects signal's turn
    refresh.record_read(first, signals, [])
    assert refresh.due([second, first], signals, False) == [second]
    changed = parse_signals(signal_rows(ready="1"))
    assert refresh.due([second, first], changed, False) == [second, first]


def test_unknown_signals_and_unsettled_rows_re_read():
    clock = Clock()
    slow = collector({"nodes"}, settled=lambda rows: not rows)
    refresh = refresher(clock)
    signals = parse_signals(signal_rows())
    refresh.record_read(slow, signals, [])
    assert is_due(refresh, slow, UNKNOWN)
    refresh.record_read(slow, signals, [{"moving": 1}])
    assert is_due(refresh, slow, signals)
    refresh.record_read(slow, signals, [])
    assert not is_due(refresh, slow, signals)


def test_an_error_answered_by_the_sql_node_re_reads_a_late_answer_serves():
    """Error 1296 (no data node reachable) must not hide the state behind old rows; a lost
    connection or a read timeout means a slow SQL node, which is not loaded further."""
    assert signals_after(errors.DatabaseError(msg="Got error 157", errno=1296)) is UNKNOWN
    assert signals_after(errors.OperationalError(msg="Lost connection", errno=2013)) is LATE
    assert signals_after(TimeoutError()) is LATE
    clock, slow = Clock(), collector({"nodes", "ddl", "config"})
    refresh = refresher(clock, max_age=60)
    assert is_due(refresh, slow, LATE)  # nothing to serve yet
    refresh.record_read(slow, parse_signals(signal_rows()), [])
    assert not is_due(refresh, slow, LATE)
    clock.now += 60
    assert is_due(refresh, slow, LATE)
    assert not is_due(refresh, collector({"nodes"}, aged=False), LATE)


def test_fast_collectors_are_always_due():
    clock = Clock()
    fast = gauge_collector("fast", "SELECT 1")
    refresh = refresher(clock)
    refresh.record_read(fast, parse_signals(signal_rows()), [])
    assert is_due(refresh, fast, parse_signals(signal_rows()))
    assert refresh.last_read(fast) is None


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
        "processes",
        "certificates",
        "tc_latency",
        "pgman_latency",
    }
    assert not {"nodes", "status", "transporters", "memoryusage"} & slow


def test_inventory_follows_the_node_signal_and_an_hour():
    """Host hardware changes only across a data node restart: a node's new state reads it
    again, a table created or a configuration reloaded does not, and without a signal it is
    read again after an hour (a CPU taken offline under a running node)."""
    clock = Clock()
    refresh = refresher(clock, max_age=60)
    signals = parse_signals(signal_rows())
    refresh.record_read(inventory.COLLECTOR, signals, [])
    restarting = signal_rows(nodes=(("1", "STARTED 0 1"), ("2", "STARTING 4 1")))
    assert is_due(refresh, inventory.COLLECTOR, parse_signals(restarting))
    other = signal_rows(tables=("41", "2026-11-23 10:00:00"), detected="1", generation="2")
    assert not is_due(refresh, inventory.COLLECTOR, parse_signals(other))
    clock.now += 3599.9
    assert not is_due(refresh, inventory.COLLECTOR, signals)
    clock.now += 0.1
    assert is_due(refresh, inventory.COLLECTOR, signals)


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
    refresh.record_read(slow, before, [])
    clock.now += 60
    refresh.record_read(slow, LATE, [])  # read at the maximum age, the signals did not come
    assert not is_due(refresh, slow, before)
    assert is_due(refresh, slow, parse_signals(signal_rows(ready="1")))


async def test_concurrent_scrapes_with_different_collect_read_a_due_collector_once(node, target):
    """Two scrapes of one target selecting different collectors (two Prometheus jobs) that
    both find a slowly changing collector due share one read of it."""
    statement = "SELECT node_id FROM ndbinfo.nodes /* slow */"
    slow = gauge_collector("slow", statement, slow=SlowChanging(frozenset({"nodes"})))
    one = gauge_collector("one", "SELECT node_id FROM ndbinfo.nodes /* one */")
    two = gauge_collector("two", "SELECT node_id FROM ndbinfo.nodes /* two */")
    node.answers[statement] = Answer(["node_id"], [(1,), (2,)], delay=0.5)
    scraper = make_scraper([slow, one, two])
    try:
        results = await asyncio.gather(
            scraper.scrape(target, timeout=5, only=frozenset({"slow", "one"})),
            scraper.scrape(target, timeout=5, only=frozenset({"slow", "two"})),
        )
        assert node.queries.count(statement) == 1
        for result in results:
            assert by_collector(result, "ndb_exporter_collector_success")["slow"] == 1
            assert samples(result, "test_slow_rows")
    finally:
        scraper.close()


async def test_the_objects_signal_is_read_for_collectors_that_follow_it(node, target):
    node.answers[OBJECTS_SQL] = Answer(
        ["node_id", "tables", "ids", "partitions", "fragments"], [(1, 900, 40000, 2500, 5000)]
    )
    statement = "SELECT node_id FROM ndbinfo.nodes"
    slow = gauge_collector(
        "slow", statement, slow=SlowChanging(frozenset({"nodes", "objects"}), aged=False)
    )
    scraper = make_scraper([slow])
    try:
        await scraper.scrape(target, timeout=5)
        await scraper.scrape(target, timeout=5)
        assert node.queries.count(OBJECTS_SQL) == 1
        assert node.queries.count(statement) == 1
    finally:
        scraper.close()


def test_a_lasting_transition_is_read_less_and_less_often():
    """Primaries never handed back: the first reads come at the next scrapes, then the
    waits double up to the maximum age."""
    clock = Clock()
    slow = collector({"nodes"}, settled=lambda rows: not rows)
    refresh = refresher(clock, max_age=120)
    signals = parse_signals(signal_rows())
    reads = []
    for second in range(600):
        if is_due(refresh, slow, signals):
            reads.append(second)
            refresh.record_read(slow, signals, [{"away": 1}])
        clock.now += 1
    assert reads[:4] == [0, 1, 2, 3]
    waits = [b - a for a, b in zip(reads[3:], reads[4:], strict=False)]
    assert waits[:4] == [15, 30, 60, 120]
    assert set(waits[4:]) == {120}
    refresh.record_read(slow, signals, [])
    assert not is_due(refresh, slow, signals)


def test_a_maximum_age_of_zero_reads_every_collector_at_every_scrape():
    clock = Clock()
    refresh = refresher(clock, max_age=0)
    aged = collector({"nodes"})
    distribution = gauge_collector(
        "distribution", "SELECT 1", slow=SlowChanging(frozenset({"objects"}), aged=False)
    )
    signals = parse_signals(signal_rows())
    for slow in (aged, distribution):
        refresh.record_read(slow, signals, [])
    assert refresh.due([aged, distribution], signals, False) == [aged, distribution]
    assert not refresh.objects_due([distribution])


def uptime_rows(uptimes: dict[str, int]) -> list[dict]:
    rows = signal_rows()
    for row in rows:
        if row["kind"] == "node":
            row["uptime"] = uptimes[row["name"]]
    return rows


def read_at(uptimes: dict[str, int], sent: float, answered: float | None = None):
    return parse_signals(uptime_rows(uptimes), None, sent, sent if answered is None else answered)


def test_a_restart_between_two_scrapes_reads_the_node_followers_again():
    """A data node that restarted between two reads of the signals looks the same in its state,
    phase and the ready count: its uptime going back, or its start time moving forward,
    reads the collectors that follow the nodes again (the distribution's primaries moved)."""
    clock, slow = Clock(), collector({"nodes"})
    refresh = refresher(clock)
    refresh.record_read(slow, read_at({"1": 500, "2": 500}, 1000.0), [])
    assert not is_due(refresh, slow, read_at({"1": 515, "2": 514}, 1015.0))
    assert is_due(refresh, slow, read_at({"1": 515, "2": 3}, 1015.0))
    # Up again long enough that its uptime is past the last one read: its start time moved.
    assert is_due(refresh, slow, read_at({"1": 1100, "2": 600}, 1600.0))


def test_slow_answers_are_no_restart():
    """However long the SQL node takes to answer, a node that did not restart started within
    the bounds of both reads."""
    clock, slow = Clock(), collector({"nodes"})
    refresh = refresher(clock)
    refresh.record_read(slow, read_at({"1": 500, "2": 500}, 1000.0, 1030.0), [])
    assert not is_due(refresh, slow, read_at({"1": 531, "2": 531}, 1001.0, 1002.0))
    assert not is_due(refresh, slow, read_at({"1": 560, "2": 530}, 1060.0, 1061.0))


def test_an_uptime_running_faster_than_the_exporter_is_no_restart():
    """ndbsim's clock may run faster than wall time: the estimated start time then goes back,
    which is not a restart."""
    clock, slow = Clock(), collector({"nodes"})
    refresh = refresher(clock)
    refresh.record_read(slow, read_at({"1": 500, "2": 500}, 1000.0), [])
    assert not is_due(refresh, slow, read_at({"1": 560, "2": 560}, 1010.0))


def test_a_signal_during_a_transition_reads_at_once():
    """Primaries being handed back are read again less and less often; a node stopping in
    the meantime is a signal, read at the next scrape whatever the backoff."""
    clock, slow = Clock(), collector({"nodes"}, settled=lambda rows: False)
    refresh = refresher(clock)
    signals = parse_signals(signal_rows())
    for _ in range(6):
        refresh.record_read(slow, signals, [])
    assert not is_due(refresh, slow, signals)
    stopped = parse_signals(signal_rows(nodes=(("1", "STARTED 0 1"),), ready="1"))
    assert is_due(refresh, slow, stopped)


def links(api="0", api_connects="1", mgm="0") -> list[dict]:
    """Rows of LINKS_SQL: data node 1's links to data node 2, management node 49 and SQL node
    51 (connection_status 0 CONNECTED, 2 DISCONNECTED)."""
    return [
        {"node_id": 1, "remote_node_id": 2, "connection_status": 0, "connect_count": 1},
        {"node_id": 1, "remote_node_id": 49, "connection_status": mgm, "connect_count": 1},
        {
            "node_id": 1,
            "remote_node_id": 51,
            "connection_status": api,
            "connect_count": api_connects,
        },
    ]


def signals_of(uptimes=None, links_rows=None, **changed):
    rows = signal_rows(**changed)
    for row in rows:
        if row["kind"] == "node":
            row["uptime"] = (uptimes or {}).get(row["name"], 500)
    return parse_signals(rows, None, 1000.0, 1000.0, links() if links_rows is None else links_rows)


@pytest.mark.parametrize(
    ("change", "processes_due", "certificates_due"),
    [
        ({"nodes": (("1", "STARTED 0 1"),), "ready": "1"}, True, True),  # data node 2 stopped
        ({"uptimes": {"2": 3}}, True, True),  # data node 2 restarted between two scrapes
        ({"generation": "2"}, True, False),  # configuration reloaded
        ({"links_rows": links(api="2")}, True, True),  # the SQL node went away
        ({"links_rows": links(mgm="2")}, True, True),  # the management node went away
        ({"links_rows": links(api_connects="2")}, True, True),  # the SQL node reconnected
        ({"tables": ("41", "2026-11-23 10:00:00")}, False, False),  # a table created
    ],
)
def test_processes_and_certificates_follow_restarts_connections_and_configuration(
    change, processes_due, certificates_due
):
    """Processes and certificates change only when a node connects, goes away or restarts
    (a certificate is taken into use when its node starts) or, for processes, with the
    configuration: the signals that move then read them again."""
    clock = Clock()
    refresh = refresher(clock)
    before = signals_of()
    for collector in (processes.COLLECTOR, certificates.COLLECTOR):
        refresh.record_read(collector, before, [])
        assert not is_due(refresh, collector, signals_of())
    after = signals_of(**change)
    assert is_due(refresh, processes.COLLECTOR, after) == processes_due
    assert is_due(refresh, certificates.COLLECTOR, after) == certificates_due


def test_certificates_are_read_again_after_an_hour_processes_only_on_a_signal():
    """An expiry is days away: without a signal, certificates are read again after an hour
    (or the exporter's maximum age when longer); processes only on a signal."""
    clock = Clock()
    both = [processes.COLLECTOR, certificates.COLLECTOR]
    refresh = refresher(clock, max_age=60)
    for collector in both:
        refresh.record_read(collector, signals_of(), [])
    clock.now += 3599
    assert refresh.due(both, signals_of(), False) == []
    clock.now += 1
    assert refresh.due(both, signals_of(), False) == [certificates.COLLECTOR]
    longer = refresher(clock, max_age=7200)
    longer.record_read(certificates.COLLECTOR, signals_of(), [])
    clock.now += 3600
    assert not is_due(longer, certificates.COLLECTOR, signals_of())


def test_the_links_signal_unread_reads_its_followers_at_every_scrape():
    """An SQL node that refuses LINKS_SQL leaves the links signal unknown: its followers are
    read as they would be without signals."""
    clock = Clock()
    refresh = refresher(clock)
    refresh.record_read(processes.COLLECTOR, signals_of(), [])
    unread = parse_signals(signal_rows())
    assert is_due(refresh, processes.COLLECTOR, unread)
    assert follows_links([processes.COLLECTOR]) and not follows_links([inventory.COLLECTOR])


CONFIGURED = ["node_id", "node_type", "node_hostname", "node_version", "process_name"]
CERTIFICATES = ["Node_id", "Name", "Expires", "Serial"]
CONFIG = ["node_id", "param_name", "param_type", "param_default", "config_value"]


def cluster_answers(node_2_up=True, serial="5F01", memory="1073741824") -> dict[str, Answer]:
    version = "8.4.3" if node_2_up else None
    return {
        processes.SQL: Answer(
            CONFIGURED,
            [
                (1, "NDB", "host1", "8.4.3", "ndbmtd"),
                (2, "NDB", "host2", version, "ndbmtd" if node_2_up else None),
            ],
        ),
        certificates.SQL: Answer(
            CERTIFICATES,
            [(1, "NDB Node 1", "01-Jan-2027", "5E01"), (2, "NDB Node 2", "01-Jan-2027", serial)],
        ),
        config.SQL: Answer(
            CONFIG,
            [(n, "DataMemory", "unsigned", "100663296", memory) for n in (1, 2)],
        ),
    }


def signal_answer(uptimes: dict[str, int], generation: str = "1") -> Answer:
    rows = signal_rows(
        nodes=tuple((node, f"STARTED 0 {generation}") for node in uptimes),
        ready=str(len(uptimes)),
        generation=generation,
    )
    return Answer(
        ["kind", "name", "value", "uptime"],
        [(r["kind"], r["name"], r["value"], uptimes.get(r["name"])) for r in rows],
    )


async def test_a_restart_a_new_configuration_and_a_renewed_certificate_reach_the_metrics():
    """Each reaches the metrics at the first scrape after its signal moved; before the signal,
    the last rows are served."""
    fake = FakeSqlNode(
        password=PASSWORD,
        objects=(
            "nodes",
            "config_nodes",
            "processes",
            "certificates",
            "config_values",
            "config_params",
        ),
        answers={**cluster_answers(), SIGNAL_SQL: signal_answer({"1": 500, "2": 500})},
    )
    scraper = make_scraper([processes.COLLECTOR, certificates.COLLECTOR, config.COLLECTOR])
    connected = "ndb_node_connected"
    serial = "ndb_tls_certificate_info"
    with RunningFakeSqlNode(fake) as node:
        target = TargetConfig(host="127.0.0.1", port=node.port, user="exporter", password=PASSWORD)

        async def scrape() -> dict:
            result = await scraper.scrape(target, timeout=5)
            return {
                "connected": {dict(k)["node_id"]: v for k, v in samples(result, connected).items()},
                "serials": {dict(k)["serial"] for k in samples(result, serial)},
                "memory": set(samples(result, "ndb_config_value").values()),
            }

        try:
            assert (await scrape())["connected"] == {"1": 1.0, "2": 1.0}
            # data node 2 stops: served until the signal says so, then read
            node.answers.update(cluster_answers(node_2_up=False))
            assert (await scrape())["connected"]["2"] == 1.0
            node.answers[SIGNAL_SQL] = signal_answer({"1": 515})
            assert (await scrape())["connected"]["2"] == 0.0
            # it starts again with a renewed certificate
            node.answers.update(cluster_answers(serial="6A02"))
            node.answers[SIGNAL_SQL] = signal_answer({"1": 530, "2": 4})
            started = await scrape()
            assert started["connected"]["2"] == 1.0
            assert started["serials"] == {"5E01", "6A02"}
            # a new configuration: served until the generation moves, then read
            node.answers.update(cluster_answers(serial="6A02", memory="2147483648"))
            assert (await scrape())["memory"] == {1073741824.0}
            node.answers[SIGNAL_SQL] = signal_answer({"1": 560, "2": 34}, generation="2")
            assert (await scrape())["memory"] == {2147483648.0}
            # read at the first scrape and at each of the three signals (a node's row carries
            # its configuration generation), never at the scrapes before a signal
            assert node.queries.count(processes.SQL) == 4
            assert node.queries.count(certificates.SQL) == 4
            assert node.queries.count(config.SQL) == 4
        finally:
            scraper.close()


def recorded_rows(collector: str, case: str = "ndbsim-8.4-healthy") -> list[dict]:
    return json.loads((FIXTURES / collector / f"{case}.json").read_text())["rows"]


@pytest.mark.parametrize(
    ("histograms", "counts"),
    [
        (pgman_latency.COLLECTOR, ("page_reads", "page_writes", "log_waits")),
        (tc_latency.COLLECTOR, ("transactions", "key_ops", "scans")),
    ],
)
def test_latency_histograms_are_read_at_every_scrape_once_they_count(histograms, counts):
    """Counting histograms change with every operation: read at every scrape. Before the first
    count (no disk data page read, no transaction since the data nodes started) they follow
    the node and DDL signals and the maximum age."""
    clock = Clock()
    refresh = refresher(clock)
    signals = parse_signals(signal_rows())
    busy = recorded_rows(histograms.name)
    assert any(row[column] for row in busy for column in counts)
    refresh.record_read(histograms, signals, busy)
    assert is_due(refresh, histograms, signals)
    keys = ("node_id", "comm_node_id", "upper_bound")
    idle = [{k: v if k in keys else 0 for k, v in row.items()} for row in busy]
    refresh.record_read(histograms, signals, idle)
    assert not is_due(refresh, histograms, signals)
    assert is_due(
        refresh, histograms, parse_signals(signal_rows(tables=("41", "2026-11-23 10:00:00")))
    )
    clock.now += 120
    assert is_due(refresh, histograms, signals)


def test_the_links_signal_reads_one_data_node_s_links_and_one_more_row():
    """The first read asks for the most a node can report; the next ones for the rows of the
    first reporting node and one more, so that a node added to the configuration shows. Rows
    of a second reporting node are no part of the signal."""
    refresh = refresher(Clock())
    assert refresh.links_limit([inventory.COLLECTOR]) is None
    assert refresh.links_limit([processes.COLLECTOR]) == LINKS_LIMIT
    assert "ndb$transporter_details" in links_sql(LINKS_LIMIT, details=True) != LINKS_SQL
    first = refresh.observe(signals_of())
    assert refresh.links_limit([certificates.COLLECTOR]) == len(links()) + 1
    next_node = {"node_id": 2, "remote_node_id": 1, "connection_status": 0, "connect_count": 1}
    assert signals_of(links_rows=[*links(), next_node]).get("links") == first.get("links")
    added = {"node_id": 1, "remote_node_id": 52, "connection_status": 2, "connect_count": 0}
    assert signals_of(links_rows=[*links(), added]).get("links") != first.get("links")


async def test_a_scrape_within_the_reuse_age_is_answered_with_the_last(node, target):
    """--exporter.scrape-reuse-age: the second server of an HA pair, scraping within the age,
    gets the first one's scrape and reads nothing; past the age, or another collect[]
    selection, reads again."""
    statement = "SELECT node_id FROM ndbinfo.nodes /* fast */"
    fast = gauge_collector("fast", statement)
    scraper = make_scraper([fast], reuse_age=0.5)
    try:
        first = await scraper.scrape(target, timeout=5)
        second = await scraper.scrape(target, timeout=5)
        assert second is first
        assert node.queries.count(statement) == 1
        await scraper.scrape(target, timeout=5, only=frozenset({"fast"}))
        assert node.queries.count(statement) == 2
        await asyncio.sleep(0.6)
        third = await scraper.scrape(target, timeout=5)
        assert third is not first
        assert node.queries.count(statement) == 3
    finally:
        scraper.close()
