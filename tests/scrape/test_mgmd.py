"""The management server client's parsing and what it keeps from the cluster log, the
addresses it may read (flags, my.cnf, /probe), without a process."""

from __future__ import annotations

import pytest
from ndbinfo_exporter import mycnf, targets
from ndbinfo_exporter.errors import ConfigError
from ndbinfo_exporter.scrape.mgmd import client, exit_codes, protocol, reader
from ndbinfo_exporter.scrape.mgmd.client import Subscription
from ndbinfo_exporter.scrape.mgmd.events import ClusterLogState, arbitration_result
from ndbinfo_exporter.scrape.mgmd.reader import MgmdReader, log_families
from ndbinfo_exporter.targets import ProbeRefused

STATUS = """node status
nodes: 2
node.1.type: NDB
node.1.status: STARTING
node.1.version: 525315
node.1.startphase: 5
node.1.connect_count: 3
node.49.type: MGM
node.49.status: CONNECTED
node.49.connect_count: 1""".splitlines()


def test_get_status_reply():
    nodes = protocol.node_statuses(protocol.reply_values(STATUS, "node status"))
    assert [(n.node_id, n.type, n.status, n.start_phase) for n in nodes] == [
        (1, "NDB", "STARTING", 5),
        (49, "MGM", "CONNECTED", 0),
    ]


@pytest.mark.parametrize(
    "lines", [["node status", "nodes: 3", *STATUS[2:]], ["result: Unknown command, 'x'"]]
)
def test_malformed_status_is_a_protocol_error(lines):
    with pytest.raises(protocol.ProtocolError):
        protocol.node_statuses(protocol.reply_values(lines, "node status"))


def _event(*lines: str) -> protocol.Event:
    return protocol.event(["time=0", *lines])


def test_cluster_log_state_counts_events_and_keeps_the_last_backup():
    state = ClusterLogState(clock=lambda: 1000.0)
    state.record(_event("type=54", "source_nodeid=1", "starting_node=49", "backup_id=7"))
    completed = ("type=56", "source_nodeid=1", "backup_id=7", "n_bytes=5", "n_records=9")
    state.record(_event(*completed, "n_bytes_hi=1"))
    state.record(_event("type=57", "source_nodeid=2", "backup_id=8", "error=1325"))
    state.record(_event("type=55", "source_nodeid=2", "error=1342"))
    state.record(_event("type=30", "source_nodeid=1", "code=48", "arbit_node=0"))
    state.record(_event("type=999", "source_nodeid=1"))
    backup = state.last_backup
    assert (backup.backup_id, backup.bytes, backup.records, backup.end_time) == (
        7,
        (1 << 32) + 5,
        9,
        1000.0,
    )
    assert (state.backups_aborted, state.backups_failed_to_start) == (1, 1)
    assert {key: n for key, n in state.arbitration.items() if n} == {("lost", "LoseNorun"): 1}
    assert state.events[("BackupAborted", "2")] == 1 and state.events[("other", "1")] == 1


def test_warning_event_data_words_parse():
    event = _event("type=46", "source_nodeid=1", "data=1129336903 1869564237 0 ")
    assert event.name == "WarningEvent" and event.fields == {"data": 1129336903}
    assert event.data == (1129336903, 1869564237, 0)


def test_get_status_as_mgmapi_reads_it():
    """status_ackumulate: SINGLE USER MODE is SINGLEUSER, DB is NDB, any other text
    UNKNOWN; a node without node_group, dynamic_id or connect_count keeps their defaults."""
    lines = [
        "node status",
        "nodes: 3",
        "node.1.type: DB",
        "node.1.status: SINGLE USER MODE",
        "node.1.node_group: 0",
        "node.1.dynamic_id: 1",
        "node.2.type: NDB",
        "node.2.status: NO_CONTACT",
        "node.51.type: API",
        "node.51.status: SOMETHING NEW",
        "node.51.address: fe80::1",
    ]
    nodes = protocol.node_statuses(protocol.reply_values(lines, "node status"))
    assert [(n.node_id, n.type, n.status, n.node_group, n.connect_count) for n in nodes] == [
        (1, "NDB", "SINGLEUSER", 0, 0),
        (2, "NDB", "NO_CONTACT", None, 0),
        (51, "API", "UNKNOWN", None, 0),
    ]


