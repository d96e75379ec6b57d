"""ndbsim's replication statements and tables have, on every version, the columns mysqld has
(simulator/data/mysqld/replication.json, with the manual page each list comes from), and the
forms a version lacks fail as mysqld fails them. On every MySQL NDB release: a RonDB release
answers as the MySQL NDB release it is built on."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pymysql
import pytest
from ndb_harness import running_ndbsim
from ndbsim import versions
from ndbsim.protocol import status

from tests.support.sqlnode_helpers import start_sql_node

pytestmark = pytest.mark.integration

REFERENCE = json.loads(
    (Path(__file__).parents[3] / "simulator" / "data" / "mysqld" / "replication.json").read_text()
)


def _server(series: str) -> tuple[int, ...]:
    text = versions.parse_version(series).version_string.split("-")[0]
    return tuple(int(p) for p in text.split("."))


def expected(kind: str, name: str, server: tuple[int, ...]) -> list | None:
    for entry in REFERENCE[kind][name]:
        since = tuple(int(p) for p in entry["since"].split("."))
        until = entry["until"] and tuple(int(p) for p in entry["until"].split("."))
        if since <= server and (not until or server < until):
            return entry["columns"]
    return None


def test_every_entry_names_its_source():
    for kind in ("statements", "tables"):
        for name, entries in REFERENCE[kind].items():
            assert entries, name
            for entry in entries:
                assert entry["source"] and entry["columns"], name


@pytest.fixture(scope="module", params=versions.MYSQL_NDB)
def pair(request):
    # columns and forms do not depend on the cluster's size: the smallest pair starts fastest
    with running_ndbsim(
        "--data-nodes", "2", "--tables", "4", replica=True, speed=5, ndb_version=request.param
    ) as sim:
        yield request.param, sim


def _run(sim, port: int, sql: str):
    conn = pymysql.connect(host=sim.host, port=port, user=sim.user, password=sim.password)
    try:
        with conn.cursor() as cur:
            cur.execute(sql)
            return [d[0] for d in cur.description or ()], list(cur.fetchall())
    finally:
        conn.close()


STATEMENTS = {
    "SHOW SLAVE STATUS": "replica",
    "SHOW REPLICA STATUS": "replica",
    "SHOW BINARY LOGS": "source",
    "SHOW MASTER STATUS": "source",
    "SHOW BINARY LOG STATUS": "source",
    "SHOW ENGINE NDBCLUSTER STATUS": "source",
    "SHOW SLAVE HOSTS": "source",
    "SHOW REPLICAS": "source",
}


@pytest.mark.parametrize("statement", STATEMENTS)
def test_statement_columns(pair, statement):
    series, sim = pair
    port = sim.replica_port if STATEMENTS[statement] == "replica" else sim.port
    columns = expected("statements", statement, _server(series))
    if columns is None:
        with pytest.raises(pymysql.err.ProgrammingError) as error:
            _run(sim, port, statement)
        assert error.value.args[0] == 1064
        return
    names, rows = _run(sim, port, statement)
    assert names == columns
    assert len(rows) >= 1


@pytest.mark.parametrize("table", REFERENCE["tables"])
def test_table_columns(pair, table):
    series, sim = pair
    port = sim.port if table.endswith("ndb_binlog_index") else sim.replica_port
    names, rows = _run(sim, port, f"SELECT * FROM {table}")
    assert names == [name for name, _ in expected("tables", table, _server(series))]
    assert len(rows) >= 1


@pytest.fixture(scope="module", params=versions.MYSQL_NDB)
def plain(request):
    """A SQL node of an ndbsim without --replica: it writes no binary log and applies nothing."""
    node, stop = start_sql_node(request.param, data_nodes=2, tables=4)
    yield request.param, node
    stop()


@pytest.mark.parametrize("table", REFERENCE["tables"])
def test_a_sql_node_outside_replication_has_the_tables_empty(plain, table):
    """A mysqld built with NDB has mysql.ndb_binlog_index (created with the mysql schema),
    mysql.ndb_apply_status (once connected to the cluster) and the performance_schema
    replication tables: on a SQL node with no part in replication they exist, with the
    columns of the version, and are empty."""
    series, node = plain
    columns = [name for name, _ in expected("tables", table, _server(series))]
    assert node.query(f"SELECT * FROM {table}", database=None) == (columns, [])
    database, name = table.split(".")
    _, listed = node.query(f"SHOW TABLES FROM {database} LIKE '{name}'", database=None)
    assert listed == [(name,)]
    _, fields = node.query(f"SHOW COLUMNS FROM {name} FROM {database}", database=None)
    assert [field[0] for field in fields] == columns


def test_the_source_lists_its_replica(pair):
    """Server_Id and UUID of the replica's applier, Host its report-host ('' unset), and only
    for an account with REPLICATION SLAVE (sql/rpl_source.cc show_replicas)."""
    series, sim = pair
    statement = "SHOW SLAVE HOSTS" if _server(series) < (8, 0, 22) else "SHOW REPLICAS"
    names, rows = _run(sim, sim.port, statement)
    _, ((replica_id, replica_uuid),) = _run(
        sim, sim.replica_port, "SELECT @@server_id, @@server_uuid"
    )
    assert rows == [(replica_id, "", sim.replica_port, 1, replica_uuid)]
    assert replica_id != 1
    assert _run(sim, sim.replica_port, statement)[1] == []
    _run(sim, sim.port, "CREATE USER IF NOT EXISTS mon IDENTIFIED BY 'pw'")
    _run(sim, sim.port, "GRANT REPLICATION CLIENT ON *.* TO mon")
    conn = pymysql.connect(host=sim.host, port=sim.port, user="mon", password="pw")
    with pytest.raises(pymysql.err.OperationalError) as error, conn.cursor() as cur:
        cur.execute(statement)
    conn.close()
    assert error.value.args == (
        1227,
        "Access denied; you need (at least one of) the REPLICATION SLAVE privilege(s) for this "
        "operation",
    )


def test_a_one_way_replica_replicates_no_epoch_of_its_own(pair):
    """Ndb_replica_max_replicated_epoch rises only for ndb_apply_status rows with a local
    server id (circular replication); on a one-way replica it and the last stable epoch stay 0
    while the applier applies epochs."""
    series, sim = pair
    _, status_rows = _run(
        sim,
        sim.replica_port,
        "SHOW GLOBAL STATUS WHERE Variable_name IN ('Ndb_slave_max_replicated_epoch', "
        "'Ndb_replica_max_replicated_epoch', 'Ndb_conflict_last_stable_epoch')",
    )
    assert status_rows and {value for _, value in status_rows} == {"0"}
    _, applied = _run(sim, sim.replica_port, "SELECT server_id, epoch FROM mysql.ndb_apply_status")
    assert applied and applied[0][0] == 1 and applied[0][1] > 0


def test_syntax_errors_name_the_unknown_words(pair):
    series, sim = pair
    server = _server(series)
    if (8, 0, 22) <= server < (8, 4):
        pytest.skip("8.0.22 to 8.3 know both statements")
    statement = "SHOW REPLICAS" if server < (8, 0, 22) else "SHOW SLAVE HOSTS"
    with pytest.raises(pymysql.err.ProgrammingError) as error:
        _run(sim, sim.port, statement)
    assert error.value.args[1] == (
        "You have an error in your SQL syntax; check the manual that corresponds to your MySQL "
        f"server version for the right syntax to use near '{statement[5:]}' at line 1"
    )


def test_messages_use_the_words_of_the_version(pair):
    """A broken connection: the I/O thread reconnects (rpl_replica.cc try_to_reconnect,
    connect_to_master with reconnect) in the stage and with the message of its version."""
    series, sim = pair
    sim.fault("replica-io-disconnect")
    try:
        statement = "SHOW SLAVE STATUS" if _server(series) < (8, 0, 22) else "SHOW REPLICA STATUS"
        names, rows = _run(sim, sim.replica_port, statement)
        row = dict(zip(names, rows[0], strict=True))
        io_error = row["Last_IO_Error"]
        if _server(series) >= (8, 0, 26):
            assert io_error.startswith("Error reconnecting to source 'repl@")
            assert row[names[0]] == "Reconnecting after a failed source event read"
        else:
            assert io_error.startswith("error reconnecting to master 'repl@")
            assert row[names[0]] == "Reconnecting after a failed master event read"
    finally:
        sim.reset()


def _variables(sim, pattern: str) -> dict[str, str]:
    return dict(_run(sim, sim.replica_port, f"SHOW GLOBAL VARIABLES LIKE '{pattern}'")[1])


def test_parallel_workers_default_and_alias(pair):
    """replica_parallel_workers defaults to 4 from MySQL 8.0.27 (0 before); where both names
    exist slave_parallel_workers is its deprecated alias: one value under either name."""
    series, sim = pair
    server = _server(series)
    workers = _variables(sim, "%parallel_workers")
    if server < (8, 0, 26):
        assert workers == {"slave_parallel_workers": "0"}
        return
    assert workers["replica_parallel_workers"] == "4"
    if "slave_parallel_workers" not in workers:  # removed in 8.4
        assert server >= (8, 4)
        return
    assert workers["slave_parallel_workers"] == "4"
    _run(sim, sim.replica_port, "SET GLOBAL slave_parallel_workers = 8")
    try:
        assert set(_variables(sim, "%parallel_workers").values()) == {"8"}
        _, rows = _run(sim, sim.replica_port, "SELECT @@replica_parallel_workers")
        assert rows == [(8,)]
    finally:
        _run(sim, sim.replica_port, "SET GLOBAL replica_parallel_workers = 4")


def test_the_applier_threads_follow_the_version(pair):
    """From NDB 8.0.33 the applier runs the default four workers (a row each in
    replication_applier_status_by_worker, ids from 1); 7.x applies with the SQL thread (one
    row, id 0). Thread names and the SQL thread's command follow the version."""
    series, sim = pair
    server = _server(series)
    _, workers = _run(
        sim, sim.replica_port,
        "SELECT WORKER_ID, SERVICE_STATE FROM "
        "performance_schema.replication_applier_status_by_worker ORDER BY WORKER_ID",
    )  # fmt: skip
    expected = [1, 2, 3, 4] if server >= (8, 0, 33) else [0]
    assert workers == [(worker, "ON") for worker in expected]
    _, threads = _run(sim, sim.replica_port, "SHOW PROCESSLIST")
    system = [t for t in threads if t[1] == "system user"]
    commands = [t[4] for t in system]
    sql = "Query" if server >= (8, 0) else "Connect"
    assert commands == ["Connect", sql] + ["Connect"] * (len(expected) if expected[0] else 0)
    prefix = "replica" if server >= (8, 0, 26) else "slave"
    _, names = _run(
        sim, sim.replica_port,
        f"SELECT NAME FROM performance_schema.threads WHERE NAME LIKE 'thread/sql/{prefix}%'",
    )  # fmt: skip
    assert {n for (n,) in names} >= {f"thread/sql/{prefix}_io", f"thread/sql/{prefix}_sql"}


