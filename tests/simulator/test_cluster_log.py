"""The cluster log the model writes: backups, node failures and arbitration, thresholds; and
the management server's reply texts (no process)."""

from __future__ import annotations

import pytest
from ndbsim import versions
from ndbsim.model.cluster import Cluster, ClusterSpec
from ndbsim.protocol.mgm import replies
from ndbsim.protocol.mgm.server import ParseError, parse_filter


def _cluster() -> tuple[Cluster, list[float]]:
    now = [0.0]
    return Cluster(ClusterSpec(), versions.parse_version("8.4"), clock=lambda: now[0]), now


def _names(c: Cluster) -> list[str]:
    return [e.type.name for e in c.log.since(0) if e.type.name != "GlobalCheckpointCompleted"]


def test_backup_completes_with_its_size_and_the_id_ndbinfo_shows():
    c, now = _cluster()
    backup_id, error = c.start_backup()
    assert (backup_id, error) == (c.backup_id, 0)
    now[0] = 10
    c.advance()
    done = [e for e in c.log.since(0) if e.type.name == "BackupCompleted"]
    assert len(done) == 1 and done[0].fields["backup_id"] == backup_id
    assert done[0].fields["n_bytes"] > 0 and done[0].fields["n_records"] > 0


def test_backup_faults_abort_or_refuse_and_only_a_started_one_takes_an_id():
    c, now = _cluster()
    first = c.backup_id
    c.faults.set("backup-start-failure")
    assert c.start_backup() == (0, 1342)
    assert c.backup_id == first
    c.faults.clear("backup-start-failure")
    c.faults.set("backup-abort", error=1326)
    backup_id, _ = c.start_backup()
    now[0] = 1
    c.advance()
    aborted = [e for e in c.log.since(0) if e.type.name == "BackupAborted"]
    assert [(e.fields["backup_id"], e.fields["error"]) for e in aborted] == [(backup_id, 1326)]
    assert c.backup_id == first + 1
    assert "BackupFailedToStart" in _names(c)


def test_a_data_node_failure_aborts_the_running_backup():
    c, _ = _cluster()
    backup_id, _ = c.start_backup()
    c.stop_node(2)
    aborted = [e.fields for e in c.log.since(0) if e.type.name == "BackupAborted"]
    assert [(f["backup_id"], f["error"]) for f in aborted] == [(backup_id, 1326)]


def test_scheduled_backups_log_start_and_completion():
    c, now = _cluster()
    now[0] = 4 * 3600 + 5
    c.advance()
    assert _names(c).count("BackupStarted") == _names(c).count("BackupCompleted") == 1


def test_node_failure_without_arbitrator_loses_arbitration_and_stops_the_cluster():
    c, _ = _cluster()
    c.stop_node(2)
    c.start_node(2)
    assert "ArbitResult" in _names(c)
    c.reset()
    c.faults.set("arbitrator-lost")
    c.stop_node(2)
    lost = [e for e in c.log.since(0) if e.type.name == "ArbitResult"][-1]
    assert lost.fields["code"] == 48  # ArbitCode::LoseNorun
    assert not c.is_up()


def test_data_memory_crossing_thresholds_reports_memory_usage():
    c, now = _cluster()
    c.faults.set("data-memory", share=0.95)
    now[0] = 10  # DataMemory is looked at every 10 cluster seconds
    c.advance()
    usage = [e for e in c.log.since(0) if e.type.name == "MemoryUsage"]
    assert len(usage) == 2 and all(e.fields["gth"] == 1 for e in usage)


def test_parsable_and_plain_event_texts():
    c, _ = _cluster()
    c.stop_node(2)
    event = next(e for e in c.log.since(0) if e.type.name == "NodeFailCompleted")
    lines = replies.event_lines(event, parsable=True)
    assert lines[:2] == ["log event reply", "type=27"]
    assert "failed_node=2" in lines and lines[-1] == ""
    assert replies.event_lines(event, parsable=False) == [
        "Node 1: All nodes completed failure of Node 2"
    ]


@pytest.mark.parametrize(
    ("text", "levels"),
    [("BACKUP=15 NODERESTART=8", {"BACKUP": 15, "NODERESTART": 8}), ("261:7", {"BACKUP": 7})],
)
def test_filter(text, levels):
    assert parse_filter(text) == levels


@pytest.mark.parametrize("text", ["", "NOPE=1", "BACKUP=16", "BACKUP"])
def test_bad_filter(text):
    with pytest.raises(ParseError):
        parse_filter(text)
