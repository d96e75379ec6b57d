"""SQL features an exporter or a DBA uses against ndbinfo, evaluated like MySQL would."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.integration  # starts ndbsim


def cols(node, sql, database="ndbinfo"):
    return node.query(sql, database)


def test_select_star_and_names(sqlnode):
    names, rows = cols(sqlnode, "SELECT * FROM nodes")
    assert names == ["node_id", "uptime", "status", "start_phase", "config_generation"]
    assert {r[2] for r in rows} == {"STARTED"}


def test_expression_names_are_the_text_as_written(sqlnode):
    names, rows = cols(
        sqlnode, "SELECT count(*), COUNT(DISTINCT node_id), MIN(node_id) AS n, 1+1 FROM nodes"
    )
    assert names == ["count(*)", "COUNT(DISTINCT node_id)", "n", "1+1"]
    assert rows[0][0] == rows[0][1] == 2


def test_qualified_backquoted_and_hidden_names(sqlnode):
    names, rows = cols(sqlnode, "SELECT `n`.`node_id` FROM `ndbinfo`.`nodes` AS `n`", None)
    assert names == ["node_id"] and len(rows) == 2
    _, rows = cols(sqlnode, "SELECT COUNT(*) FROM ndbinfo.ndb$nodes", None)
    assert rows[0][0] == 2


def test_join_where_group_having_order_limit(sqlnode):
    names, rows = cols(
        sqlnode,
        "SELECT p.param_name AS Name, COUNT(*) AS nodes FROM config_params p "
        "JOIN config_values v ON p.param_number = v.config_param "
        "WHERE p.param_name LIKE 'max%' GROUP BY p.param_name HAVING COUNT(*) >= 2 "
        "ORDER BY Name LIMIT 3",
    )
    assert names == ["Name", "nodes"]
    assert len(rows) == 3 and all(r[0].startswith("Max") for r in rows)  # LIKE is case-insensitive
    assert [r[0] for r in rows] == sorted(r[0] for r in rows)


def test_subquery_case_concat_sum_condition(sqlnode):
    _, rows = cols(
        sqlnode,
        "SELECT CONCAT('node-', node_id) AS n, CASE WHEN status = 'STARTED' THEN 1 ELSE 0 END AS up "
        "FROM nodes WHERE node_id = (SELECT MIN(node_id) FROM nodes)",
    )
    assert rows == [("node-1", 1)]
    _, rows = cols(sqlnode, "SELECT SUM(status = 'STARTED') FROM nodes")
    assert int(rows[0][0]) == 2


def test_dict_obj_info_join_table_fragments(sqlnode):
    _, rows = cols(
        sqlnode,
        "SELECT d.fq_name, COUNT(*) FROM dict_obj_info d JOIN table_fragments f "
        "ON f.table_id = d.id WHERE d.type = 2 GROUP BY d.fq_name",
    )
    assert rows and all(count > 0 for _, count in rows)


def test_wire_types_follow_catalog(sqlnode):
    conn = sqlnode.connect(database="ndbinfo")
    try:
        cur = conn.cursor()
        cur.execute("SELECT node_id, uptime, status FROM nodes")
        cur.fetchall()
        flags = {d[0]: (d[1], d[7]) for d in cur.description}
        cur.execute("SELECT SUM(used) FROM memoryusage")
        cur.fetchall()
        sum_type = cur.description[0][1]
    finally:
        conn.close()
    assert flags["node_id"][0] == 3 and flags["node_id"][1] & 32  # LONG, UNSIGNED
    assert flags["uptime"][0] == 8 and flags["uptime"][1] & 32  # LONGLONG, UNSIGNED
    assert flags["status"][0] == 253
    assert sum_type == 246  # NEWDECIMAL


def test_use_show_and_describe(sqlnode):
    names, rows = cols(sqlnode, "SHOW FULL TABLES FROM ndbinfo LIKE 'node%'", None)
    assert names == ["Tables_in_ndbinfo (node%)", "Table_type"] and rows == [("nodes", "VIEW")]
    _, rows = cols(sqlnode, "SHOW TABLES")
    assert ("memoryusage",) in rows and not [r for r in rows if r[0].startswith("ndb$")]
    names, rows = cols(sqlnode, "DESC nodes")
    assert names == ["Field", "Type", "Null", "Key", "Default", "Extra"] and rows[0][:2] == (
        "node_id",
        "int unsigned",
    )
    _, rows = cols(sqlnode, "SHOW DATABASES", None)
    assert ("ndbinfo",) in rows and ("information_schema",) in rows


def test_show_hidden_session_variable(sqlnode):
    conn = sqlnode.connect(database="ndbinfo")
    try:
        cur = conn.cursor()
        cur.execute("SET SESSION ndbinfo_show_hidden = ON")
        cur.execute("SHOW TABLES LIKE 'ndb$nodes'")
        assert cur.fetchall() == [("ndb$nodes",)]
        cur.execute(
            "SELECT @@ndbinfo_show_hidden, @@ndbinfo_max_rows, @@ndbinfo_database, @@ndbinfo_table_prefix"
        )
        assert cur.fetchall() == [(1, 10, "ndbinfo", "ndb$")]
    finally:
        conn.close()


def test_information_schema_columns(sqlnode):
    _, rows = cols(
        sqlnode,
        "SELECT COLUMN_NAME, ORDINAL_POSITION, DATA_TYPE, COLUMN_TYPE, IS_NULLABLE "
        "FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'ndbinfo' AND TABLE_NAME = 'memoryusage' "
        "ORDER BY ORDINAL_POSITION",
        None,
    )
    assert rows[0] == ("node_id", 1, "int", "int unsigned", "YES")
    assert rows[2][2:4] == ("decimal", "decimal(62,0)")


@pytest.mark.parametrize("version_var", ["@@version", "@@version_comment", "@@ndbinfo_version"])
def test_select_without_database(sqlnode, version_var):
    names, rows = cols(sqlnode, f"SELECT {version_var}", None)
    assert names == [version_var] and rows[0][0]