def _fact(name: str, server: tuple[int, ...]):
    for entry in REFERENCE["facts"][name]:
        since = tuple(int(p) for p in entry["since"].split("."))
        until = "until" in entry and tuple(int(p) for p in entry["until"].split("."))
        if since <= server and (not until or server < until):
            return entry["value"]
    raise AssertionError(f"no {name} for {server}")


def test_every_fact_names_its_source_and_covers_every_version():
    for name, entries in REFERENCE["facts"].items():
        if name.startswith("_"):
            continue
        for entry in entries:
            assert entry["source"] and "value" in entry, name
        for series in versions.MYSQL_NDB:
            _fact(name, _server(series))


def test_retry_count_and_incident_text_follow_the_version(pair):
    """Source_Retry_Count (86400 until 8.4, then 10) in the column and in the 2003 text, and the
    1590 text of a LOST_EVENTS incident with the server's words and spelling."""
    series, sim = pair
    server = _server(series)
    retries = _fact("retry_count", server)
    assert retries == (10 if server >= (8, 4) else 86400)
    statement = "SHOW SLAVE STATUS" if server < (8, 0, 22) else "SHOW REPLICA STATUS"
    count_column = "Master_Retry_Count" if server < (8, 0, 22) else "Source_Retry_Count"
    sim.fault("replica-io-disconnect")
    try:
        names, rows = _run(sim, sim.replica_port, statement)
        row = dict(zip(names, rows[0], strict=True))
        assert row[count_column] == retries
        if server >= (8, 0, 26):
            assert re.search(rf"This was attempt \d+/{retries},", row["Last_IO_Error"])
    finally:
        sim.reset()
    sim.fault("injector-behind", gap=True)
    try:
        names, rows = _run(sim, sim.replica_port, statement)
        row = dict(zip(names, rows[0], strict=True))
        words = "source" if server >= (8, 0, 26) else "master"
        assert row["Last_SQL_Errno"] == 1590
        assert row["Last_SQL_Error"] == (
            f"The incident LOST_EVENTS occured on the {words}. Message: cluster disconnect"
        )
    finally:
        sim.reset()


def test_max_ins_conflict_counters_from_ndb_8_0_30():
    def names(ndb: tuple[int, int, int], server: str) -> set[str]:
        version = versions.NdbVersion(server, ndb, f"{server}-cluster", "", 0)
        return {v.name for v in status.ndb_variables(version)}

    added = {"Ndb_conflict_fn_max_ins", "Ndb_conflict_fn_max_del_win_ins"}
    assert not added & names((8, 0, 29), "8.0.29")
    assert added <= names((8, 0, 30), "8.0.30")
    assert not added & names((7, 6, 34), "5.7.44")
    assert "Ndb_conflict_fn_max" in names((8, 0, 29), "8.0.29")
