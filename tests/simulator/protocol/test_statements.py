"""Statements drivers and monitoring tools send, answered as the simulated mysqld version would
(through the real mariadb client and mysql-connector)."""

from __future__ import annotations

import gc
import shutil
import subprocess
from collections.abc import Iterator

import mysql.connector
import pytest

from tests.simulator.protocol.statement_corpus import WHY
from tests.support.live_stack import wait_until
from tests.support.sqlnode_helpers import PASSWORD, USER, RunningSqlNode, start_sql_node

_mariadb_installed = pytest.mark.skipif(
    shutil.which("mariadb") is None, reason="mariadb client not installed (Debian mariadb-client)"
)


def needs_mariadb(test):
    """Runs the `mariadb` client: a process, so an integration test."""
    return pytest.mark.integration(_mariadb_installed(test))


@pytest.fixture(scope="module")
def sqlnode_80() -> Iterator[RunningSqlNode]:
    node, stop = start_sql_node("8.0")
    yield node
    stop()


@pytest.fixture
def nodes(sqlnode_754, sqlnode_80, sqlnode) -> dict[str, RunningSqlNode]:
    return {"7.5.4": sqlnode_754, "8.0": sqlnode_80, "8.4": sqlnode}


def cli(node: RunningSqlNode, *statements: str) -> subprocess.CompletedProcess:
    """The statements through one mariadb client session (batch output)."""
    command = ["mariadb", "--protocol=TCP", "-h127.0.0.1", f"-P{node.port}", f"-u{USER}"]
    command += [f"-p{PASSWORD}", "--batch", "-e", ";\n".join(statements)]
    return subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)


def session(node: RunningSqlNode, statements: list[str]) -> list[tuple[list[str], list] | int]:
    """Each statement's (columns, rows), or its MySQL error code, on one connection."""
    conn = node.connect()
    out: list = []
    try:
        cur = conn.cursor()
        for sql in statements:
            try:
                cur.execute(sql)
                rows = cur.fetchall() if cur.description else []
                out.append(([d[0] for d in cur.description or []], rows))
            except mysql.connector.Error as e:
                out.append(e.errno)
    finally:
        conn.close()
    return out


@needs_mariadb
@pytest.mark.parametrize("version", ["7.5.4", "8.0", "8.4"])
def test_why_list_through_mariadb(nodes, version):
    node = nodes[version]
    for sql in WHY:
        result = cli(node, sql)
        assert result.returncode == 0, (sql, result.stderr)


@needs_mariadb
def test_replica_statements_per_version(nodes):
    """SHOW SLAVE STATUS exists up to 8.3, SHOW REPLICA STATUS from 8.0.22; both empty here."""
    expect = {
        "7.5.4": {"SLAVE": True, "REPLICA": False, "MASTER": True, "BINARY LOG": False},
        "8.0": {"SLAVE": True, "REPLICA": True, "MASTER": True, "BINARY LOG": False},
        "8.4": {"SLAVE": False, "REPLICA": True, "MASTER": False, "BINARY LOG": True},
    }
    for version, answers in expect.items():
        for word, works in answers.items():
            statement = f"SHOW {word} STATUS"
            result = cli(nodes[version], statement)
            assert (result.returncode == 0) == works, (version, statement, result.stderr)
            if works:
                assert result.stdout == ""  # no rows: not a replica, no binary log
            else:
                assert "ERROR 1064 (42000)" in result.stderr


def test_session_and_global_variables(sqlnode):
    out = session(
        sqlnode,
        [
            "SET SESSION lock_wait_timeout=2",
            "SELECT @@lock_wait_timeout, @@session.lock_wait_timeout, @@global.lock_wait_timeout",
            "SET @@session.lock_wait_timeout=3, sql_mode='ANSI_QUOTES'",
            "SELECT @@lock_wait_timeout, @@sql_mode",
            "SELECT @@no_such_variable",
            "SET no_such_variable=1",
            "SET GLOBAL wait_timeout=100",
            "SELECT @@global.wait_timeout, @@session.wait_timeout",
            "SET GLOBAL wait_timeout=DEFAULT",
            "SELECT @@global.version_comment, @@innodb_version, @@version",
            "SET read_only=1",
            "SELECT @@session.hostname",
        ],
    )
    assert out[1][1] == [(2, 2, 31536000)]
    assert out[3][1] == [(3, "ANSI_QUOTES")]
    assert out[4] == 1193 and out[5] == 1193
    assert out[7][1] == [(100, 28800)]
    assert out[9][1][0][1] == "8.4.3"
    assert out[10] == 1229
    assert out[11] == 1238


