"""The replication link over cluster time: the injector's epochs, the binlog files and index,
the replica's threads, and each link fault's effect and return to healthy."""

from __future__ import annotations

import pytest
from ndbsim.model.binlog import BINLOG_BYTES_PER_EPOCH
from ndbsim.model.cluster import Cluster, ClusterSpec
from ndbsim.model.faults import FaultError
from ndbsim.model.replication import INJECTOR_BEHIND_GCIS, SOURCE_REFUSED, ReplicationLink
from ndbsim.versions import parse_version


class Pair:
    def __init__(
        self,
        version_name: str = "8.4",
        ops_per_second: float = 2000.0,
        binlog_servers: int = 1,
        max_binlog_size: int = 1 << 30,
        active_active: bool = False,
    ) -> None:
        self.now = 1000.0
        version = parse_version(version_name)
        source = ClusterSpec(tables=4, ops_per_second=ops_per_second)
        self.source = Cluster(source, version, clock=lambda: self.now)
        self.replica = Cluster(ClusterSpec(tables=4, seed=2), version, clock=lambda: self.now)
        self.link = ReplicationLink(self.source, self.replica, 157, binlog_servers, max_binlog_size)
        self.back = ReplicationLink(self.replica, self.source, 157) if active_active else None

    def tick(self, seconds: float) -> dict:
        """`seconds` later; an active-active pair's links each read every second, as the
        appliers of both clusters commit one after the other."""
        if self.back is not None:
            for _ in range(int(seconds)):
                self.now += 1
                self.link.snapshot()
                self.back.snapshot()
            return self.link.snapshot()
        self.now += seconds
        return self.link.snapshot()


@pytest.fixture
def pair() -> Pair:
    return Pair()


def gci(epoch: int) -> int:
    return epoch >> 32


def test_the_binlog_grows_and_the_replica_follows(pair):
    first = pair.tick(5)
    later = pair.tick(20)
    assert later["binlog_position"] > first["binlog_position"] > 157
    assert gci(later["written_epoch"]) > gci(first["written_epoch"])
    assert later["handled_epoch"] == later["received_epoch"] <= later["buffered_epoch"]
    assert later["applied_epoch"] == later["written_epoch"]
    assert later["seconds_behind"] == 0
    assert later["applied_writes"] > 0 and later["data_events"] > 0
    values = pair.replica.global_status()
    # one-way: no ndb_apply_status row carries the replica's own server id
    assert values["Ndb_replica_max_replicated_epoch"] == 0
    assert values["Ndb_api_pk_op_count_replica"] > 0
    # only the applier SQL node applies
    assert "Ndb_api_pk_op_count_replica" not in pair.replica.global_status(
        pair.replica.sql_node_ids[1]
    )


def chained(rows) -> bool:
    """Each row starts where the one before it ended: no epoch's changes left out."""
    return all(
        (r.file, r.position) == (before.next_file, before.next_position)
        for before, r in zip(rows, rows[1:], strict=False)
    )


def test_the_index_keeps_every_epoch_until_its_file_is_purged():
    pair = Pair(max_binlog_size=400_000)
    pair.link.primary.expire_seconds = 60
    for _ in range(60):
        snap = pair.tick(2)
    rows = list(pair.link.primary.index_rows())
    files = [name for name, _ in snap["files"]]
    assert len(files) >= 2 and files[0] != "binlog.000001"  # the oldest were purged
    assert {r.file for r in rows} == set(files)  # with their rows, and only theirs
    assert chained(rows)
    epochs = [r.epoch for r in rows]
    per_gci = 20  # TimeBetweenGlobalCheckpoints / TimeBetweenEpochs
    ordinals = [(e >> 32) * per_gci + (e & 0xFFFFFFFF) for e in epochs]
    assert ordinals == list(range(ordinals[0], ordinals[0] + len(ordinals)))  # every epoch
    assert len(rows) > 500 and len(pair.link.primary.segments) <= 60


def test_the_failover_position_follows_the_newest_applied_epoch(pair):
    """The manual's failover query over ndb_binlog_index with replica-behind 900: the first
    epoch after the replica's newest applied one starts where the replica stopped."""
    pair.tick(1200)
    for _ in range(5):
        pair.tick(1)
    pair.source.faults.set("replica-behind", seconds=900)
    snap = pair.tick(1)
    latest = snap["applied_epoch"]
    assert gci(snap["written_epoch"]) - gci(latest) == 450
    first_after = next(r for r in pair.link.primary.index_rows() if r.epoch > latest)
    file, _, end = snap["applied_transaction"]
    assert (first_after.file, first_after.position) == (file, end)
    assert (snap["applied"].file, snap["applied"].position) == (file, end)


