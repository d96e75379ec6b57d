"""Status variables: per-version presence, per-connection values, server-wide counters."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from tests.support.sqlnode_helpers import start_sql_node

pytestmark = pytest.mark.integration  # starts ndbsim

STATUS_VARS = (
    Path(__file__).resolve().parents[3] / "simulator" / "data" / "ndbinfo" / "status-vars.json"
)


def status(conn, sql="SHOW GLOBAL STATUS"):
    cur = conn.cursor()
    cur.execute(sql)
    return dict(cur.fetchall())


def test_every_ndb_variable_of_84_is_present(sqlnode):
    names = {v["name"] for v in json.loads(STATUS_VARS.read_text())["variables"]}
    conn = sqlnode.connect()
    try:
        got = status(conn)
    finally:
        conn.close()
    assert names <= set(got)
    for extra in ("Uptime", "Threads_connected", "Questions", "Com_select", "Com_commit"):
        assert extra in got


def test_7x_lacks_later_variables():
    node, stop = start_sql_node("7.6")
    try:
        conn = node.connect()
        got = status(conn, "SHOW GLOBAL STATUS LIKE 'Ndb%'")
        conn.close()
    finally:
        stop()
    assert "Ndb_api_wait_exec_complete_count" in got
    assert not [n for n in got if n.endswith("_replica") or n.startswith("Ndb_metadata_")]
    assert "Ndb_config_generation" not in got


def test_per_connection_values_and_performance_schema(sqlnode):
    a, b = sqlnode.connect(), sqlnode.connect()
    try:
        cur = a.cursor()
        for _ in range(3):
            cur.execute("SELECT * FROM ndbinfo.nodes")
            cur.fetchall()
        sa = status(a, "SHOW SESSION STATUS")
        sb = status(b, "SHOW GLOBAL STATUS LIKE 'Ndb_execute_count'")
        assert sb["Ndb_execute_count"] == "0"  # fresh connection, even under GLOBAL
        assert int(sa["Questions"]) >= 4
        cur = b.cursor()
        cur.execute(
            "SELECT VARIABLE_NAME, VARIABLE_VALUE FROM performance_schema.global_status "
            "WHERE VARIABLE_NAME LIKE 'Ndb_api_trans_start%'"
        )
        assert dict(cur.fetchall())
    finally:
        a.close()
        b.close()


def test_server_wide_counters_grow(sqlnode):
    conn = sqlnode.connect()
    try:
        first = int(status(conn)["Ndb_api_trans_start_count"])
        questions = int(status(conn)["Questions"])
        time.sleep(1.5)
        later = status(conn)
        assert int(later["Ndb_api_trans_start_count"]) > first
        assert int(later["Questions"]) > questions
    finally:
        conn.close()


def test_global_variables(sqlnode):
    conn = sqlnode.connect()
    try:
        got = status(conn, "SHOW GLOBAL VARIABLES LIKE 'ndbinfo%'")
        assert got["ndbinfo_version"] == str((8 << 16) | (4 << 8) | 3)
        assert got["ndbinfo_show_hidden"] == "OFF" and got["ndbinfo_offline"] == "OFF"
        cur = conn.cursor()
        cur.execute(
            "SELECT VARIABLE_VALUE FROM performance_schema.global_variables WHERE VARIABLE_NAME = 'version'"
        )
        assert cur.fetchall() == [("8.4.3-cluster",)]
    finally:
        conn.close()