def test_connector_j_connect_query_per_version(nodes):
    """The variables Connector/J reads at connect: query cache ones where the server has them,
    tx_isolation before 5.7.20, transaction_isolation from it."""
    common = (
        "@@session.auto_increment_increment, @@character_set_client, "
        "@@character_set_connection, @@character_set_results, @@character_set_server, "
        "@@collation_server, @@collation_connection, @@init_connect, @@interactive_timeout, "
        "@@license, @@lower_case_table_names, @@max_allowed_packet, @@net_write_timeout, "
        "@@performance_schema, @@sql_mode, @@system_time_zone, @@time_zone, @@wait_timeout"
    )
    old = session(nodes["7.5.4"], [f"SELECT {common}, @@query_cache_size, @@query_cache_type, "
                                   "@@tx_isolation", "SELECT @@transaction_isolation"])  # fmt: skip
    assert old[0][1][0][-3:] == (1048576, "OFF", "REPEATABLE-READ")
    assert old[1] == 1193
    for version in ("8.0", "8.4"):
        new = session(nodes[version], [f"SELECT {common}, @@transaction_isolation",
                                        "SELECT @@query_cache_size"])  # fmt: skip
        assert new[0][1][0][-1] == "REPEATABLE-READ"
        assert new[1] == 1193


def test_show_variables_and_status_are_a_whole_mysqld(nodes):
    for version, (low_vars, low_status) in {"7.5.4": (500, 330), "8.4": (600, 450)}.items():
        out = session(
            nodes[version],
            [
                "SHOW GLOBAL VARIABLES",
                "SHOW GLOBAL STATUS",
                "SHOW SESSION VARIABLES LIKE 'ndb%'",
                "SHOW GLOBAL VARIABLES WHERE Variable_name = 'innodb_version'",
            ],
        )
        variables = dict(out[0][1])
        status = dict(out[1][1])
        non_ndb = [n for n in status if not n.startswith("Ndb")]
        assert len(variables) >= low_vars
        assert len(non_ndb) >= low_status
        for name in ("Uptime", "Threads_connected", "Questions", "Com_select", "Connections",
                     "Aborted_connects", "Bytes_received", "Innodb_buffer_pool_pages_total"):  # fmt: skip
            assert name in status, name
        assert ("Qcache_hits" in status) == (version == "7.5.4")
        names = [r[0] for r in out[2][1]]
        assert "ndb_batch_size" in names and "ndbinfo_version" in names
        assert out[3][1] == [("innodb_version", version_of(nodes[version]))]


def version_of(node: RunningSqlNode) -> str:
    return node.query("SELECT @@version", None)[1][0][0].split("-")[0]


def test_ndb_engine_status_from_the_model(sqlnode):
    cols, rows = sqlnode.query("SHOW ENGINE NDBCLUSTER STATUS", None)
    assert cols == ["Type", "Name", "Status"]
    names = [r[1] for r in rows]
    assert names == [
        "connection", "NdbTransaction", "NdbOperation", "NdbIndexScanOperation",
        "NdbIndexOperation", "NdbRecAttr", "NdbApiSignal", "NdbLabel", "NdbBranch",
        "NdbSubroutine", "NdbCall", "NdbBlob", "NdbReceiver", "binlog",
    ]  # fmt: skip
    assert all(r[0] == "ndbcluster" for r in rows)
    connection = dict(kv.split("=") for kv in rows[0][2].split(", "))
    status = sqlnode.cluster.global_status()
    assert int(connection["number_of_ready_data_nodes"]) == status["Ndb_number_of_ready_data_nodes"]
    assert int(connection["cluster_node_id"]) == status["Ndb_cluster_node_id"]
    assert rows[1][2].startswith("created=") and "sizeof=" in rows[1][2]


def test_sql_prepared_statements(sqlnode):
    out = session(
        sqlnode,
        [
            "PREPARE s FROM 'SELECT ? + 1, ?'",
            "SET @a = 41, @b = 'x'",
            "EXECUTE s USING @a, @b",
            "EXECUTE s USING @a",
            "DEALLOCATE PREPARE s",
            "EXECUTE s USING @a, @b",
            "DROP PREPARE s",
            "PREPARE t FROM 'SELEC 1'",
            "SET @q = 'SELECT node_id FROM ndbinfo.nodes WHERE node_id = ?'",
            "PREPARE t FROM @q",
            "SET @n = 1",
            "EXECUTE t USING @n",
        ],
    )
    assert out[2][1] == [(42, "x")]
    assert out[3] == 1210
    assert out[5] == 1243 and out[6] == 1243
    assert out[7] == 1064
    assert out[11][1] == [(1,)]