def test_the_index_and_files_of_7x_are_never_purged():
    pair = Pair("7.6", max_binlog_size=400_000)
    for _ in range(30):
        snap = pair.tick(4)
    assert snap["files"][0][0] == "binlog.000001" and len(snap["files"]) >= 3
    assert chained(list(pair.link.primary.index_rows()))


def test_replica_behind_lags_at_once_and_recovers(pair):
    pair.tick(5)
    pair.source.faults.set("replica-behind")
    snap = pair.tick(1)
    assert snap["seconds_behind"] == 900
    assert gci(snap["written_epoch"]) - gci(snap["applied_epoch"]) > 150
    pair.source.faults.clear("replica-behind")
    snap = pair.tick(1)
    assert snap["seconds_behind"] == 0 and snap["applied_epoch"] == snap["written_epoch"]


def test_a_stopped_sql_thread_keeps_its_epoch(pair):
    pair.tick(5)
    pair.source.faults.set("replica-sql-error")
    stopped = pair.tick(1)
    later = pair.tick(10)
    assert later["sql_running"] == "No" and later["sql_error"].errno == 1032
    assert later["applied_epoch"] == stopped["applied_epoch"] < later["written_epoch"]
    assert later["seconds_behind"] is None
    pair.source.reset()
    caught_up = pair.tick(1)
    assert caught_up["sql_running"] == "Yes"
    assert caught_up["applied_epoch"] == caught_up["written_epoch"]


def test_subscriber_lag_in_epochs_stays_in_the_gci_that_gcp_save_lag_holds(pair):
    """While GCP_SAVE lags the GCI stands and its micro GCPs go on: a subscriber 60 epochs
    behind has the same GCI, 60 micro GCPs back; `gcis` counts 20 epochs a GCI."""
    pair.source.faults.set("gcp-save-lag")
    pair.tick(30)
    pair.source.faults.set("subscriber-lag", epochs=60)
    snap = pair.tick(1)
    cluster = pair.source.checkpoints.epoch
    assert snap["buffered_epoch"] == cluster - 60 and gci(cluster) == snap["source_gci"]
    assert snap["handled_epoch"] <= snap["buffered_epoch"]
    pair.source.faults.clear("gcp-save-lag")
    pair.source.faults.set("subscriber-lag", gcis=3)
    snap = pair.tick(5)
    cluster = pair.source.checkpoints.epoch
    assert (gci(snap["buffered_epoch"]), snap["buffered_epoch"] & 0xFFFFFFFF) == (
        gci(cluster) - 3,
        cluster & 0xFFFFFFFF,
    )
    with pytest.raises(FaultError, match="gcis or epochs"):
        pair.source.faults.set("subscriber-lag", gcis=3, epochs=60)
    pair.source.reset()
    assert pair.tick(1)["buffered_epoch"] == pair.source.checkpoints.epoch


def test_injector_behind_and_its_gap(pair):
    pair.tick(5)
    pair.source.faults.set("injector-behind")
    snap = pair.tick(1)
    assert snap["source_gci"] - gci(snap["handled_epoch"]) == INJECTOR_BEHIND_GCIS
    assert snap["source_gci"] - gci(snap["written_epoch"]) >= INJECTOR_BEHIND_GCIS
    assert gci(snap["buffered_epoch"]) - gci(snap["received_epoch"]) > 10
    assert snap["sql_running"] == "Yes" and snap["applied_epoch"] <= snap["written_epoch"]
    pair.source.faults.set("injector-behind", gap="true")
    snap = pair.tick(1)
    assert snap["incident"] is not None and snap["sql_error"].errno == 1590
    pair.source.faults.clear("injector-behind")
    snap = pair.tick(1)
    assert snap["incident"] is None and snap["sql_running"] == "Yes"
    assert snap["source_gci"] - gci(snap["handled_epoch"]) <= 1


