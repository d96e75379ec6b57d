"""The cost meter: ndbinfo base-table rows read by statements, served on GET /stats."""

from __future__ import annotations

from fastapi.testclient import TestClient
from ndbsim.control.api import create_app


def stats(sqlnode) -> dict:
    with TestClient(create_app(sqlnode.cluster, sqlnode.engine.meter)) as client:
        response = client.get("/stats")
    assert response.status_code == 200
    return response.json()


def delta(before: dict, after: dict) -> dict[str, int]:
    old, new = before["ndbinfo_rows_read_by_table"], after["ndbinfo_rows_read_by_table"]
    return {name: new[name] - old.get(name, 0) for name in new if new[name] != old.get(name, 0)}


def test_a_statement_counts_every_row_of_each_base_table_it_reads_once(sqlnode):
    (fragments,) = sqlnode.query("SELECT COUNT(*) FROM `ndb$table_fragments`")[1][0]
    (nodes,) = sqlnode.query("SELECT COUNT(*) FROM `ndb$nodes`")[1][0]
    before = stats(sqlnode)
    # A view, a WHERE clause and a self-join: the base table is scanned whole, counted once.
    sqlnode.query(
        "SELECT COUNT(*) FROM table_fragments f WHERE f.node_id ="
        " (SELECT MIN(node_id) FROM table_fragments) AND f.partition_id = 0"
    )
    after = stats(sqlnode)
    assert delta(before, after) == {"ndb$table_fragments": fragments}
    assert after["ndbinfo_rows_read"] - before["ndbinfo_rows_read"] == fragments
    assert isinstance(after["ndbinfo_rows_read"], int)
    sqlnode.query("SELECT node_id, status FROM nodes")
    assert delta(after, stats(sqlnode)) == {"ndb$nodes": nodes}


def test_statements_without_ndbinfo_tables_read_nothing_and_counts_repeat(sqlnode):
    before = stats(sqlnode)
    sqlnode.query("SELECT 1", database=None)
    sqlnode.query("SHOW GLOBAL STATUS LIKE 'Ndb_number_of_ready_data_nodes'", database=None)
    middle = stats(sqlnode)
    assert middle["ndbinfo_rows_read"] == before["ndbinfo_rows_read"]
    sqlnode.query("SELECT * FROM dict_obj_info")
    first = delta(middle, stats(sqlnode))
    again = stats(sqlnode)
    sqlnode.query("SELECT * FROM dict_obj_info")
    assert delta(again, stats(sqlnode)) == first


def test_a_plain_limit_scan_counts_the_batches_sent_before_mysqld_stops(sqlnode):
    """ndbinfo sends ndbinfo_max_rows (10) rows per round trip and asks for the next batch as
    one arrives; a LIMIT without WHERE, ordering or aggregate ends the scan early. Anything
    that needs every row reads the whole table."""
    (replicas,) = sqlnode.query("SELECT COUNT(*) FROM `ndb$table_replicas`")[1][0]
    assert replicas > 200
    before = stats(sqlnode)
    rows = sqlnode.query("SELECT last_lcp_id FROM table_replicas LIMIT 64")[1]
    assert len(rows) == 64
    middle = stats(sqlnode)
    assert delta(before, middle) == {"ndb$table_replicas": 80}
    for whole in (
        "SELECT last_lcp_id FROM table_replicas WHERE is_replica_alive = 1 LIMIT 64",
        "SELECT last_lcp_id FROM table_replicas ORDER BY table_id LIMIT 64",
        "SELECT MAX(last_lcp_id) FROM table_replicas LIMIT 64",
    ):
        start = stats(sqlnode)
        sqlnode.query(whole)
        assert delta(start, stats(sqlnode)) == {"ndb$table_replicas": replicas}, whole