def test_diagnostics_after_an_error(sqlnode):
    out = session(
        sqlnode,
        [
            "SELECT nosuchfunction(1)",
            "SHOW WARNINGS",
            "SHOW ERRORS",
            "SHOW COUNT(*) ERRORS",
            "SELECT @@warning_count",
            "SELECT 1",
            "SHOW WARNINGS",
        ],
    )
    assert out[0] == 1305
    assert out[1][1] == [("Error", 1305, "FUNCTION ndbinfo.nosuchfunction does not exist")]
    assert out[2][1] == out[1][1]
    assert out[3][1] == [(1,)]
    assert out[4][1] == [(1,)]
    assert out[6][1] == []


def test_mysql_functions(sqlnode):
    cols, rows = sqlnode.query(
        "SELECT CONV('ff', 16, 10), CONV(255, 10, 2), UNIX_TIMESTAMP('2024-01-01 00:00:00'), "
        "FROM_UNIXTIME(86400), FROM_UNIXTIME(86400, '%Y-%m-%d %H:%i'), IFNULL(NULL, 3), "
        "CONCAT_WS(',', 'a', NULL, 'b'), TIMESTAMPDIFF(SECOND, '2024-01-01', '2024-01-02'), "
        "SEC_TO_TIME(3661), TIME_TO_SEC('01:01:01'), SUBSTRING_INDEX('a.b.c', '.', 2), "
        "INET_NTOA(3232235777), UPPER(12), DATE_FORMAT('2024-03-04', '%d/%m/%Y')",
        None,
    )
    assert str(rows[0][3]) == "1970-01-02 00:00:00"
    assert rows[0][:3] == ("255", "11111111", 1704067200)
    assert rows[0][4:] == ("1970-01-02 00:00", 3, "a,b", 86400, "01:01:01", 3661, "a.b",
                           "192.168.1.1", "12", "04/03/2024")  # fmt: skip


def test_schemas_tools_read(nodes):
    node = nodes["8.4"]
    out = session(
        node,
        [
            "SELECT ID, USER, COMMAND, INFO FROM information_schema.PROCESSLIST",
            "SHOW FULL PROCESSLIST",
            "SELECT NAME, TYPE FROM performance_schema.threads WHERE TYPE = 'FOREGROUND'",
            "SELECT * FROM performance_schema.ndb_sync_pending_objects",
            "SELECT * FROM performance_schema.ndb_sync_excluded_objects",
            "SELECT VARIABLE_VALUE FROM performance_schema.global_status "
            "WHERE VARIABLE_NAME = 'Uptime'",
            "SELECT User, Host FROM mysql.user",
            "SELECT COUNT(*) FROM mysql.time_zone_name",
            "SHOW DATABASES",
            "SELECT COUNT(*) FROM information_schema.FILES",
        ],
    )
    assert any(r[2] == "Query" and "PROCESSLIST" in r[3] for r in out[0][1])
    assert any(r[1] == USER for r in out[1][1])
    assert out[2][1] and out[3][1] == [] and out[4][1] == []
    assert int(out[5][1][0][0]) >= 0
    assert (USER, "%") in out[6][1]
    assert out[7][1] == [(0,)]
    assert [r[0] for r in out[8][1]] == [
        "information_schema", "mysql", "ndbinfo", "performance_schema",
    ]  # fmt: skip
    assert out[9][1] == [(2,)]  # the undo log file and the data file of the dictionary
    old = session(nodes["7.5.4"], ["SELECT * FROM performance_schema.ndb_sync_pending_objects"])
    assert old == [1146]


def test_files_has_every_column_of_mysql_80(sqlnode):
    cols, rows = sqlnode.query(
        "SELECT * FROM information_schema.FILES WHERE ENGINE = 'ndbcluster' ORDER BY FILE_ID",
        None,
    )
    assert len(cols) == 38
    assert {"LOGFILE_GROUP_NAME", "LOGFILE_GROUP_NUMBER", "EXTRA", "STATUS"} <= set(cols)
    kinds = {r[cols.index("FILE_TYPE")] for r in rows}
    assert kinds == {"UNDO LOG", "DATAFILE"}
    _, files = sqlnode.query("SELECT name, parent_name FROM ndbinfo.files WHERE type = 'Data file'")
    assert files and files[0][1] == "ts_1"


def test_a_closed_connection_leaves_the_process_list(sqlnode):
    """At once, as on mysqld: not when Python's collector frees the session."""
    gc.disable()
    try:
        closed = sqlnode.connect()
        cur = closed.cursor()
        cur.execute("SELECT CONNECTION_ID()")
        closed_id = cur.fetchall()[0][0]
        closed.close()

        def listed() -> set[int]:
            (_, rows), *_ = session(sqlnode, ["SELECT ID FROM information_schema.PROCESSLIST"])
            return {row[0] for row in rows}

        wait_until(lambda: closed_id not in listed(), 5.0, f"{closed_id} off the process list")
    finally:
        gc.enable()