@pytest.mark.parametrize("line", ["node.0.type: NDB", "nodex.1.type: NDB"])
def test_get_status_line_mgmapi_refuses(line):
    with pytest.raises(protocol.ProtocolError):
        protocol.node_statuses({"nodes": "1", line.split(": ")[0]: "x"})


def test_get_status_key_of_a_newer_server_is_passed_over():
    (node,) = protocol.node_statuses(
        {"nodes": "1", "node.1.type": "NDB", "node.1.status": "STARTED", "node.1.colour": "red"}
    )
    assert (node.type, node.status) == ("NDB", "STARTED")


@pytest.mark.parametrize(
    "lines, result",
    [
        (("type=30", "code=41"), "lost"),
        (("type=30", "code=42"), "won"),
        (("type=30", f"code={46 | 7 << 16}"), "won"),
        (("type=30", "code=50"), "won"),
        (("type=30", f"code={45 | 6 << 16}"), None),  # Partitioning: the arbitrator decides
        (("type=29", f"code={94 | 7 << 16}"), "timeout"),  # no answer while choosing
        (("type=29", f"code={94 | 5 << 16}"), None),  # no answer to start: tried again
        (("type=29", "code=31"), None),
    ],
)
def test_arbitration_results_follow_qmgr(lines, result):
    assert arbitration_result(_event(*lines, "source_nodeid=1")) == result


def test_cluster_log_state_tables_by_node():
    state = ClusterLogState(clock=lambda: 50.0)
    for lines in (
        ("type=59", "source_nodeid=3", "action=1", "signum=0", "error=2341", "sphase=4"),
        ("type=45", "source_nodeid=1", "node=2"),
        ("type=44", "source_nodeid=1", "node=2", "count=3"),
        ("type=44", "source_nodeid=1", "node=2", "count=4"),
        ("type=28", "source_nodeid=1", "failed_node=2", "failure_state=1"),
        ("type=69", "source_nodeid=1", "data=1 52 7 1234 100 100 0 "),
        ("type=69", "source_nodeid=1", "data=2 0 7 1234 "),
        ("type=5", "source_nodeid=1", "gci=-5"),
        (
            "type=87",
            "source_nodeid=51",
            "usage_l=-2",
            "usage_h=1",
            "alloc_l=10",
            "max_l=0",
            "max_h=2",
        ),
        ("type=85", "source_nodeid=52", "usage=5", "alloc=6", "max=7"),
    ):
        state.record(_event(*lines))
    assert state.forced_stops["3"].error == 2341 and state.forced_stops["3"].start_phase == 4
    assert (state.heartbeat_deaths, state.heartbeats_missed) == ({"2": 1}, {"2": 2})
    assert state.node_failures == {"2": 1} and state.subscribers_disconnected == {"52": 1}
    assert state.global_checkpoint.gci == 2**32 - 5 and state.global_checkpoint.time == 50.0
    assert state.event_buffers["51"].used == (1 << 32) + 2**32 - 2
    assert state.event_buffers["51"].max == 2 << 32
    assert state.event_buffers["52"].allocated == 6


def test_reader_families_carry_the_cluster_log_tables():
    state = ClusterLogState(clock=lambda: 50.0)
    state.record(_event("type=45", "source_nodeid=1", "node=12"))
    state.record(_event("type=45", "source_nodeid=1", "node=3"))
    state.record(_event("type=5", "source_nodeid=1", "gci=900"))
    families = {f.name: f for f in log_families(state, Subscription([], lambda e: None))}
    deaths = families["ndb_mgmd_heartbeat_deaths"].samples
    assert [s.labels["node_id"] for s in deaths] == ["3", "12"]
    assert families["ndb_mgmd_global_checkpoint_gci"].samples[0].value == 900


