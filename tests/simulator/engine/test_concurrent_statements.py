"""Statements of different connections run beside each other: a one-row statement does not
wait for another statement's read, nor for the write of a table it does not read; a statement
waits for the writes of the tables it reads; statements that filter the server tables for
their account each see their own rows."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pymysql
import pytest
from ndbsim.engine import model_tables
from ndbsim.engine.table_writes import TableWrites

from tests.support.sqlnode_helpers import PASSWORD, USER, RunningSqlNode, start_sql_node

DATA_NODES = 4
# bounds, not timings: what a statement that never waits takes, many times over
BOUND_SECONDS = 60
NODES_SQL = "SELECT node_id, status FROM ndbinfo.nodes"


@pytest.fixture
def node() -> Iterator[RunningSqlNode]:
    running, stop = start_sql_node("8.4", data_nodes=DATA_NODES)
    yield running
    stop()


def _connect(node: RunningSqlNode, user: str = USER, password: str = PASSWORD):
    return pymysql.connect(
        host="127.0.0.1",
        port=node.port,
        user=user,
        password=password,
        read_timeout=BOUND_SECONDS,
    )


def _rows(node: RunningSqlNode, sql: str, user: str = USER, password: str = PASSWORD) -> list:
    connection = _connect(node, user, password)
    try:
        with connection.cursor() as cursor:
            cursor.execute(sql)
            return list(cursor.fetchall())
    finally:
        connection.close()


class _Gate:
    """Holds the first call of a wrapped function whose arguments mention ``marker`` until
    opened."""

    def __init__(self, marker: str) -> None:
        self.marker = marker
        self.entered = threading.Event()
        self.opened = threading.Event()

    def wrap(self, function):
        def held(*args, **kwargs):
            result = function(*args, **kwargs)
            if self.marker in repr(args) and not self.entered.is_set():
                self.entered.set()
                assert self.opened.wait(BOUND_SECONDS)
            return result

        return held


def test_a_one_row_statement_completes_while_another_read_is_open(node, monkeypatch):
    gate = _Gate("ndb$table_fragments")
    monkeypatch.setattr(node.engine, "meter_reads", gate.wrap(node.engine.meter_reads))
    with ThreadPoolExecutor(1) as pool:
        try:
            big = pool.submit(_rows, node, "SELECT count(*) FROM ndbinfo.table_fragments")
            assert gate.entered.wait(BOUND_SECONDS)  # its read is open, in its transaction
            assert len(_rows(node, NODES_SQL)) == DATA_NODES
            assert len(_rows(node, "SELECT * FROM ndbinfo.backup_id")) == 1
            assert not big.done()
        finally:
            gate.opened.set()
        assert big.result(BOUND_SECONDS)[0][0] > 0


def test_a_statement_waits_for_the_write_of_a_table_it_reads_only(node, monkeypatch):
    stopped = sorted(node.cluster.nodes)[1]
    sql = "SELECT count(*) FROM ndbinfo.table_fragments WHERE num_dead_replicas > 0"
    assert _rows(node, sql) == [(0,)]
    node.cluster.stop_node(stopped)  # the next read of table_fragments rewrites it
    gate = _Gate("ndb$table_fragments")
    monkeypatch.setattr(model_tables, "_execute", gate.wrap(model_tables._execute))
    with ThreadPoolExecutor(2) as pool:
        try:
            writing = pool.submit(_rows, node, sql)
            assert gate.entered.wait(BOUND_SECONDS)  # its write is applied, not committed
            reading = pool.submit(_rows, node, sql)
            assert sorted(dict(_rows(node, NODES_SQL))) == sorted(
                set(node.cluster.nodes) - {stopped}
            )
            assert not writing.done() and not reading.done()
        finally:
            gate.opened.set()
        crashed = writing.result(BOUND_SECONDS)
        assert crashed[0][0] > 0
        assert reading.result(BOUND_SECONDS) == crashed


def test_concurrent_statements_each_see_the_rows_of_their_account(node):
    admin = _connect(node)
    with admin.cursor() as cursor:
        for user, grant in (("reader", "SELECT ON ndbinfo.*"), ("plain", "USAGE ON *.*")):
            cursor.execute(f"CREATE USER '{user}'@'%' IDENTIFIED BY 'pw'")
            cursor.execute(f"GRANT {grant} TO '{user}'@'%'")
    admin.close()
    sql = "SELECT TABLE_SCHEMA, TABLE_NAME FROM information_schema.TABLES ORDER BY 1, 2"
    alone = {user: _rows(node, sql, user, "pw") for user in ("reader", "plain")}
    assert any(row[0] == "ndbinfo" for row in alone["reader"])
    assert not any(row[0] == "ndbinfo" for row in alone["plain"])

    def repeated(user: str) -> list:
        return [_rows(node, sql, user, "pw") for _ in range(10)]

    with ThreadPoolExecutor(4) as pool:
        runs = {u: pool.submit(repeated, u) for u in ("reader", "plain", "reader", "plain")}
        for user, run in runs.items():
            assert run.result(BOUND_SECONDS) == [alone[user]] * 10


def test_writes_of_a_table_apply_in_the_order_they_were_planned():
    writes = TableWrites()
    applied: list[str] = []
    first = writes.plan("t", lambda db: applied.append("first"))
    second = writes.plan("t", lambda db: applied.append("second"))
    other = writes.plan("u", lambda db: applied.append("other"))
    waiting = writes.planned(["t"])
    db = _Transactions()
    with ThreadPoolExecutor(1) as pool:
        later = pool.submit(writes.run, [second], db)
        writes.run([other], db)  # another table's write does not wait
        assert applied == ["other"] and not later.done()
        writes.run([first], db)
        later.result(BOUND_SECONDS)
    writes.wait(waiting)
    assert applied == ["other", "first", "second"]
    assert db.statements.count("COMMIT") == 3


def test_a_failed_write_gives_up_the_rest_of_its_plan():
    writes = TableWrites()

    def fail(db) -> None:
        raise RuntimeError("full")

    planned = [writes.plan("t", fail), writes.plan("u", lambda db: None)]
    db = _Transactions()
    with pytest.raises(RuntimeError):
        writes.run(planned, db)
    writes.wait(writes.planned(None))  # nobody waits for the writes given up
    assert db.statements == ["BEGIN TRANSACTION", "ROLLBACK"]


class _Transactions:
    def __init__(self) -> None:
        self.statements: list[str] = []

    def execute(self, sql: str) -> None:
        self.statements.append(sql)
