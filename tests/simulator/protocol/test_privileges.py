"""Accounts and grants in ndbsim: each privilege the exporter's statements need is checked as
mysqld checks it, with its error code and text."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator

import mysql.connector
import pymysql
import pytest

from tests.support.sqlnode_helpers import PASSWORD, USER, RunningSqlNode, start_sql_node

MONITOR = "'mon'@'%'"
VIEW_1356 = (
    "View 'ndbinfo.nodes' references invalid table(s) or column(s) or function(s) or "
    "definer/invoker of view lack rights to use them"
)
REPLICATION_1227 = (
    "Access denied; you need (at least one of) the SUPER, REPLICATION CLIENT privilege(s) for "
    "this operation"
)
PROCESS_1227 = (
    "Access denied; you need (at least one of) the PROCESS privilege(s) for this operation"
)


@pytest.fixture(scope="module")
def node() -> Iterator[RunningSqlNode]:
    running, stop = start_sql_node("8.0.43", data_nodes=2)
    yield running
    stop()


def _connect(node: RunningSqlNode, user: str = USER, password: str = PASSWORD):
    return pymysql.connect(host="127.0.0.1", port=node.port, user=user, password=password)


def _run(connection, sql: str) -> list[tuple]:
    with connection.cursor() as cursor:
        cursor.execute(sql)
        return list(cursor.fetchall())


def _error(connection, sql: str) -> tuple[int, str]:
    with pytest.raises(pymysql.MySQLError) as raised:
        _run(connection, sql)
    return raised.value.args[0], raised.value.args[1]


@pytest.fixture
def admin(node):
    connection = _connect(node)
    _run(connection, "DROP USER IF EXISTS 'mon'@'%'")
    _run(connection, f"CREATE USER {MONITOR} IDENTIFIED BY 'pw' WITH MAX_USER_CONNECTIONS 3")
    yield connection
    connection.close()


@pytest.fixture
def monitor(node, admin):
    connection = _connect(node, "mon", "pw")
    yield connection
    connection.close()


def test_a_new_account_without_grants_sees_nothing_of_ndbinfo(monitor):
    assert _run(monitor, "SHOW GRANTS") == [("GRANT USAGE ON *.* TO `mon`@`%`",)]
    assert _run(monitor, "SHOW DATABASES") == [("information_schema",)]
    assert _run(monitor, "SELECT SCHEMA_NAME FROM information_schema.SCHEMATA") == [
        ("information_schema",)
    ]
    sql = "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'ndbinfo'"
    assert _run(monitor, sql) == []
    assert _error(monitor, "SELECT * FROM ndbinfo.nodes") == (
        1142,
        "SELECT command denied to user 'mon'@'localhost' for table 'nodes'",
    )
    assert _error(monitor, "SHOW TABLES FROM ndbinfo") == (
        1044,
        "Access denied for user 'mon'@'localhost' to database 'ndbinfo'",
    )
    # SHOW GLOBAL STATUS and SHOW VARIABLES need no privilege
    assert _run(monitor, "SHOW GLOBAL STATUS LIKE 'Ndb_number_of_data_nodes'")
    assert _run(monitor, "SHOW VARIABLES LIKE 'ndbinfo_version'")


def test_select_on_a_view_without_its_base_tables_is_1356(admin, monitor):
    _run(admin, f"GRANT SELECT ON ndbinfo.nodes TO {MONITOR}")
    assert _error(monitor, "SELECT node_id FROM ndbinfo.nodes") == (1356, VIEW_1356)
    _run(admin, f"GRANT SELECT ON ndbinfo.`ndb$nodes` TO {MONITOR}")
    assert len(_run(monitor, "SELECT node_id FROM ndbinfo.nodes")) == 2
    sql = "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'ndbinfo'"
    assert _run(monitor, sql) == [("nodes",)]  # the ndb$ tables are hidden


def test_grants_widen_and_revoke_narrows(admin, monitor):
    _run(admin, f"GRANT SELECT ON ndbinfo.* TO {MONITOR}")
    _run(admin, f"GRANT PROCESS, REPLICATION CLIENT ON *.* TO {MONITOR}")
    _run(admin, f"GRANT SELECT ON mysql.ndb_apply_status TO {MONITOR}")
    assert _run(monitor, "SHOW GRANTS") == [
        ("GRANT PROCESS, REPLICATION CLIENT ON *.* TO `mon`@`%`",),
        ("GRANT SELECT ON `mysql`.`ndb_apply_status` TO `mon`@`%`",),
        ("GRANT SELECT ON `ndbinfo`.* TO `mon`@`%`",),
    ]
    assert _run(admin, f"SHOW GRANTS FOR {MONITOR}") == _run(monitor, "SHOW GRANTS")
    assert len(_run(monitor, "SELECT node_id FROM ndbinfo.nodes")) == 2
    assert _run(monitor, "SHOW ENGINE NDBCLUSTER STATUS")
    assert _run(monitor, "SHOW REPLICA STATUS") == []
    assert ("ndbinfo",) in _run(monitor, "SHOW DATABASES")

    _run(admin, f"REVOKE SELECT ON ndbinfo.* FROM {MONITOR}")
    assert _error(monitor, "SELECT node_id FROM ndbinfo.nodes")[0] == 1142  # open session
    _run(admin, f"REVOKE PROCESS ON *.* FROM {MONITOR}")
    assert _error(monitor, "SHOW ENGINE NDB STATUS") == (1227, PROCESS_1227)
    _run(admin, f"REVOKE REPLICATION CLIENT ON *.* FROM {MONITOR}")
    for sql in (
        "SHOW REPLICA STATUS",
        "SHOW SLAVE STATUS",
        "SHOW BINARY LOGS",
        "SHOW MASTER STATUS",
    ):
        assert _error(monitor, sql) == (1227, REPLICATION_1227)
    _run(admin, f"REVOKE SELECT ON mysql.ndb_apply_status FROM {MONITOR}")
    assert _error(monitor, "SELECT server_id, epoch FROM mysql.ndb_apply_status") == (
        1142,
        "SELECT command denied to user 'mon'@'localhost' for table 'ndb_apply_status'",
    )
    assert _run(monitor, "SHOW GRANTS") == [("GRANT USAGE ON *.* TO `mon`@`%`",)]


def test_account_management_errors(admin, monitor):
    assert _error(admin, f"CREATE USER {MONITOR} IDENTIFIED BY 'x'") == (
        1396,
        "Operation CREATE USER failed for 'mon'@'%'",
    )
    assert _error(admin, "DROP USER 'nobody'@'%'") == (
        1396,
        "Operation DROP USER failed for 'nobody'@'%'",
    )
    assert _error(admin, "GRANT SELECT ON ndbinfo.* TO 'nobody'@'%'") == (
        1410,
        "You are not allowed to create a user with GRANT",
    )
    assert _error(admin, f"GRANT PROCESS ON ndbinfo.* TO {MONITOR}") == (
        1221,
        "Incorrect usage of DB GRANT and GLOBAL PRIVILEGES",
    )
    assert _error(admin, f"REVOKE SELECT ON ndbinfo.* FROM {MONITOR}") == (
        1141,
        "There is no such grant defined for user 'mon' on host '%'",
    )
    assert _error(admin, "SHOW GRANTS FOR 'nobody'@'%'") == (
        1141,
        "There is no such grant defined for user 'nobody' on host '%'",
    )
    assert _error(monitor, "CREATE USER 'x'@'%' IDENTIFIED BY 'y'") == (
        1227,
        "Access denied; you need (at least one of) the CREATE USER privilege(s) for this operation",
    )
    assert _error(monitor, f"SHOW GRANTS FOR {USER}@'%'") == (
        1044,
        "Access denied for user 'mon'@'localhost' to database 'mysql'",
    )
    assert _error(monitor, "FLUSH PRIVILEGES")[0] == 1227
    assert _run(admin, "FLUSH PRIVILEGES") == []


def test_max_user_connections_is_enforced(node, admin, monitor):
    others = [_connect(node, "mon", "pw") for _ in range(2)]
    with pytest.raises(pymysql.MySQLError) as raised:
        _connect(node, "mon", "pw")
    assert raised.value.args == (
        1226,
        "User 'mon' has exceeded the 'max_user_connections' resource (current value: 3)",
    )
    others.pop().close()
    others.append(_connect(node, "mon", "pw"))  # room again
    for connection in others:
        connection.close()


def test_change_user_takes_the_new_accounts_privileges(node, admin):
    connection = mysql.connector.connect(
        host="127.0.0.1", port=node.port, user=USER, password=PASSWORD
    )
    try:
        connection.cmd_change_user(username="mon", password="pw")
        cursor = connection.cursor()
        with pytest.raises(mysql.connector.Error) as raised:
            cursor.execute("SELECT node_id FROM ndbinfo.nodes")
        assert raised.value.errno == 1142
    finally:
        connection.close()


def test_logging_in_to_a_database_without_privileges_is_1044(node, admin):
    with pytest.raises(pymysql.MySQLError) as raised:
        pymysql.connect(
            host="127.0.0.1", port=node.port, user="mon", password="pw", database="ndbinfo"
        )
    assert raised.value.args == (
        1044,
        "Access denied for user 'mon'@'localhost' to database 'ndbinfo'",
    )


def test_a_dropped_account_can_no_longer_log_in(node, admin):
    _run(admin, "DROP USER 'mon'@'%'")
    with pytest.raises(pymysql.MySQLError) as raised:
        _connect(node, "mon", "pw")
    assert raised.value.args[0] == 1045


@pytest.mark.parametrize("plugin", ["mysql_native_password", "caching_sha2_password"])
def test_new_accounts_log_in_with_either_client_plugin(node, admin, plugin):
    connection = mysql.connector.connect(
        host="127.0.0.1", port=node.port, user="mon", password="pw", auth_plugin=plugin
    )
    try:
        cursor = connection.cursor()
        cursor.execute("SELECT CURRENT_USER()")
        assert cursor.fetchall()
    finally:
        connection.close()
    with pytest.raises(mysql.connector.Error) as raised:
        mysql.connector.connect(
            host="127.0.0.1", port=node.port, user="mon", password="no", auth_plugin=plugin
        )
    assert raised.value.errno == 1045


@pytest.mark.integration
@pytest.mark.skipif(shutil.which("mariadb") is None, reason="mariadb client not installed")
def test_the_mariadb_client_gets_the_error_as_mysqld_words_it(node, admin):
    result = subprocess.run(
        ["mariadb", "--protocol=TCP", "-h127.0.0.1", f"-P{node.port}", "-umon", "-ppw",
         "--batch", "-e", "SHOW ENGINE NDBCLUSTER STATUS"],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert result.returncode == 1
    assert f"ERROR 1227 (42000) at line 1: {PROCESS_1227}" in result.stderr