def test_io_disconnect_counts_its_attempts(pair):
    pair.tick(5)
    pair.source.faults.set("replica-io-disconnect")
    snap = pair.tick(130)
    assert snap["io_running"] == "Connecting" and snap["io_error"].errno == 2003
    assert snap["io_attempts"] == 3
    assert snap["received"].position < snap["binlog_position"]
    # the SQL thread applied what was received and the I/O thread is not connected
    assert snap["seconds_behind"] is None
    pair.source.faults.clear("replica-io-disconnect")
    snap = pair.tick(1)
    assert snap["io_running"] == "Yes" and snap["received"].position == snap["binlog_position"]


def test_seconds_behind_is_computed_while_relay_log_remains(pair):
    """With the I/O thread down, Seconds_Behind_Source is known while the SQL thread has
    relay log to apply, NULL once it has applied all of it (show_slave_status_send_data)."""
    pair.tick(5)
    pair.source.faults.set("replica-io-disconnect")
    pair.source.faults.set("replica-behind", seconds=30)
    snap = pair.tick(10)
    assert snap["io_running"] == "Connecting" and snap["seconds_behind"] == 30
    assert snap["applying"] in ("write", "update", "delete")
    pair.source.faults.clear("replica-behind")
    snap = pair.tick(1)
    assert snap["seconds_behind"] is None and snap["applying"] is None


@pytest.mark.parametrize(("version", "running"), [("8.4", "No"), ("8.0", "Connecting")])
def test_from_84_the_io_thread_stops_when_its_tenth_attempt_fails(version, running):
    """One attempt at once, then one every 60 s: the tenth fails 540 s after the first, and
    with SOURCE_RETRY_COUNT 10 (8.4) the thread stops then, without another wait."""
    pair = Pair(version)
    pair.tick(5)
    pair.source.faults.set("replica-io-disconnect")
    snap = pair.tick(539)
    assert snap["io_running"] == "Connecting" and snap["io_attempts"] == 9
    snap = pair.tick(1)
    assert snap["io_running"] == running and snap["io_attempts"] == 10
    snap = pair.tick(60)
    assert snap["io_running"] == running
    assert snap["io_attempts"] == (10 if running == "No" else 11)


def test_conflicts_move_the_applying_sql_nodes_counters(pair):
    pair.tick(5)
    pair.source.faults.set("conflicts")
    pair.tick(10)
    values = pair.replica.global_status()
    assert values["Ndb_conflict_fn_epoch2"] == 30
    assert values["Ndb_conflict_epoch_delete_delete_count"] == 3
    assert "Ndb_conflict_trans_row_conflict_count" not in values  # 0, the server's start value
    assert values["Ndb_conflict_last_conflict_epoch"] > 0
    # refresh and reflected operations are counted where the secondary applies them
    assert "Ndb_conflict_refresh_op_count" not in values
    assert "Ndb_conflict_reflected_op_prepare_count" not in values
    # the max replicated epoch, 0 one-way, not the applied epoch
    assert values["Ndb_conflict_last_stable_epoch"] == 0
    assert values["Ndb_replica_max_replicated_epoch"] == 0
    assert not any(name.startswith("Ndb_conflict") for name in pair.source.global_status())
    pair.source.faults.clear("conflicts")
    pair.tick(10)
    assert pair.replica.global_status()["Ndb_conflict_fn_epoch2"] == 30


def test_conflicts_move_only_when_the_applier_commits(pair):
    """Counted as the applier commits its epoch transactions: none while the SQL thread is
    stopped, those of the epochs it catches up when it runs again."""
    pair.tick(5)
    pair.source.faults.set("conflicts")
    pair.source.faults.set("replica-sql-error")
    pair.tick(10)
    assert "Ndb_conflict_fn_epoch2" not in pair.replica.global_status()
    pair.source.faults.clear("replica-sql-error")
    pair.tick(1)
    assert pair.replica.global_status()["Ndb_conflict_fn_epoch2"] == 33


def test_no_writes_no_conflicts():
    pair = Pair(ops_per_second=0)
    pair.tick(5)
    pair.source.faults.set("conflicts")
    pair.tick(30)
    values = pair.replica.global_status()
    assert not [name for name in values if name.startswith("Ndb_conflict_fn")]


