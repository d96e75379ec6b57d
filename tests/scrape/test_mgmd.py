"""The management server client's parsing and what it keeps from the cluster log, the
addresses it may read (flags, my.cnf, /probe), without a process."""

from __future__ import annotations

import pytest
from ndbinfo_exporter import mycnf, targets
from ndbinfo_exporter.errors import ConfigError
from ndbinfo_exporter.scrape.mgmd import protocol
from ndbinfo_exporter.scrape.mgmd.events import ClusterLogState
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
    assert state.arbitration == {"won": 0, "lost": 1}
    assert state.events[("BackupAborted", "2")] == 1 and state.events[("other", "1")] == 1


def test_warning_event_data_words_parse():
    event = _event("type=46", "source_nodeid=1", "data=1129336903 1869564237 0 ")
    assert event.name == "WarningEvent" and event.fields == {"data": 1129336903}


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
