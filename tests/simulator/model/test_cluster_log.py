"""The cluster log the model writes: backups, node failures and arbitration, thresholds, the
exit codes of forced stops in NDB's words; and the management server's reply texts (no
process)."""

from __future__ import annotations

import pytest
from ndbinfo_exporter.scrape.mgmd import exit_codes as exporter_exit_codes
from ndbsim import versions
from ndbsim.model import ndbd_exit_codes
from ndbsim.model.cluster import Cluster, ClusterSpec
from ndbsim.model.cluster_log import DBDICT, DBDIH, DBLQH, DBTC
from ndbsim.model.faults import DEFAULT_CRASH_ERROR
from ndbsim.model.ndb_tables import arbit_codes
from ndbsim.protocol.mgm import replies
from ndbsim.protocol.mgm.server import FilterError, parse_filter


def _cluster(spec: ClusterSpec | None = None) -> tuple[Cluster, list[float]]:
    now = [0.0]
    spec = spec or ClusterSpec()
    return Cluster(spec, versions.parse_version("8.4"), clock=lambda: now[0]), now


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


def _backup_status(c: Cluster) -> dict[int, dict[str, int]]:
    """Each data node's BackupStatus in the `dump events` reply, by node, as read back."""
    lines = replies.dump_events(c, 62, [])
    blocks = "\n".join(lines[4:]).strip().split("\n\n")
    reports = [dict(line.split("=") for line in block.splitlines()[1:]) for block in blocks]
    return {int(r.pop("source_nodeid")): {k: int(v) for k, v in r.items()} for r in reports}


def test_a_slow_backup_reports_growing_data_per_node_until_it_completes():
    c, now = _cluster()
    c.faults.set("slow-backup", seconds=60)
    backup_id, _ = c.start_backup()
    seen = []
    for t in (10, 30, 54, 59):
        now[0] = t
        c.advance()
        status = _backup_status(c)
        assert {s["backup_id"] for s in status.values()} == {backup_id}
        assert all(s["n_bytes_lo"] > 0 and s["n_records_lo"] > 0 for s in status.values())
        seen.append(
            tuple(sum(s[f] for s in status.values()) for f in ("n_bytes_lo", "n_records_lo"))
        )
    assert seen[0] < seen[1] < seen[2] == seen[3]  # the data scan ends, the backup waits its GCI
    assert _events(c, "BackupCompleted") == []
    now[0] = 60
    c.advance()
    (done,) = _events(c, "BackupCompleted")
    assert (done.fields["n_bytes"], done.fields["n_records"]) == seen[-1]
    assert {s["backup_id"] for s in _backup_status(c).values()} == {0}  # Backup not started


def test_scheduled_backups_log_start_and_completion():
    c, now = _cluster()
    now[0] = 4 * 3600 + 5
    c.advance()
    assert _names(c).count("BackupStarted") == _names(c).count("BackupCompleted") == 1


def _spec(**kw) -> ClusterSpec:
    return ClusterSpec(**kw)


def _arbit_results(c: Cluster) -> list[str]:
    """The ArbitResult codes by name (the code's low 16 bits; the state is in the high)."""
    names = {v: k for k, v in arbit_codes().items()}
    return [names[e.fields["code"] & 0xFFFF] for e in _events(c, "ArbitResult")]


def _events(c: Cluster, name: str) -> list:
    return [e for e in c.log.since(0) if e.type.name == name]


@pytest.mark.parametrize(
    ("layout", "stopped", "results", "up"),
    [
        ({"data_nodes": 4, "replicas": 2}, [1], ["WinGroups"], True),
        ({"data_nodes": 3, "replicas": 3}, [1], ["WinNodes"], True),
        ({"data_nodes": 2, "replicas": 2}, [2], ["Partitioning", "WinChoose"], True),
        ({"data_nodes": 4, "replicas": 2}, [1, 2], ["WinGroups", "LoseGroups"], False),
        ({"data_nodes": 4, "replicas": 1}, [1, 2, 3], ["LoseGroups"], False),
    ],
)
def test_arbitration_decides_as_handle_arbit_check(layout, stopped, results, up):
    c, _ = _cluster(_spec(**layout))
    for node in stopped:
        c.stop_node(node)
    assert _arbit_results(c) == results
    assert c.is_up() is up