def test_kill_and_no_op_statements(sqlnode):
    other = sqlnode.connect()
    try:
        cur = other.cursor()
        cur.execute("SELECT CONNECTION_ID()")
        other_id = cur.fetchall()[0][0]
        out = session(
            sqlnode,
            [
                "KILL 4294967",
                f"KILL QUERY {other_id}",
                f"KILL {other_id}",
                "KILL QUERY CONNECTION_ID()",
                "SAVEPOINT a",
                "LOCK TABLES ndbinfo.nodes READ",
                "UNLOCK TABLES",
                "FLUSH STATUS",
                "CALL ndbinfo.p()",
            ],
        )
        assert out[0] == 1094
        assert out[1] == ([], []) and out[2] == ([], [])
        assert out[3] == 1317
        assert out[4:7] == [([], [])] * 3
        assert out[7] == 1227
        assert out[8] == 1305
        with pytest.raises(mysql.connector.Error):
            cur.execute("SELECT 1")
            cur.fetchall()
    finally:
        other.close()


def test_show_index_table_status_grants(sqlnode):
    out = session(
        sqlnode,
        [
            "SHOW INDEX FROM ndbinfo.ndb$pools",
            "SHOW TABLE STATUS FROM ndbinfo LIKE 'nodes'",
            "SHOW GRANTS FOR CURRENT_USER()",
            "SHOW GRANTS FOR 'root'@'localhost'",
            "EXPLAIN SELECT node_id FROM ndbinfo.nodes",
            "EXPLAIN SELECT nope FROM ndbinfo.nodes",
            "SHOW ENGINE NOSUCH STATUS",
            "SHOW BINARY LOGS",
        ],
    )
    assert out[0][0][:5] == ["Table", "Non_unique", "Key_name", "Seq_in_index", "Column_name"]
    assert out[1][1][0][0] == "nodes" and out[1][1][0][-1] == "VIEW"
    assert out[2][1][0][0].startswith("GRANT SELECT")
    assert out[3] == 1141
    assert out[4][1][0][2] == "nodes"
    assert out[5] == 1054
    assert out[6] == 1286
    assert out[7] == 1381


def test_expressions_in_set_show_where_and_table_maintenance(sqlnode):
    out = session(
        sqlnode,
        [
            "SET @n = (SELECT COUNT(*) FROM ndbinfo.nodes), @s = CONCAT('a', 1)",
            "SELECT @n, @s",
            "SET wait_timeout = 100 + 1, sql_mode = ANSI_QUOTES",
            "SELECT @@wait_timeout, @@sql_mode",
            "SET @v = nosuchcolumn",
            "SHOW COLLATION WHERE Charset = 'utf8mb4' AND `Default` = 'Yes'",
            "SHOW CHARACTER SET WHERE Maxlen > 1",
            "ANALYZE TABLE ndbinfo.nodes, ndbinfo.nope",
            "CHECKSUM TABLE ndbinfo.nodes",
            "SET NAMES nosuchcharset",
            "SHOW /*!50002 GLOBAL */ STATUS LIKE 'Uptime'",
            "SELECT /*+ MAX_EXECUTION_TIME(1000) */ 1 /*!99999 + 1 */",
        ],
    )
    assert out[1][1] == [(2, "a1")]
    assert out[3][1] == [(101, "ANSI_QUOTES")]
    assert out[4] == 1054
    assert [r[0] for r in out[5][1]] == ["utf8mb4_0900_ai_ci"]
    assert {r[0] for r in out[6][1]} == {"utf8mb4", "utf8mb3"}
    assert [r[2] for r in out[7][1]] == ["note", "Error", "status"]
    assert out[8][1] == [("ndbinfo.nodes", None)]
    assert out[9] == 1115
    assert out[10][1][0][0] == "Uptime"
    assert out[11][1] == [(1,)]


def test_strings_and_numbers_convert_as_in_mysql(sqlnode):
    out = session(
        sqlnode,
        [
            "SELECT COUNT(*) > 0 FROM performance_schema.global_status WHERE VARIABLE_VALUE > 0",
            "SELECT VARIABLE_NAME FROM performance_schema.global_variables "
            "WHERE VARIABLE_NAME = 'max_connections' AND VARIABLE_VALUE = 151",
            "SELECT '10' + 5, 'abc' = 0",
        ],
    )
    assert out[0][1] == [(1,)]
    assert out[1][1] == [("max_connections",)]
    assert out[2][1] == [(15.0, 1)]
