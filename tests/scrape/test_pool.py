"""The connection pool: reuse, the limit across credential sets, abandoned connections."""

from __future__ import annotations

import asyncio

import pytest
from mysql.connector import errors
from ndbinfo_exporter.scrape.pool import ConnectionPool, Pools, PoolsBusy
from ndbinfo_exporter.targets import TargetConfig

from tests.support.fake_sql_node import Answer, FakeSqlNode, RunningFakeSqlNode

PASSWORD = "pool-pw-never-shown"
SLOW = "SELECT 'slow'"
FAST = "SELECT 'fast'"


def query(sql):
    def job(connection):
        cursor = connection.raw.cursor()
        try:
            cursor.execute(sql)
            return cursor.fetchall()
        finally:
            cursor.close()

    return job


@pytest.fixture
def node():
    fake = FakeSqlNode(
        password=PASSWORD,
        answers={FAST: Answer(["x"], [("fast",)]), SLOW: Answer(["x"], [("slow",)], delay=30)},
    )
    with RunningFakeSqlNode(fake) as running:
        yield running


def target(node, user="exporter", module=None):
    return TargetConfig("127.0.0.1", node.port, user, PASSWORD, auth_module=module)


async def test_connections_are_reused(node):
    pool = ConnectionPool("n", max_connections=3, query_timeout=5)
    try:
        for _ in range(5):
            assert await pool.run(target(node), query(FAST), 5) == [("fast",)]
        assert node.max_open_connections == 1
        assert pool.open_connections == 1
    finally:
        pool.close()


async def test_statements_on_a_connection_share_one_cursor(node):
    """The connector's cursor() pings the server (a round trip) each time it makes one: a
    pooled connection makes one cursor, at its first statement, for all its statements."""
    pings = []

    def statements(connection):
        ping = connection.raw.cmd_ping
        connection.raw.cmd_ping = lambda: pings.append(1) or ping()
        try:
            return [connection.rows(FAST) for _ in range(3)]
        finally:
            del connection.raw.cmd_ping

    pool = ConnectionPool("n", max_connections=1, query_timeout=5)
    try:
        for _ in range(2):
            assert await pool.run(target(node), statements, 5) == [[{"x": "fast"}]] * 3
    finally:
        pool.close()
    assert len(pings) == 1


async def test_capabilities_detected_once_per_connection(node):
    pool = ConnectionPool("n", max_connections=1, query_timeout=5)
    try:
        infos = [await pool.run(target(node), lambda c: c.info, 5) for _ in range(3)]
    finally:
        pool.close()
    assert infos[0].ndb_version == (8, 4, 3)
    assert infos[0].server_id == node.server_id
    assert node.queries.count("SELECT @@version, @@server_id, @@ndbinfo_version") == 1


async def test_limit_holds_across_credential_sets(node):
    pool = ConnectionPool("n", max_connections=2, query_timeout=5)
    node.answers[FAST].delay = 0.05
    try:
        await asyncio.gather(
            *(pool.run(target(node, f"u{i % 5}", f"m{i % 5}"), query(FAST), 30) for i in range(30))
        )
    finally:
        pool.close()
    assert node.max_open_connections == 2


async def test_timed_out_connection_is_discarded(node):
    pool = ConnectionPool("n", max_connections=1, query_timeout=5)
    try:
        with pytest.raises(TimeoutError):
            await pool.run(target(node), query(SLOW), 1)
        # The only slot is free again once the abandoned query's connection is closed, and the
        # next job gets a new connection.
        assert await pool.run(target(node), query(FAST), 10) == [("fast",)]
        assert pool.open_connections == 1
        assert node.queries.count("SET SESSION max_execution_time = 5000") == 2
    finally:
        pool.close()


async def test_wrong_password_is_not_in_the_error(node):
    pool = ConnectionPool("n", max_connections=1, query_timeout=5)
    wrong = TargetConfig("127.0.0.1", node.port, "exporter", "wrong-pw-Q1")
    try:
        with pytest.raises(Exception) as error:
            await pool.run(wrong, query(FAST), 5)
    finally:
        pool.close()
    assert "Access denied" in str(error.value)
    assert "wrong-pw-Q1" not in str(error.value)
    assert pool.open_connections == 0


async def test_run_each_shares_the_jobs_among_the_connections(node):
    pool = ConnectionPool("n", max_connections=3, query_timeout=5)
    node.answers[FAST].delay = 0.02

    def failing(connection):
        raise ValueError("bad job")

    jobs = [query(FAST)] * 10 + [failing] + [query(FAST)] * 10
    try:
        results = await pool.run_each(target(node), jobs, 10)
    finally:
        pool.close()
    values = [value for value, _ in results]
    assert values[:10] == values[11:] == [[("fast",)]] * 10
    assert isinstance(values[10], ValueError)
    assert all(seconds > 0 for _, seconds in results)
    assert node.max_open_connections == 3


async def test_a_full_sql_node_is_read_on_the_connections_held(node):
    """mysqld at max_connections refuses new connections (1040): the jobs take turns on the
    connection the pool holds; a pool holding none gets the refusal."""
    pool = ConnectionPool("n", max_connections=3, query_timeout=5)
    empty = ConnectionPool("e", max_connections=3, query_timeout=5)
    node.answers[FAST].delay = 0.02
    try:
        assert await pool.run(target(node), query(FAST), 5) == [("fast",)]
        node.refuse_new_connections = True
        results = await pool.run_each(target(node), [query(FAST)] * 6, 10)
        assert [value for value, _ in results] == [[("fast",)]] * 6
        assert pool.open_connections == 1
        with pytest.raises(errors.DatabaseError) as refused:
            await empty.run(target(node), query(FAST), 5)
        assert refused.value.errno == 1040
        assert empty.open_connections == 0
    finally:
        pool.close()
        empty.close()


async def test_run_each_gives_up_on_a_slow_job_alone(node):
    pool = ConnectionPool("n", max_connections=2, query_timeout=5)
    try:
        results = await pool.run_each(target(node), [query(SLOW)] + [query(FAST)] * 5, 1)
        assert isinstance(results[0][0], TimeoutError)
        assert [value for value, _ in results[1:]] == [[("fast",)]] * 5
        # The abandoned query's connection is closed, not reused.
        assert await pool.run(target(node), query(FAST), 10) == [("fast",)]
        assert node.max_open_connections == 2
    finally:
        pool.close()
    assert node.queries.count(SLOW) == 1


def test_pools_keep_the_most_recently_used_and_bounded():
    pools = Pools(max_connections=2, query_timeout=5, limit=2)
    try:
        first, _ = pools.get("a:1")
        pools.get("b:1")
        assert pools.get("a:1") == (first, None)  # a is now the most recent
        _, evicted = pools.get("c:1")
        assert evicted == "b:1"
        assert len(pools) == 2
    finally:
        pools.close()


def test_pools_never_close_a_busy_pool():
    pools = Pools(max_connections=2, query_timeout=5, limit=1)
    try:
        busy, _ = pools.get("a:1")
        busy._active = 1
        with pytest.raises(PoolsBusy):
            pools.get("b:1")
        busy._active = 0
        assert pools.get("b:1")[1] == "a:1"
    finally:
        pools.close()


async def test_a_closed_pool_does_not_keep_connections(node):
    pool = ConnectionPool("n", max_connections=1, query_timeout=5)
    started = asyncio.Event()

    def job(connection):
        started.set()
        return query(FAST)(connection)

    task = asyncio.ensure_future(pool.run(target(node), job, 10))
    await started.wait()
    pool.close()
    await task
    assert pool.open_connections == 0
