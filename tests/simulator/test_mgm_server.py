"""ndbsim's management server read by a client written from the protocol's source formats
(storage/ndb/src/mgmsrv/Services.cpp, src/mgmapi/ndb_logevent.cpp), not the exporter's."""

from __future__ import annotations

import socket
import time

import pytest
from ndb_harness import running_ndbsim

pytestmark = pytest.mark.integration

NODE_KEYS = (
    "type",
    "status",
    "version",
    "mysql_version",
    "startphase",
    "dynamic_id",
    "node_group",
    "connect_count",
    "address",
)


def _ask(sim, command: str) -> list[str]:
    """Send one command (with its blank line) and read its reply up to the blank line."""
    with socket.create_connection((sim.host, sim.mgm_port), timeout=10) as s:
        s.sendall(command.encode() + b"\n\n")
        data = b""
        while not data.endswith(b"\n\n"):
            chunk = s.recv(65536)
            assert chunk, "the server closed the session"
            data += chunk
    return data.decode().splitlines()


def _pairs(lines: list[str]) -> dict[str, str]:
    return {k.strip(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:] if line)}


@pytest.fixture(scope="module")
def sim():
    with running_ndbsim() as handle:
        yield handle


def test_get_version(sim):
    lines = _ask(sim, "get version")
    assert lines[0] == "version"
    reply = _pairs(lines)
    major, minor, build = (int(reply[k]) for k in ("major", "minor", "build"))
    assert int(reply["id"]) == (major << 16) | (minor << 8) | build
    assert reply["string"].endswith(f"ndb-{major}.{minor}.{build}")


def test_get_status_lists_every_node(sim):
    lines = _ask(sim, "get status")
    assert lines[0] == "node status"
    reply = _pairs(lines)
    ids = {int(k.split(".")[1]) for k in reply if k.startswith("node.")}
    assert int(reply["nodes"]) == len(ids) == len(sim.status()["nodes"])
    for node_id in ids:
        assert all(f"node.{node_id}.{key}" in reply for key in NODE_KEYS)
    types = {reply[f"node.{n}.type"] for n in ids}
    assert types == {"NDB", "MGM", "API"}


def test_unknown_command_gets_the_servers_error(sim):
    assert _ask(sim, "show me everything")[0] == "result: Unknown command, 'show me everything'"
    assert _ask(sim, "get mgmd nodeid")[:2] == ["get mgmd nodeid reply", "nodeid:49"]


def test_listener_gets_node_failure_within_two_seconds_and_pings_while_idle(sim):
    with socket.create_connection((sim.host, sim.mgm_port), timeout=10) as s:
        s.sendall(b"listen event\nparsable: 1\nfilter: NODERESTART=15\n\n")
        reader = s.makefile("r")
        assert [reader.readline() for _ in range(3)] == ["listen event\n", "result: 0\n", "\n"]
        assert reader.readline() == "<PING>\n"  # idle: nothing in NODERESTART yet
        sim.stop_node(2)
        stopped = time.monotonic()
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
        assert time.monotonic() - stopped < 2.0
        assert event["failed_node"] == "2" and event["source_nodeid"] == "1"
        assert {"time", "block", "completing_node"} <= set(event)
    sim.start_node(2)