def test_only_transactional_functions_move_the_trans_counters(pair):
    pair.tick(5)
    pair.source.faults.set("conflicts", function="ndb$epoch_trans")
    pair.tick(10)
    values = pair.replica.global_status()
    assert values["Ndb_conflict_fn_epoch_trans"] == 30
    assert values["Ndb_conflict_trans_row_conflict_count"] == 30
    assert "Ndb_conflict_fn_epoch2" not in values
    # rows in conflict belong to fewer transactions, whose rows are all realigned (refreshed);
    # an epoch with a conflict commits after one dependency-tracking pass
    rejected = values["Ndb_conflict_trans_reject_count"]
    assert 0 < rejected < 30 < values["Ndb_conflict_trans_row_reject_count"]
    commits = values["Ndb_conflict_trans_conflict_commit_count"]
    assert 0 < commits <= rejected and values["Ndb_conflict_trans_detect_iter_count"] == commits
    assert values["Ndb_conflict_last_stable_epoch"] == 0


# --- an active-active pair: the replica cluster the primary, the source the secondary ----------


@pytest.fixture
def circle() -> Pair:
    pair = Pair(active_active=True)
    pair.tick(5)
    return pair


def conflict_values(cluster) -> dict[str, int]:
    values = cluster.global_status()
    return {
        name.removeprefix("Ndb_conflict_"): value
        for name, value in values.items()
        if name.startswith("Ndb_conflict_") or name == "Ndb_replica_max_replicated_epoch"
    }


def test_each_cluster_sees_its_own_epochs_come_back_round(circle):
    """Without conflicts, each commit makes the max replicated epoch the last stable one."""
    circle.tick(10)
    for cluster in (circle.source, circle.replica):
        values = conflict_values(cluster)
        max_rep = values["Ndb_replica_max_replicated_epoch"]
        assert 0 < max_rep <= cluster.checkpoints.epoch
        assert values["last_stable_epoch"] == max_rep and values["last_conflict_epoch"] == 0
    assert circle.source.server_id(50) == 1 and circle.replica.server_id(50) == 101


def test_conflicts_on_the_primary_are_resolved_on_the_secondary(circle):
    """The primary finds the rows in conflict and logs refresh and reflected operations; the
    secondary applies them; the pair has converged once the primary's epoch of its last
    conflict has come back round (its last stable epoch reaches its last conflict epoch)."""
    circle.source.faults.set("conflicts")
    circle.tick(10)
    primary, secondary = conflict_values(circle.replica), conflict_values(circle.source)
    assert primary["fn_epoch2"] == 30 and primary["epoch_delete_delete_count"] == 3
    assert primary["last_conflict_epoch"] > primary["last_stable_epoch"]
    assert "refresh_op_count" not in primary and "fn_epoch2" not in secondary
    assert secondary["refresh_op_count"] >= 24 and secondary["reflected_op_prepare_count"] >= 24
    assert secondary["last_conflict_epoch"] > 0
    circle.source.faults.clear("conflicts")
    circle.tick(5)
    primary, secondary = conflict_values(circle.replica), conflict_values(circle.source)
    assert primary["fn_epoch2"] == 30
    assert primary["last_stable_epoch"] >= primary["last_conflict_epoch"] > 0
    assert secondary["refresh_op_count"] == 27  # the rows not deleted on both sides
    assert secondary["last_stable_epoch"] >= secondary["last_conflict_epoch"] > 0


def test_a_stopped_secondary_keeps_the_pair_apart(circle):
    """With the secondary's SQL thread stopped (a fault of the link from the primary), the
    realignment never comes back: the primary does not converge, and the secondary counts
    nothing until it runs again."""
    circle.source.faults.set("conflicts")
    circle.replica.faults.set("replica-sql-error")
    circle.tick(10)
    circle.source.faults.clear("conflicts")
    circle.tick(10)
    primary, secondary = conflict_values(circle.replica), conflict_values(circle.source)
    assert primary["fn_epoch2"] == 30
    assert primary["last_stable_epoch"] < primary["last_conflict_epoch"]
    assert "refresh_op_count" not in secondary
    circle.replica.faults.clear("replica-sql-error")
    circle.tick(5)
    primary, secondary = conflict_values(circle.replica), conflict_values(circle.source)
    assert secondary["refresh_op_count"] == 27
    assert primary["last_stable_epoch"] >= primary["last_conflict_epoch"]


def test_an_unknown_conflict_function_is_refused(pair):
    with pytest.raises(FaultError, match="function must be one of"):
        pair.source.faults.set("conflicts", function="NDB$MAX")


# --- binlog servers and failover ----------------------------------------------------------------


