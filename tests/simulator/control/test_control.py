"""The control API and faults end to end: a real `python -m ndbsim` process, faults set over
HTTP, their effect read with a MySQL client."""

from __future__ import annotations

import contextlib
import socket
import time

import httpx
import mysql.connector
import pytest
from ndb_harness import Ndbsim, running_ndbsim

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def sim():
    with running_ndbsim("--data-nodes", "4", speed=20, tables=10) as handle:
        yield handle


@pytest.fixture(autouse=True)
def _healthy(sim):
    sim.reset()
    yield


def query(sim: Ndbsim, sql: str, port: int | None = None) -> list[tuple]:
    conn = mysql.connector.connect(
        host=sim.host,
        port=port or sim.port,
        user=sim.user,
        password=sim.password,
        connection_timeout=10,
    )
    try:
        cur = conn.cursor()
        cur.execute(sql)
        return cur.fetchall()
    finally:
        conn.close()


def test_status_and_nodes(sim):
    status = sim.status()
    assert status["version"] == "8.4"
    assert status["cluster_up"] is True
    kinds = {n["node_id"]: (n["type"], n["state"]) for n in status["nodes"]}
    assert kinds[1] == ("NDB", "STARTED")
    assert kinds[49] == ("MGM", "CONNECTED")
    assert kinds[status["sql_node_id"]] == ("API", "CONNECTED")


def test_stop_start_node_through_sql(sim):
    sim.stop_node(2)
    assert query(sim, "SELECT node_id FROM ndbinfo.nodes ORDER BY 1") == [(1,), (3,), (4,)]
    ready = dict(query(sim, "SHOW GLOBAL STATUS LIKE 'Ndb_number_of_ready_data_nodes'"))
    assert ready == {"Ndb_number_of_ready_data_nodes": "3"}
    sim.start_node(2)
    sim.wait_for(lambda s: all(n["state"] == "STARTED" for n in s["nodes"] if n["type"] == "NDB"))
    assert query(
        sim,
        "SELECT count(*) FROM ndbinfo.table_fragments WHERE current_primary <> preferred_primary",
    ) == [(0,)]


def test_cluster_down_gives_error_157(sim):
    sim.stop_node(1)
    sim.stop_node(2)
    with pytest.raises(mysql.connector.Error) as err:
        query(sim, "SELECT * FROM ndbinfo.nodes")
    assert err.value.errno == 1296
    assert "157" in err.value.msg
    ready = dict(query(sim, "SHOW GLOBAL STATUS LIKE 'Ndb_number_of_ready_data_nodes'"))
    assert ready == {"Ndb_number_of_ready_data_nodes": "0"}


def test_faults_listed_and_cleared(sim):
    sim.fault("data-memory", share=0.95)
    sim.fault("slow-ndbinfo", seconds=0.5, table="threadstat")
    assert set(httpx.get(sim.control_url + "/faults").json()["active"]) == {
        "data-memory",
        "slow-ndbinfo",
    }
    rows = query(
        sim,
        "SELECT used_pages, total_pages FROM ndbinfo.memoryusage WHERE memory_type = 'Data memory'",
    )
    assert all(int(u) == int(int(t) * 0.95) for u, t in rows)
    start = time.monotonic()
    query(sim, "SELECT count(*) FROM ndbinfo.threadstat")
    assert time.monotonic() - start >= 0.5
    assert sim.clear("data-memory")["cleared"] is True
    assert set(sim.status()["faults"]) == {"slow-ndbinfo"}


def test_refuse_connections(sim):
    sim.fault("refuse-connections")
    with pytest.raises(mysql.connector.Error):
        query(sim, "SELECT 1")
    sim.clear("refuse-connections")
    assert query(sim, "SELECT 1") == [(1,)]


@pytest.mark.parametrize(
    ("method", "path", "body", "code", "text"),
    [
        ("PUT", "/faults/bogus", None, 404, "unknown fault"),
        ("DELETE", "/faults/bogus", None, 404, "unknown fault"),
        ("POST", "/nodes/77/stop", None, 404, "unknown node id 77"),
        ("POST", "/nodes/abc/stop", None, 422, "node_id"),
        ("PUT", "/faults/data-memory", {"share": 2}, 422, "between 0 and 1"),
        ("PUT", "/faults/data-memory", None, 422, "required"),
        ("PUT", "/faults/slow-ndbinfo", {"seconds": "soon"}, 422, "must be a float"),
        ("PUT", "/faults/lcp-stall", [1, 2], 422, "dict"),
    ],
)
def test_bad_requests(sim, method, path, body, code, text):
    response = httpx.request(method, sim.control_url + path, json=body)
    assert response.status_code == code
    assert text in response.json()["detail"]


def query_node(sim: Ndbsim, port: int, sql: str) -> list[tuple]:
    return query(sim, sql, port)


def test_each_sql_node_is_a_mysqld_of_its_own_and_stops_alone(sim):
    ports = sim.sql_node_ports()
    assert len(ports) == 2 and ports[sim.status()["sql_node_id"]] == sim.port
    seen = {
        node: query_node(sim, port, "SELECT @@server_id, @@ndb_nodeid")
        for node, port in ports.items()
    }
    assert {rows[0][1] for rows in seen.values()} == set(ports)
    assert len({rows[0][0] for rows in seen.values()}) == 2  # its own @@server_id
    nodes_sql = "SELECT node_id, status, start_phase FROM ndbinfo.nodes ORDER BY 1"
    before = sim.stats()
    assert len({tuple(query_node(sim, port, nodes_sql)) for port in ports.values()}) == 1
    after = sim.stats()  # one meter per cluster: both SQL nodes' statements, each paid once
    assert after["ndbinfo_statements"] - before["ndbinfo_statements"] == 2
    read = after["ndbinfo_rows_read_by_table"]["ndb$nodes"]
    assert read - before["ndbinfo_rows_read_by_table"].get("ndb$nodes", 0) == 2 * 4
    own = "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE COMMAND <> 'Daemon'"
    with contextlib.closing(
        mysql.connector.connect(host=sim.host, port=ports[min(ports)], user=sim.user,
                                password=sim.password)
    ):  # fmt: skip
        assert [query_node(sim, port, own) for port in ports.values()] == [[(2,)], [(1,)]]
    mysqlds = "SELECT DISTINCT node_id FROM ndbinfo.processes WHERE process_name = 'mysqld'"
    for port in ports.values():
        assert {r[0] for r in query_node(sim, port, mysqlds)} == set(ports)
    first, second = sorted(ports)
    links = (
        "SELECT DISTINCT status, connect_count FROM ndbinfo.transporters "
        f"WHERE remote_node_id = {second}"
    )
    assert sim.stop_node(second)["state"] == "DISCONNECTED"
    with pytest.raises(mysql.connector.Error):
        query_node(sim, ports[second], "SELECT 1")
    with socket.socket() as other, pytest.raises(OSError):  # its port is no one else's
        other.bind((sim.host, ports[second]))
    assert query_node(sim, ports[first], links) == [("DISCONNECTED", 1)]
    assert {r[0] for r in query_node(sim, ports[first], mysqlds)} == {first}
    sim.start_node(second)
    assert query_node(sim, ports[second], links) == [("CONNECTED", 2)]
