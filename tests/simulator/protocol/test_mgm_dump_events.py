"""ndbsim's `dump events` replies against MgmApiSession::dump_events as the NDB source has it
(data/ndb-mgm/commands.json): the reply header, the keys of dump_events_reply, and the
`result:` texts the handler prints."""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

import pytest
from ndbsim.model.cluster import Cluster, ClusterSpec
from ndbsim.protocol.mgm import replies
from ndbsim.protocol.mgm.server import MgmServer
from ndbsim.versions import parse_version

COMMANDS = Path(__file__).resolve().parents[3] / "simulator" / "data" / "ndb-mgm" / "commands.json"
MEMORY_USAGE, BACKUP_STATUS, NOT_DUMPABLE = 50, 62, 10


@cache
def commands() -> dict:
    return json.loads(COMMANDS.read_text())


def reply_table() -> dict:
    return next(t for t in commands()["client_reply_tables"] if t["table"] == "dump_events_reply")


def result_patterns() -> list[re.Pattern]:
    """The handler's `result: ...` lines, their printf conversions as wildcards."""
    command = next(c for c in commands()["commands"] if c["command"] == "dump events")
    formats = [p["format"] for p in command["reply_printlns"] if p["format"].startswith("result:")]
    return [re.compile(re.sub(r"%[a-z]+", ".*", re.escape(f))) for f in formats]


def header_and_keys(lines: list[str]) -> tuple[str, dict[str, str]]:
    """The reply's first line and its `name: value` lines up to the blank line."""
    body = lines[1 : lines.index("")]
    return lines[0], dict(line.split(": ", 1) for line in body)


def cluster() -> Cluster:
    return Cluster(ClusterSpec(), parse_version("8.4"), clock=lambda: 1000.0)


@pytest.mark.parametrize("kind", [MEMORY_USAGE, BACKUP_STATUS, NOT_DUMPABLE])
def test_a_reply_has_the_header_keys_and_results_of_the_source(kind):
    header, keys = header_and_keys(replies.dump_events(cluster(), kind, []))
    assert header == reply_table()["reply_header"]
    assert set(keys) <= {arg["name"] for arg in reply_table()["reply_args"]}
    assert keys["result"] == "Ok" or any(
        p.fullmatch("result: " + keys["result"]) for p in result_patterns()
    )


def test_invalid_nodes_are_refused_with_the_sources_text():
    server = MgmServer(cluster())
    header, keys = header_and_keys(server._dump_events({"type": BACKUP_STATUS, "nodes": "0"}))
    assert header == reply_table()["reply_header"]
    assert any(p.fullmatch("result: " + keys["result"]) for p in result_patterns())