@pytest.fixture
def standby() -> Pair:
    """Two binlog servers, SQL nodes 50 and 51, rotating every 64 KiB."""
    pair = Pair(binlog_servers=2, max_binlog_size=65536)
    pair.tick(20)
    return pair


def test_each_binlog_server_writes_the_same_epochs_into_its_own_log(standby):
    first, second = standby.link.binlogs[50], standby.link.binlogs[51]
    assert (first.server_id, second.server_id) == (1, 2)
    rows = {r.epoch: r for r in first.index_rows()}
    other = {r.epoch: r for r in second.index_rows()}
    assert rows.keys() == other.keys() and len(rows) > 100
    epoch = max(rows)
    assert (rows[epoch].inserts, rows[epoch].updates) == (
        other[epoch].inserts,
        other[epoch].updates,
    )
    assert (rows[epoch].file, rows[epoch].position) != (other[epoch].file, other[epoch].position)
    # the standby's mysqld restarted once: its second file opens with an incident
    assert [(i.file, i.start, i.message) for i in second.incidents] == [
        ("binlog.000002", 157, "mysqld startup")
    ]
    assert chained(list(second.index_rows()))


def failover(pair: Pair, node_id: int, file: str, position: int) -> dict:
    pair.link.stop(io=True, sql=True)
    port = pair.link.source_ports[node_id]
    pair.link.change(host=pair.link.source_host, port=port, file=file, position=position)
    pair.link.start(io=True, sql=True)
    return pair.tick(1)


def test_the_standby_resumes_with_the_epoch_after_the_newest_applied(standby):
    """The manual's query on the standby: @latest's next_file/next_position; from there the
    applier commits one transaction per standby row after @latest, with its changes."""
    standby.link.stop(io=True, sql=True)
    stopped = standby.tick(5)
    latest = max(row[1] for row in stopped["apply_status"])
    row = next(r for r in standby.link.binlogs[51].index_rows() if r.epoch == latest)
    snap = failover(standby, 51, row.next_file, row.next_position)
    snap = standby.tick(5)
    applied = snap["applied_epoch"]
    resumed = [r for r in standby.link.binlogs[51].index_rows() if latest < r.epoch <= applied]
    assert resumed[0].epoch > latest and (resumed[0].file, resumed[0].position) == (
        row.next_file,
        row.next_position,
    )
    assert snap["applied_epochs"] - stopped["applied_epochs"] == len(resumed)
    assert snap["applied_writes"] - stopped["applied_writes"] == sum(
        r.inserts + r.updates + r.deletes for r in resumed
    )
    assert [r[0] for r in snap["apply_status"]] == [1, 2]
    assert snap["apply_status"][1][1:] == (
        applied,
        *standby.link.binlogs[51].transaction_of(applied),
    )


def test_a_position_before_an_incident_stops_the_applier(standby):
    snap = failover(standby, 51, "binlog.000002", 157)
    assert snap["io_running"] == "Yes" and snap["sql_running"] == "No"
    assert (snap["sql_error"].errno, snap["sql_error"].detail) == (1590, "mysqld startup")


def test_the_source_refuses_a_purged_file_and_a_position_past_its_end(standby):
    server = standby.link.binlogs[51]
    purged = server.purge_to(server.files[3].name)
    assert purged == ["binlog.000001", "binlog.000002", "binlog.000003"]
    assert {r.file for r in server.index_rows()}.isdisjoint(purged)
    snap = failover(standby, 51, "binlog.000002", 4)
    assert snap["io_running"] == "No" and snap["io_error"].errno == SOURCE_REFUSED
    assert snap["io_error"].detail.startswith("Could not find first log file name")
    end = server.files[-1]
    snap = failover(standby, 51, end.name, end.size + BINLOG_BYTES_PER_EPOCH * 10**6)
    assert snap["io_error"].detail.startswith("Client requested {source} to start")


def test_a_restarted_binlog_server_opens_a_file_with_an_incident(standby):
    standby.source.stop_node(50)
    snap = standby.tick(2)
    assert snap["io_running"] == "Connecting" and snap["io_error"].errno == 2003
    standby.source.start_node(50)
    snap = standby.tick(2)
    assert snap["io_running"] == "Yes" and snap["sql_error"].errno == 1590
    assert standby.link.primary.incidents[-1].message == "mysqld startup"
