"""ndbsim's management server read by clients written from the protocol's source: the mgmapi
client of tests/support/mgmapi_client.py (storage/ndb/src/mgmapi/mgmapi.cpp) and raw requests
checked against Services.cpp and Parser.cpp, not against the exporter's reader."""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import mysql.connector
import pytest
from ndb_harness import running_ndbsim
from ndbsim.model.cluster import Cluster, ClusterSpec
from ndbsim.model.ndb_errors import ndb_error_string
from ndbsim.protocol.mgm import server as mgm_server
from ndbsim.versions import DEFAULT, parse_version

from tests.support.mgmapi_client import MgmapiClient, MgmapiError

pytestmark = pytest.mark.integration

CFG_NODE_ID, CFG_NODE_HOST, CFG_DB_DATA_MEM, CFG_DB_NODEGROUP = 3, 5, 112, 185
CFG_SYS_CONFIG_GENERATION, CFG_SYS_NAME = 2, 3


@pytest.fixture(scope="module")
def sim():
    with running_ndbsim() as handle:
        yield handle


def _client(sim, version=(8, 4, 0)) -> MgmapiClient:
    return MgmapiClient(sim.host, sim.mgm_port, version).connect()


def _ask(port: int, request: bytes, host: str = "127.0.0.1") -> str:
    """Send a raw request and read the reply up to the blank line that ends it."""
    with socket.create_connection((host, port), timeout=10) as s:
        s.sendall(request)
        data = b""
        while not data.endswith(b"\n\n"):
            chunk = s.recv(65536)
            assert chunk, "the server closed the session"
            data += chunk
    return data.decode()


def test_status_as_mgmapi_reads_it_after_set_clientversion(sim):
    with _client(sim) as client:
        nodes = client.get_status()
    assert len(nodes) == len(sim.status()["nodes"])
    assert {n["type"] for n in nodes} == {"NDB", "MGM", "API"}
    assert all("is_single_user" in n for n in nodes)  # a client of 8.0.22 or later
    for node in nodes:
        if node["type"] != "NDB":
            assert (node["dynamic_id"], node["node_group"], node["connect_count"]) == (0, 0, 0)
    assert next(n for n in nodes if n["type"] == "MGM")["status"] == "CONNECTED"


def test_a_stopped_data_node_shows_no_contact_and_nothing_else(sim):
    sim.stop_node(2)
    try:
        with _client(sim) as client:
            nodes = {n["node_id"]: n for n in client.get_status(["NDB"])}
    finally:
        sim.start_node(2)
    assert set(nodes) == {1, 2}
    stopped = nodes[2]
    assert stopped["status"] == "NO_CONTACT"
    fields = ("version", "mysql_version", "startphase", "dynamic_id", "node_group", "connect_count")
    assert [stopped[f] for f in fields] == [0] * len(fields)
    assert stopped["address"] == ""
    assert nodes[1]["status"] == "STARTED" and nodes[1]["connect_count"] >= 1


def test_is_single_user_only_for_clients_that_said_they_are_8_0_22_or_later(sim):
    with _client(sim, version=(8, 0, 21)) as old:
        assert all("is_single_user" not in n for n in old.get_status())
    with MgmapiClient(sim.host, sim.mgm_port) as silent:  # never sends set clientversion
        assert all("is_single_user" not in n for n in silent.get_status())
    # a negative number is read as unsigned (sscanf %u): a huge major version
    with socket.create_connection((sim.host, sim.mgm_port), timeout=10) as s:
        s.sendall(b"set clientversion\nmajor: -1\nminor: 0\nbuild: 0\n\n")
        reader = s.makefile("r")
        assert [reader.readline() for _ in range(3)] == [
            "set clientversion reply\n",
            "result: Ok\n",
            "\n",
        ]
        s.sendall(b"get status\ntypes: MGM\n\n")
        lines = []
        while (line := reader.readline()) != "\n":
            lines.append(line)
    assert any(".is_single_user: 0" in line for line in lines)


def test_types_are_read_up_to_the_first_name_that_is_not_a_type(sim):
    with _client(sim) as client:
        mgm_only = client.get_status(["MGM", "junk", "NDB"])
        data_nodes = client.get_status(["DB"])
        none = client.get_status(["ndb"])  # names are compared case-sensitively
    assert {n["type"] for n in mgm_only} == {"MGM"}
    assert [n["node_id"] for n in data_nodes] == [1, 2]
    assert none == []