async def test_a_state_read_builds_no_families(monkeypatch):
    """The view, check and report read the state (``current``): one `get status` while it is
    fresh, and no metric family built; a scrape (``families``) reads `get status` again."""
    asked = []

    async def get_status(address):
        asked.append(address)
        return protocol.node_statuses(protocol.reply_values(STATUS, "node status"))

    def no_families(*args):
        raise AssertionError("metric families built for a state read")

    monkeypatch.setattr(client, "get_status", get_status)
    manager = MgmdReader([("mgm1", 1186)])
    monkeypatch.setattr(manager.subscription, "start", lambda: None)
    with monkeypatch.context() as patched:
        for name in ("up_family", "node_families", "log_families"):
            patched.setattr(reader, name, no_families)
        state = await manager.current(1.0, max_age=60.0)
        again = await manager.current(1.0, max_age=60.0)
    assert (state.answered, [n.node_id for n in state.nodes]) == ((("mgm1:1186", True),), [1, 49])
    assert again.read_at == state.read_at and len(asked) == 1
    families = {f.name: f for f in await manager.families(1.0)}
    assert len(asked) == 2
    assert [(s.labels, s.value) for s in families["ndb_mgmd_up"].samples] == [
        ({"address": "mgm1:1186"}, 1.0)
    ]


def test_configured_and_probed_management_servers():
    built = targets.build({}, "db:3306", "u", "p", ("mgm*.example:*",), ("m1", "m2:1187"))
    assert built.mgmd == (("m1", 1186), ("m2", 1187))
    assert built.mgmd_for_probe(["M1:1186", "mgm3.example:1186"]) == (
        ("m1", 1186),
        ("mgm3.example", 1186),
    )
    with pytest.raises(ProbeRefused) as refused:
        built.mgmd_for_probe(["evil.example:1186"])
    assert refused.value.status == 403
    with pytest.raises(ConfigError):
        targets.build({}, "db:3306", "u", "p", (), ("a", "b", "c"))


def test_connectstring_from_my_cnf(tmp_path):
    cnf = tmp_path / "my.cnf"
    cnf.write_text("[client]\nuser=u\n[mysql_cluster]\nndb-connectstring=nodeid=4,m1:1186,m2\n")
    assert mycnf.connectstring(cnf) == ("m1:1186", "m2")


def test_counters_an_alert_reads_start_at_zero_for_every_listed_node():
    state = ClusterLogState(clock=lambda: 1000.0)
    state.know_nodes([1, 2], [51])
    assert state.events[("NDBStopForced", "2")] == 0
    assert (state.heartbeat_deaths["1"], state.subscribers_disconnected["51"]) == (0, 0)
    state.record(_event("type=59", "source_nodeid=2", "error=2341"))
    state.know_nodes([1, 2], [51])  # a later get status keeps the count
    assert state.events[("NDBStopForced", "2")] == 1


# NDBStopForced as ndb_mgmd forwards it (parsable listen event, the wire keys of
# ndb_logevent.cpp; the first as ndbsim's management server sends it): node 3 fails an
# ndbrequire after it started, node 2 crashes in start phase 4 with a file system error and
# its angel restarts it initial, node 4 is killed by SIGKILL, node 3 is declared dead.
FORCED_STOPS = (
    "type=59\ntime=0\nsource_nodeid=3\naction=0\nsignum=0\nerror=2341\nsphase=255\nextra=0",
    "type=59\ntime=0\nsource_nodeid=2\naction=5\nsignum=0\nerror=2815\nsphase=4\nextra=0",
    "type=59\ntime=0\nsource_nodeid=4\naction=0\nsignum=9\nerror=0\nsphase=255\nextra=0",
    "type=59\ntime=0\nsource_nodeid=3\naction=0\nsignum=0\nerror=2315\nsphase=255\nextra=0",
)


def forced_stops_state() -> ClusterLogState:
    state = ClusterLogState(clock=lambda: 1000.0)
    for block in FORCED_STOPS:
        state.record(protocol.event(block.split("\n")))
    return state


