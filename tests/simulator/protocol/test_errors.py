"""Errors come back like mysqld words them, never as a traceback."""

from __future__ import annotations

import mysql.connector
import pytest

pytestmark = pytest.mark.integration  # the sqlnode fixture starts ndbsim


def error_of(node, sql, database="ndbinfo"):
    with pytest.raises(mysql.connector.Error) as info:
        node.query(sql, database)
    return info.value.errno, info.value.sqlstate, info.value.msg


def test_unknown_table(sqlnode):
    assert error_of(sqlnode, "SELECT * FROM nosuch") == (
        1146,
        "42S02",
        "Table 'ndbinfo.nosuch' doesn't exist",
    )


def test_syntax_error(sqlnode):
    errno, state, msg = error_of(sqlnode, "SELEC * FROM nodes")
    assert (errno, state) == (1064, "42000") and "You have an error in your SQL syntax" in msg


@pytest.mark.parametrize(
    "sql",
    [
        "INSERT INTO nodes VALUES (1, 2, 3, 4, 5)",
        "UPDATE nodes SET uptime = 0",
        "DELETE FROM nodes",
        "REPLACE INTO nodes VALUES (1, 2, 3, 4, 5)",
        "TRUNCATE TABLE nodes",
    ],
)
def test_writes_are_read_only(sqlnode, sql):
    assert error_of(sqlnode, sql) == (1036, "HY000", "Table 'nodes' is read only")


def test_unknown_column(sqlnode):
    assert error_of(sqlnode, "SELECT nosuch FROM nodes")[:2] == (1054, "42S22")


def test_wrong_password(sqlnode):
    with pytest.raises(mysql.connector.Error) as info:
        sqlnode.connect(password="wrong")
    assert info.value.errno == 1045 and info.value.sqlstate == "28000"
    assert info.value.msg.startswith("Access denied for user 'ndbsim'@")


def test_offline_is_global_only(sqlnode):
    assert error_of(sqlnode, "SET SESSION ndbinfo_offline = ON")[0] == 1229


def test_cluster_unreachable_gives_1296(sqlnode):
    cluster = sqlnode.cluster
    data_nodes = [n for n in cluster.nodes]
    try:
        for node_id in data_nodes:
            cluster.stop_node(node_id)
        assert not cluster.data_nodes_reachable()
        assert error_of(sqlnode, "SELECT * FROM nodes") == (
            1296,
            "HY000",
            "Got error 157 'Connection to NDB failed' from NDBINFO",
        )
        _, rows = sqlnode.query("SELECT COUNT(*) FROM blocks")  # SQL-node table still answers
        assert rows[0][0] > 0
    finally:
        cluster.reset()


@pytest.mark.parametrize(
    ("sql", "command"),
    [
        ("CREATE TABLE test.t (a INT)", "CREATE"),
        ("CREATE TABLE IF NOT EXISTS `test`.`t` (a INT) ENGINE=NDB", "CREATE"),
        ("DROP TABLE test.t", "DROP"),
        ("ALTER TABLE t ADD b INT", "ALTER"),
    ],
)
def test_ddl_is_denied_for_the_table_as_mysqld_words_it(sqlnode, sql, command):
    errno, state, msg = error_of(sqlnode, sql)
    assert (errno, state) == (1142, "42000")
    assert msg.startswith(f"{command} command denied to user '")
    assert msg.endswith("' for table 't'")
