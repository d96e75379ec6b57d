"""Deadlines of scrapes that share one collection, and of the liveness check."""

from __future__ import annotations

import asyncio

import pytest
from ndbinfo_exporter.scrape import pool as pool_module
from ndbinfo_exporter.targets import TargetConfig

from tests.support.fake_sql_node import Answer, FakeSqlNode, RunningFakeSqlNode
from tests.support.scraping import PASSWORD, gauge_collector, make_scraper, samples

SLOW = "SELECT node_id FROM ndbinfo.nodes /* slow */"


@pytest.fixture
def node():
    fake = FakeSqlNode(
        password=PASSWORD,
        answers={
            SLOW: Answer(["node_id"], [(1,)], delay=6),
            "SELECT 1": Answer(["1"], [(1,)]),
        },
    )
    with RunningFakeSqlNode(fake) as running:
        yield running


@pytest.fixture
def target(node):
    return TargetConfig(host="127.0.0.1", port=node.port, user="exporter", password=PASSWORD)


async def test_a_joining_scrape_keeps_its_own_shorter_deadline(target):
    scraper = make_scraper([gauge_collector("slow", SLOW)], query_timeout=8)
    try:
        long = asyncio.ensure_future(scraper.scrape(target, 8))
        await asyncio.sleep(0.5)  # the long scrape is in flight, its query hangs
        short = await scraper.scrape(target, 1)
        # The short scrape answered by its own deadline, while the one it joined still runs.
        assert not long.done()
        assert samples(short, "ndb_up") == {(): 0}
        assert "waiting for the scrape in flight" in (short.error or "")
        result = await long
        assert samples(result, "ndb_up") == {(): 1}
    finally:
        scraper.close()


async def test_a_joining_scrape_with_a_longer_deadline_shares_the_result(target):
    scraper = make_scraper([gauge_collector("fast", "SELECT 1", reads={})])
    try:
        first, second = await asyncio.gather(scraper.scrape(target, 5), scraper.scrape(target, 9))
        assert first is second
    finally:
        scraper.close()


async def test_liveness_check_bounded_by_the_query_timeout(target, monkeypatch):
    """The first statement on a connection (SELECT 1) gets the query timeout, not the
    whole scrape's."""
    given: list[float] = []
    run = pool_module.ConnectionPool.run

    async def spy(self, target, job, timeout):
        given.append(timeout)
        return await run(self, target, job, timeout)

    monkeypatch.setattr(pool_module.ConnectionPool, "run", spy)
    scraper = make_scraper([], query_timeout=2)
    try:
        await scraper.scrape(target, 30)
    finally:
        scraper.close()
    assert given == [2]