def test_half_the_data_nodes_without_arbitrator_lose_norun_and_shut_down():
    c, _ = _cluster(_spec(data_nodes=4, replicas=2))
    c.faults.set("arbitrator-lost")
    c.stop_node(1)
    c.stop_node(3)
    assert _arbit_results(c) == ["WinGroups", "LoseNorun"]
    lost = _events(c, "ArbitResult")[-1]
    assert lost.fields["code"] >> 16 == 8  # ARBIT_CRASH
    assert lost.text == "Network partitioning - no arbitrator available"
    forced = _events(c, "NDBStopForced")
    assert sorted(e.source_node for e in forced) == [2, 4]
    assert {e.fields["error"] for e in forced} == {2305}  # NDBD_EXIT_ARBIT_SHUTDOWN
    assert not c.is_up()


@pytest.mark.parametrize(
    ("timeout", "event", "code"),
    [(False, "ArbitResult", "LoseChoose"), (True, "ArbitState", "ErrTimeout")],
)
def test_an_arbitrator_that_denies_or_does_not_answer_shuts_the_survivors_down(
    timeout, event, code
):
    c, _ = _cluster()
    c.faults.set("arbitration-denied", timeout=timeout)
    c.stop_node(2)
    last = _events(c, event)[-1]
    assert last.fields["code"] & 0xFFFF == arbit_codes()[code]
    assert "timeout" in last.text if timeout else "negative reply from node 49" in last.text
    assert not c.is_up()


def test_a_graceful_stop_then_the_survivors_failure_handling():
    c, _ = _cluster(_spec(data_nodes=4, replicas=2))
    c.stop_node(2)
    own = [e.type.name for e in c.log.since(0) if e.source_node == 2]
    assert own == ["NDBStopStarted", "NDBStopCompleted"]
    assert [e.source_node for e in _events(c, "Disconnected")] == [49, 1, 3, 4]
    assert len(_events(c, "NODE_FAILREP")) == 3
    done = _events(c, "NodeFailCompleted")
    blocks = {e.fields["block"] for e in done}
    assert blocks == {0, DBTC, DBLQH, DBDICT, DBDIH}
    assert len(done) == 3 * 6
    assert sum(e.text == "All nodes completed failure of Node 2" for e in done) == 3
    assert not _events(c, "NDBStopForced")


def test_a_crash_is_forced_and_stays_down_until_started():
    c, now = _cluster(_spec(data_nodes=4, replicas=2))
    c.faults.set("data-node-crash", node=3)
    forced = _events(c, "NDBStopForced")
    assert [(e.source_node, e.fields["error"], e.fields["sphase"]) for e in forced] == [
        (3, 2341, 255)
    ]
    assert forced[0].text == (
        "Forced node shutdown completed. Caused by error 2341: 'Internal program error (failed "
        "ndbrequire)(Internal error, programming error or missing error message, please report "
        "a bug). Temporary error, restart node'."
    )
    assert not _events(c, "NDBStopStarted")
    assert len(_events(c, "NODE_FAILREP")) == 3
    now[0] = 600
    c.advance()
    assert c.node_status(3)["state"] == "STOPPED"
    c.start_node(3)
    now[0] = 1200
    c.advance()
    assert c.node_status(3)["state"] == "STARTED"