def test_config_v2_has_each_nodes_section(sim):
    with _client(sim) as client:
        config = client.get_configuration()
        status = {n["node_id"]: n for n in client.get_status()}
    conn = mysql.connector.connect(
        host=sim.host, port=sim.port, user=sim.user, password=sim.password, database="ndbinfo"
    )
    try:
        cur = conn.cursor()
        cur.execute(
            "SELECT config_value FROM config_values WHERE node_id = 1 AND config_param = 112"
        )
        ((data_memory,),) = cur.fetchall()
    finally:
        conn.close()
    node = config.node(1)
    assert config.get(node, CFG_DB_DATA_MEM) == int(data_memory)
    assert config.get(node, CFG_DB_NODEGROUP) == status[1]["node_group"]
    assert config.get(node, CFG_NODE_HOST) == status[1]["address"]
    assert {s.values[CFG_NODE_ID] for s in config.nodes} == set(status)
    assert str(config.system.values[CFG_SYS_NAME]).startswith("MC_")
    assert int(config.system.values[CFG_SYS_CONFIG_GENERATION]) >= 1


def test_config_from_a_node_that_cannot_give_it(sim):
    with _client(sim) as client:
        with pytest.raises(MgmapiError, match=r"^Node 49 is not a data node\.$"):
            client.get_configuration(from_node=49)
        with pytest.raises(MgmapiError, match=r"^Nodeid 300 is greater than max nodeid 255\.$"):
            client.get_configuration(from_node=300)
        assert client.get_configuration(from_node=1).node(1).values[CFG_NODE_ID] == 1


def test_start_backup_with_an_id_and_the_error_text_when_one_runs(sim):
    with _client(sim) as client:
        assert client.start_backup(wait_completed=1, backup_id=5000) == ("Ok", 5000)
        result, backup_id = client.start_backup(wait_completed=1)
    assert (result, backup_id) == (ndb_error_string(1302), None)
    assert result == "A backup is already running: Permanent error: Application error"


@contextmanager
def _in_process_server(cluster: Cluster) -> Iterator[int]:
    """The management server of an in-process cluster on a free port, its loop in a thread."""
    loop = asyncio.new_event_loop()
    server = loop.run_until_complete(mgm_server.start(cluster, "127.0.0.1", 0))
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    try:
        yield server.sockets[0].getsockname()[1]
    finally:
        asyncio.run_coroutine_threadsafe(_stop(server), loop).result(timeout=10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join()
        loop.close()


async def _stop(server: asyncio.Server) -> None:
    """Close the server and end the sessions it still runs."""
    server.close()
    await server.wait_closed()
    sessions = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
    for task in sessions:
        task.cancel()
    await asyncio.gather(*sessions, return_exceptions=True)


def test_start_backup_without_a_running_data_node_is_the_management_servers_error():
    cluster = Cluster(ClusterSpec(), parse_version(DEFAULT))
    for node_id in cluster.topology.data_node_ids:
        cluster.stop_node(node_id)
    seq = cluster.log.last_seq()
    with (
        _in_process_server(cluster) as port,
        MgmapiClient("127.0.0.1", port).connect() as client,
    ):
        result, backup_id = client.start_backup(wait_completed=1)
    assert (result, backup_id) == (ndb_error_string(5005), None)
    assert result == "Send to process or receive failed.: Permanent error: Application error"
    assert all(e.type.name != "BackupFailedToStart" for e in cluster.log.since(seq))


def test_parser_answers_as_services_cpp_and_parser_cpp(sim):
    port, host = sim.mgm_port, sim.host
    assert _ask(port, b"show me everything\n\n", host) == (
        "result: Unknown command, 'show me everything'\n\n"
    )
    assert _ask(port, b"get status\nfoo: 1\n\n", host) == "result: Unknown argument, 'foo'\n\n"
    assert _ask(port, b"start backup\nbackupid= abc\n\n", host) == (
        "result: Type mismatch, 'backupid'\n\n"
    )
    # the token named is the last line read: the blank line, not the missing argument
    assert _ask(port, b"dump events\n\n", host) == "result: Missing arg., '\n'\n\n"
    assert _ask(port, b"get mgmd nodeid\n\n", host) == "get mgmd nodeid reply\nnodeid:49\n\n"


def test_listener_gets_node_failure_and_pings_while_idle(sim):
    with socket.create_connection((sim.host, sim.mgm_port), timeout=10) as s:
        s.sendall(b"listen event\nparsable: 1\nfilter: NODERESTART=15\n\n")
        reader = s.makefile("r")
        assert [reader.readline() for _ in range(3)] == ["listen event\n", "result: 0\n", "\n"]
        assert reader.readline() == "<PING>\n"  # idle: nothing in NODERESTART yet
        sim.stop_node(2)
        event = None
        while event is None:
            line = reader.readline()
            if line == "log event reply\n":
                block = {}
                while (line := reader.readline()) != "\n":
                    key, _, value = line.strip().partition("=")
                    block[key] = value
                if block["type"] == "27":
                    event = block
        assert event["failed_node"] == "2" and event["source_nodeid"] == "1"
        assert {"time", "block", "completing_node"} <= set(event)
    sim.start_node(2)
