"""The faults behind the transporter, start and primary alerts, read over the MySQL protocol
from an in-process SQL node whose cluster time the test moves: send-overload, stuck-start and
primaries-away change exactly their ndbinfo rows, and clearing them returns the cluster to
healthy."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass

import httpx
import pytest
from ndb_harness import running_ndbsim
from ndbsim.model.faults import FaultError, Faults
from ndbsim.model.topology import build_topology

from tests.support.sqlnode_helpers import RunningSqlNode, start_sql_node

DATA_NODES = (1, 2, 3, 4)  # node groups {1, 2} and {3, 4}
CONNECTED = (1, 2, 3, 4, 49, 50, 51)  # 52..54 are free API slots
LINK_COLUMNS = "overloaded, overload_count, slowdown, slowdown_count"


class Clock:
    now = 1000.0

    def __call__(self) -> float:
        return self.now


@dataclass
class SqlNode(RunningSqlNode):
    """A SQL node of a 4-data-node cluster whose clock stands still until `tick`."""

    clock: Clock

    def tick(self, seconds: float) -> None:
        self.clock.now += seconds

    def rows(self, sql: str) -> list[tuple]:
        return self.query(sql)[1]


@pytest.fixture
def node() -> Iterator[SqlNode]:
    clock = Clock()
    running, stop = start_sql_node("8.4", clock, data_nodes=4, tables=8)
    yield SqlNode(running.port, running.cluster, running.engine, clock)
    stop()


def overloaded_links(node: SqlNode, table: str = "transporters") -> dict[tuple[int, int], tuple]:
    rows = node.rows(
        f"SELECT node_id, remote_node_id, {LINK_COLUMNS} FROM ndbinfo.{table} "
        "WHERE overloaded = 1 OR overload_count > 0 OR slowdown = 1 OR slowdown_count > 0"
    )
    return {(n, r): tuple(rest) for n, r, *rest in rows}


def assert_healthy(node: SqlNode) -> None:
    assert node.rows("SELECT node_id, status FROM ndbinfo.nodes ORDER BY 1") == [
        (n, "STARTED") for n in DATA_NODES
    ]
    assert node.rows(
        "SELECT count(*) FROM ndbinfo.table_fragments WHERE current_primary <> preferred_primary"
    ) == [(0,)]
    assert node.rows("SELECT count(*) FROM ndbinfo.transporters WHERE overloaded = 1") == [(0,)]


@pytest.mark.integration
def test_send_overload_on_one_link_counts_up_and_never_down(node):
    node.cluster.faults.set("send-overload", node=3, remote=4)
    samples = []
    for _ in range(4):
        node.tick(10)
        links = overloaded_links(node)
        assert set(links) == {(3, 4)}
        assert links[(3, 4)][0] == 1 and links[(3, 4)][2] == 1  # overloaded, slowdown
        samples.append(links[(3, 4)])
    counts = [(overloads, slowdowns) for _, overloads, _, slowdowns in samples]
    assert counts == sorted(counts) and len(set(counts)) == len(counts)  # rising every sample
    assert counts[-1] == (20, 40)  # 40 cluster seconds: an overload every 2 s, a slowdown every 1 s
    details = overloaded_links(node, "transporter_details")
    assert details == {(3, 4): samples[-1]}
    used, peak = node.rows(
        "SELECT sendbuffer_used_bytes, sendbuffer_max_used_bytes FROM ndbinfo.transporter_details "
        "WHERE node_id = 3 AND remote_node_id = 4"
    )[0]
    assert used == peak > 900_000

    node.cluster.faults.clear("send-overload")
    for _ in range(3):
        node.tick(10)
        assert overloaded_links(node) == {(3, 4): (0, 20, 0, 40)}
    # the counts are the link's since it connected: they restart when node 4 reconnects
    node.cluster.stop_node(4)
    node.cluster.start_node(4)
    node.tick(node.cluster.spec.restart_seconds + 2)
    assert overloaded_links(node) == {}
    assert_healthy(node)


@pytest.mark.integration
def test_send_overload_on_every_connected_link_of_a_node(node):
    node.cluster.stop_node(2)
    node.cluster.faults.set("send-overload", node=1)
    node.tick(4)
    links = overloaded_links(node)
    assert set(links) == {(1, r) for r in CONNECTED if r not in (1, 2)}
    assert set(links.values()) == {(1, 2, 1, 4)}
    node.cluster.start_node(2)
    node.tick(node.cluster.spec.restart_seconds + 2)
    # node 2 is connected again: its link overloads too, from 0
    assert overloaded_links(node)[(1, 2)] == (1, 1, 1, 2)


@pytest.mark.integration
def test_stuck_start_holds_a_restarted_node_in_its_phase(node):
    node.cluster.stop_node(4)
    node.cluster.faults.set("stuck-start", node=4, phase=3)
    node.cluster.start_node(4)
    for _ in range(3):
        node.tick(600)
        assert node.rows("SELECT node_id, status, start_phase FROM ndbinfo.nodes ORDER BY 1") == [
            (1, "STARTED", 0),
            (2, "STARTED", 0),
            (3, "STARTED", 0),
            (4, "STARTING", 3),
        ]
    assert node.rows("SELECT uptime FROM ndbinfo.nodes WHERE node_id = 4") == [(1800,)]
    status = node.query("SHOW GLOBAL STATUS LIKE 'Ndb_number_of_ready_data_nodes'", None)[1]
    assert status == [("Ndb_number_of_ready_data_nodes", "3")]
    assert node.rows("SELECT node_restart_status FROM ndbinfo.restart_info WHERE node_id = 4") == [
        ("Wait for LCP complete to copy meta data",)
    ]
    assert {n["node_id"]: n.get("start_phase") for n in node.cluster.status()["nodes"]}[4] == 3

    node.cluster.faults.clear("stuck-start")
    node.tick(1)
    assert node.rows("SELECT node_restart_status FROM ndbinfo.restart_info WHERE node_id = 4") == [
        ("Restart completed",)
    ]
    assert_healthy(node)


@pytest.mark.integration
def test_stuck_start_waits_for_the_next_start_of_a_started_node(node):
    node.cluster.faults.set("stuck-start", node=2)
    node.tick(60)
    assert node.rows("SELECT status FROM ndbinfo.nodes WHERE node_id = 2") == [("STARTED",)]
    node.cluster.stop_node(2)
    node.cluster.start_node(2)
    node.tick(120)
    assert node.rows("SELECT status, start_phase FROM ndbinfo.nodes WHERE node_id = 2") == [
        ("STARTING", 5)
    ]
    node.cluster.reset()
    node.tick(1)
    assert_healthy(node)


@pytest.mark.integration
def test_primaries_away_moves_the_primaries_of_one_node(node):
    before = node.rows(
        "SELECT table_id, fragment_id, current_primary, current_first_backup "
        "FROM ndbinfo.table_fragments ORDER BY 1, 2"
    )
    node.cluster.faults.set("primaries-away", node=2)
    node.tick(1)
    moved = node.rows(
        "SELECT DISTINCT current_primary, current_first_backup, num_alive_replicas "
        "FROM ndbinfo.table_fragments WHERE preferred_primary = 2"
    )
    assert moved == [(1, 2, 2)]  # on the other replica of node group 0; node 2 is its backup
    per_node = node.rows(
        "SELECT preferred_primary, count(*) FROM ndbinfo.table_fragments "
        "WHERE current_primary <> preferred_primary GROUP BY 1"
    )
    assert [n for n, count in per_node if count > 0] == [2]
    after = node.rows(
        "SELECT table_id, fragment_id, current_primary, current_first_backup "
        "FROM ndbinfo.table_fragments WHERE preferred_primary <> 2 ORDER BY 1, 2"
    )
    assert after == [row for row in before if row[2] != 2]
    assert node.rows("SELECT count(*) FROM ndbinfo.table_replicas WHERE is_replica_alive = 0") == [
        (0,)
    ]

    node.cluster.faults.clear("primaries-away")
    node.tick(1)
    assert_healthy(node)


@pytest.mark.parametrize(
    ("name", "params", "message"),
    [
        ("send-overload", {}, "send-overload: parameter 'node' is required"),
        ("send-overload", {"node": 49}, "node 49 is not a data node (data nodes: 1, 2, 3, 4)"),
        ("send-overload", {"node": 3, "remote": 3}, "remote must be another node than 3"),
        ("send-overload", {"node": 3, "remote": 60}, "remote 60 is not a node"),
        ("send-overload", {"node": 2.5}, "node must be a whole number, got 2.5"),
        ("stuck-start", {"node": 9}, "node 9 is not a data node"),
        ("stuck-start", {"node": 1, "phase": 0}, "phase must be 1..9, got 0"),
        ("stuck-start", {"node": 1, "phase": 10}, "phase must be 1..9, got 10"),
        ("primaries-away", {"node": 50}, "node 50 is not a data node"),
        ("primaries-away", {"node": 1, "remote": 2}, "unknown parameter(s) remote"),
    ],
)
def test_bad_node_fault_requests(name, params, message):
    faults = Faults(build_topology(4, 2, 2, 1, 3))
    with pytest.raises(FaultError) as err:
        faults.set(name, **params)
    assert message in str(err.value)
    assert "\n" not in str(err.value)


def test_primaries_away_needs_a_second_replica():
    with pytest.raises(FaultError, match="NoOfReplicas >= 2"):
        Faults(build_topology(2, 1, 2, 1, 3)).set("primaries-away", node=1)


@pytest.mark.integration
def test_fault_commands_set_the_node_faults():
    with running_ndbsim("--data-nodes", "4", tables=4) as sim:

        def fault(*args: str) -> subprocess.CompletedProcess:
            command = [sys.executable, "-m", "ndbsim", "fault", "--control-url", sim.control_url]
            return subprocess.run([*command, *args], capture_output=True, text=True, timeout=60)

        assert fault("send-overload", "3", "--remote", "4").returncode == 0
        assert fault("stuck-start", "4").returncode == 0
        assert fault("primaries-away", "2").returncode == 0
        assert json.loads(fault("list").stdout) == {
            "send-overload": {"node": 3, "remote": 4},
            "stuck-start": {"node": 4, "phase": 5},
            "primaries-away": {"node": 2},
        }
        bad = fault("send-overload", "60")
        assert bad.returncode == 1
        assert bad.stderr.strip() == (
            "ndbsim fault: send-overload: node 60 is not a data node (data nodes: 1, 2, 3, 4)"
        )
        assert fault("stuck-start", "4", "--phase", "10").returncode == 2
        response = httpx.put(f"{sim.control_url}/faults/stuck-start", json={"node": 4, "phase": 0})
        assert response.status_code == 422
        assert response.json()["detail"] == "stuck-start: phase must be 1..9, got 0"