@pytest.mark.parametrize(("error", "starttype"), [(2341, 2), (2310, 3)])
def test_start_phases_tell_a_node_restart_or_an_initial_one_after_a_file_system_error(
    error, starttype
):
    c, now = _cluster()
    c.faults.set("data-node-crash", node=2, error=error)
    c.faults.clear("data-node-crash")
    c.start_node(2)
    now[0] = 600
    c.advance()
    phases = _events(c, "StartPhaseCompleted")
    assert [e.fields["phase"] for e in phases] == list(range(1, 10))
    assert {e.fields["starttype"] for e in phases} == {starttype}
    kind = "(node restart)" if starttype == 2 else "(initial node restart)"
    assert phases[-1].text == f"Start phase 9 completed {kind}"
    assert [e.type.name for e in _events(c, "Connected")] == ["Connected"]


def test_a_crash_in_a_start_phase_reports_the_phase():
    c, now = _cluster()
    c.stop_node(2)
    c.faults.set("data-node-crash", node=2, phase=4)
    c.start_node(2)
    now[0] = 600
    c.advance()
    assert [e.fields["phase"] for e in _events(c, "StartPhaseCompleted")] == [1, 2, 3]
    forced = _events(c, "NDBStopForced")[-1]
    assert (forced.source_node, forced.fields["sphase"]) == (2, 4)
    assert "Occurred during startphase 4." in forced.text
    assert c.node_status(2)["state"] == "STOPPED"


@pytest.mark.parametrize("dies", [False, True])
def test_missed_heartbeats_are_reported_by_the_right_neighbour(dies):
    c, now = _cluster(_spec(data_nodes=4, replicas=2))
    c.faults.set("missed-heartbeats", node=2, dies=dies)
    now[0] = 40  # eight heartbeat checks of 5 s
    c.advance()
    missed = _events(c, "MissedHeartbeat")
    assert {e.source_node for e in missed} == {3}
    if dies:
        assert [e.fields["count"] for e in missed] == [2, 3, 4]
        dead = _events(c, "DeadDueToHeartbeat")
        assert [(e.source_node, e.fields["node"]) for e in dead] == [(3, 2)]
        assert _events(c, "NDBStopForced")[0].fields["error"] == 2315
        assert c.node_status(2)["state"] == "STOPPED"
    else:
        assert [e.fields["count"] for e in missed] == [2, 3, 2, 3]
        assert not _events(c, "DeadDueToHeartbeat")
        assert c.node_status(2)["state"] == "STARTED"


def test_lcp_stopped_in_calc_keep_gci_once_and_the_lcp_stalls():
    c, now = _cluster()
    c.faults.set("lcp-keep-gci-stall")
    completed = c.checkpoints.last.lcp_id
    for t in (100, 200, 300):
        now[0] = t
        c.advance()
    stopped = _events(c, "LCPStoppedInCalcKeepGci")
    assert (
        len(stopped) == 1 and stopped[0].text == "Local Checkpoint stopped in CALCULATED_KEEP_GCI"
    )
    assert c.checkpoints.last.lcp_id <= completed + 1


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
    event = _events(c, "NodeFailCompleted")[-1]
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
    with pytest.raises(FilterError):
        parse_filter(text)


@pytest.mark.parametrize(
    "error",
    [
        ndbd_exit_codes.ARBIT_SHUTDOWN,
        ndbd_exit_codes.SR_REDOLOG,
        ndbd_exit_codes.NODE_DECLARED_DEAD,
        ndbd_exit_codes.NDBREQUIRE,
        DEFAULT_CRASH_ERROR,
    ],
)
def test_ndbsim_words_its_exit_codes_as_the_exporters_table_of_ndb(error):
    """ndbsim's own copy of ndbd_exit_codes.cpp (the codes it stops nodes with) says what the
    exporter's table parsed from the same source says: message, classification and status, as
    getTextNDBStopForced puts them together."""
    code = exporter_exit_codes.exit_code(error)
    assert code.classification != "unknown", f"{error} is not in errArray"
    assert ndbd_exit_codes.exit_status(error) == code.status
    for phase in (4, ndbd_exit_codes.NO_START_PHASE):
        assert ndbd_exit_codes.stop_forced_text(error, phase) == (
            exporter_exit_codes.stop_forced_text(error, 0, phase, 0, 0)
        )