def test_last_forced_stop_per_node_with_ndbs_words_for_its_exit_code():
    families = {
        f.name: f for f in log_families(forced_stops_state(), Subscription([], lambda e: None))
    }
    info = families["ndb_mgmd_node_last_forced_stop_info"].samples
    assert [(s.labels, s.value) for s in info] == [
        (
            {
                "node_id": "2",
                "error": "2815",
                "signal": "0",
                "message": "File not found",
                "classification": "filesystem_inconsistency_error",
                "status": "filesystem_error",
            },
            1.0,
        ),
        (
            {
                "node_id": "3",
                "error": "2315",
                "signal": "0",
                "message": "Node declared dead. See error log for details",
                "classification": "arbitration_error",
                "status": "temporary",
            },
            1.0,
        ),
        (
            {
                "node_id": "4",
                "error": "0",
                "signal": "9",
                "message": "",
                "classification": "",
                "status": "",
            },
            1.0,
        ),
    ]
    counts = families["ndb_mgmd_node_forced_stops"].samples
    assert [(s.labels["node_id"], s.labels["error"], s.value) for s in counts] == [
        ("2", "2815", 1),
        ("3", "2315", 1),
        ("3", "2341", 1),
        ("4", "0", 1),
    ]
    phases = families["ndb_mgmd_node_forced_stop_start_phase"].samples
    assert [(s.labels["node_id"], s.value) for s in phases] == [("2", 4), ("3", 255), ("4", 255)]


def test_forced_stop_text_is_eventloggers():
    """getTextNDBStopForced: the phase only below 255, the restart action only with a signal,
    the exit code in NDB's words."""
    texts = [e.text for e in forced_stops_state().recent]
    assert texts == [
        "Forced node shutdown completed. Caused by error 2341: 'Internal program error (failed "
        "ndbrequire)(Internal error, programming error or missing error message, please report "
        "a bug). Temporary error, restart node'.",
        "Forced node shutdown completed. Occurred during startphase 4. Caused by error 2815: "
        "'File not found(Ndbd file system inconsistency error, please report a bug). Ndbd file "
        "system error, restart node initial'.",
        "Forced node shutdown completed. Initiated by signal 9.",
        "Forced node shutdown completed. Caused by error 2315: 'Node declared dead. See error "
        "log for details(Arbitration error). Temporary error, restart node'.",
    ]


def test_exit_code_table_is_the_whole_errarray():
    """exporter/data/ndbd-exit-codes.json: every errArray[] row in source order, named by
    ndbd_exit_codes.h, each classification with its status; a code is looked up as
    ndbd_exit_message() does (first row, else the sentinel)."""
    table = exit_codes.table()
    assert {s["path"] for s in table["source"]} == {
        "storage/ndb/src/mgmapi/ndbd_exit_codes.cpp",
        "storage/ndb/include/mgmapi/ndbd_exit_codes.h",
    }
    assert all(len(s["commit"]) == 40 for s in table["source"])
    rows = table["codes"]
    assert len(rows) == 76 and len({r["code"] for r in rows}) == 75
    assert [r["line"] for r in rows] == sorted(r["line"] for r in rows)
    assert {r["code"] for r in rows if r["name"] is None} == {2311, 2802, 2803}
    assert len(exit_codes.classifications()) == 10
    assert {r["classification"] for r in rows} <= set(exit_codes.classifications())
    # 2311 is in errArray twice: the first row wins, as in ndbd_exit_message()
    assert [r.get("shadowed", False) for r in rows if r["code"] == 2311] == [False, True]
    assert exit_codes.exit_code(2311).message == "Conflict when selecting restart type"
    assert exit_codes.exit_code(2303)[1:4] == (
        "System error, node killed during node restart by other node",
        "internal_error",
        "Internal error, programming error or missing error message, please report a bug",
    )
    assert exit_codes.exit_code(2302).message.startswith("node id in the configuration")
    unknown = exit_codes.exit_code(1234)
    assert (unknown.classification, unknown.status_text) == ("unknown", "Unknown")
    assert unknown.message.startswith("No message slogan found")
