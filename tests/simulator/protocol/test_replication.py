"""ndbsim --replica through a real client: the source's binlog injector and binary log, the
replica's threads and ndb_apply_status, and each link fault where mysqld shows it, cleared."""

from __future__ import annotations

import random
import time

import pymysql
import pytest
from ndb_harness import running_ndbsim
from ndbsim.errors import SQLSTATES
from ndbsim.model.faults import FaultError, Faults

from tests.simulator.protocol.pair_rows import replica, rows_at, source
from tests.simulator.protocol.statement_corpus import FOREIGN, mutations
from tests.support.polling import poll

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def pair():
    with running_ndbsim(replica=True, speed=10) as sim:
        yield sim


@pytest.fixture
def healthy(pair):
    pair.reset()
    yield pair
    pair.reset()


def binlog_row(sim) -> dict[str, int]:
    rows = source(sim, "SHOW ENGINE NDBCLUSTER STATUS")
    status = next(r["Status"] for r in rows if r["Name"] == "binlog")
    return {k: int(v) for k, v in (p.split("=") for p in status.split(", "))}


def replica_status(sim) -> dict:
    return replica(sim, "SHOW REPLICA STATUS")[0]


def test_the_pair_has_a_binlog_server_and_an_applier(healthy):
    assert healthy.replica_port and healthy.replica_port != healthy.port
    assert source(healthy, "SELECT @@server_id AS s, @@log_bin AS b, @@ndb_log_bin AS n") == [
        {"s": 1, "b": 1, "n": 1}
    ]
    assert replica(healthy, "SELECT @@server_id AS s, @@log_bin AS b") == [{"s": 101, "b": 0}]
    logs = source(healthy, "SHOW BINARY LOGS")
    assert logs[0]["Log_name"] == "binlog.000001" and logs[0]["File_size"] > 157
    status = source(healthy, "SHOW BINARY LOG STATUS")[0]
    assert status["File"] == logs[-1]["Log_name"]
    replica_engine = replica(healthy, "SHOW ENGINE NDB STATUS")
    assert "binlog" not in [r["Name"] for r in replica_engine]
    assert source(healthy, "SHOW REPLICA STATUS") == []
    # two clusters, two names
    name = "SHOW GLOBAL STATUS LIKE 'Ndb_system_name'"
    assert source(healthy, name)[0]["Value"] != replica(healthy, name)[0]["Value"]


def test_the_other_sql_nodes_neither_log_nor_apply(healthy):
    """Only the first SQL node of each cluster takes part in the link; ndb_apply_status, an
    NDB table, reads the same on every SQL node of the replica cluster."""
    other_source = healthy.sql_node_ports()[51]
    other_replica = healthy.sql_node_ports("replica")[51]
    assert rows_at(healthy, other_source, "SELECT @@server_id AS s, @@log_bin AS b") == [
        {"s": 2, "b": 0}
    ]
    assert rows_at(healthy, other_source, "SELECT * FROM mysql.ndb_binlog_index") == []
    assert rows_at(healthy, other_replica, "SHOW REPLICA STATUS") == []
    assert rows_at(healthy, other_replica, "SELECT @@server_id AS s")[0]["s"] == 102
    applied = rows_at(
        healthy, other_replica, "SELECT server_id, log_name FROM mysql.ndb_apply_status"
    )
    assert applied == [{"server_id": 1, "log_name": "binlog.000001"}]
    status = "SHOW GLOBAL STATUS LIKE 'Ndb_api_pk_op_count_replica'"
    assert int(rows_at(healthy, other_replica, status)[0]["Value"]) == 0
    assert int(replica(healthy, status)[0]["Value"]) > 0


def test_epochs_advance_and_the_replica_follows(healthy):
    first = binlog_row(healthy)
    assert first["latest_handled_binlog_epoch"] == first["latest_received_binlog_epoch"]
    assert first["latest_epoch"] >= first["latest_handled_binlog_epoch"]
    time.sleep(1.5)
    second = binlog_row(healthy)
    assert second["latest_applied_binlog_epoch"] >> 32 > first["latest_applied_binlog_epoch"] >> 32
    applied = replica(healthy, "SELECT server_id, epoch, log_name FROM mysql.ndb_apply_status")
    assert len(applied) == 1 and applied[0]["server_id"] == 1
    written_gci = binlog_row(healthy)["latest_applied_binlog_epoch"] >> 32
    assert written_gci - (applied[0]["epoch"] >> 32) <= 2
    row = replica_status(healthy)
    assert (row["Replica_IO_Running"], row["Replica_SQL_Running"]) == ("Yes", "Yes")
    assert row["Seconds_Behind_Source"] == 0 and row["Source_Server_Id"] == 1
    assert row["Source_Port"] == healthy.port
    counters = {r["Variable_name"]: int(r["Value"]) for r in source(
        healthy, "SHOW GLOBAL STATUS LIKE 'Ndb_api_event_%_injector'")}  # fmt: skip
    assert counters["Ndb_api_event_data_count_injector"] > 0


def test_binlog_index_answers_ordinary_selects(healthy):
    rows = source(
        healthy,
        "SELECT File, COUNT(*) AS n, MAX(epoch) AS top FROM mysql.ndb_binlog_index "
        "WHERE inserts > 0 GROUP BY File ORDER BY File LIMIT 5",
    )
    assert rows and rows[0]["File"] == "./binlog.000001" and rows[0]["n"] > 0
    newest = source(
        healthy, "SELECT epoch, gci FROM mysql.ndb_binlog_index ORDER BY epoch DESC LIMIT 1"
    )
    assert newest[0]["gci"] == newest[0]["epoch"] >> 32
    assert replica(healthy, "SELECT * FROM mysql.ndb_binlog_index") == []
    assert source(healthy, "SELECT * FROM mysql.ndb_apply_status") == []


def test_replica_sql_error(healthy):
    """On NDB 8.4 worker 1 applies the failing epoch transaction: its row has the error, and
    the coordinator's Last_SQL_Error points to it (Slave_worker::do_report)."""
    healthy.fault("replica-sql-error")
    row = replica_status(healthy)
    assert row["Replica_SQL_Running"] == "No" and row["Last_SQL_Errno"] == 1032
    assert row["Last_SQL_Error"].startswith(
        "Coordinator stopped because there were error(s) in the worker(s). The most recent "
        "failure being: Worker 1 failed executing transaction 'ANONYMOUS' at source log binlog."
    )
    assert row["Last_Error"] == row["Last_SQL_Error"]
    assert row["Seconds_Behind_Source"] is None and row["Replica_SQL_Running_State"] == ""
    workers = replica(
        healthy, "SELECT WORKER_ID, THREAD_ID, SERVICE_STATE, LAST_ERROR_NUMBER, "
        "LAST_ERROR_MESSAGE FROM performance_schema.replication_applier_status_by_worker "
        "ORDER BY WORKER_ID")  # fmt: skip
    assert [(w["WORKER_ID"], w["SERVICE_STATE"], w["THREAD_ID"]) for w in workers] == [
        (worker, "OFF", None) for worker in (1, 2, 3, 4)
    ]
    assert [w["LAST_ERROR_NUMBER"] for w in workers] == [1032, 0, 0, 0]
    message = workers[0]["LAST_ERROR_MESSAGE"]
    assert message.startswith("Worker 1 failed executing transaction 'ANONYMOUS' at source log")
    assert "; Could not execute Update_rows event on table " in message
    assert "Can't find record in" in message
    assert [t["Id"] for t in _replication_threads(healthy)] == [6]  # the I/O thread alone
    stuck = replica(healthy, "SELECT epoch FROM mysql.ndb_apply_status")[0]["epoch"]
    time.sleep(1.2)
    assert replica(healthy, "SELECT epoch FROM mysql.ndb_apply_status")[0]["epoch"] == stuck
    healthy.clear("replica-sql-error")
    row = replica_status(healthy)
    assert row["Replica_SQL_Running"] == "Yes" and row["Last_SQL_Errno"] == 0
    assert replica(healthy, "SELECT epoch FROM mysql.ndb_apply_status")[0]["epoch"] > stuck


def test_replica_io_disconnect(healthy):
    healthy.fault("replica-io-disconnect")
    row = replica_status(healthy)
    assert row["Replica_IO_Running"] == "Connecting" and row["Last_IO_Errno"] == 2003
    assert row["Replica_IO_State"] == "Reconnecting after a failed source event read"
    assert row["Last_IO_Error"].startswith(
        f"Error reconnecting to source 'repl@127.0.0.1:{healthy.port}'. This was attempt "
    )
    # the SQL thread has applied what was received: nothing to measure the lag against
    assert row["Seconds_Behind_Source"] is None
    conn = replica(
        healthy, "SELECT SERVICE_STATE, LAST_ERROR_NUMBER FROM "
        "performance_schema.replication_connection_status")  # fmt: skip
    assert conn == [{"SERVICE_STATE": "CONNECTING", "LAST_ERROR_NUMBER": 2003}]
    assert source(healthy, "SHOW REPLICAS") == []  # registered only while connected
    healthy.reset()
    row = replica_status(healthy)
    assert row["Replica_IO_Running"] == "Yes" and row["Last_IO_Errno"] == 0
    assert len(source(healthy, "SHOW REPLICAS")) == 1


def _replication_threads(sim) -> list[dict]:
    return [t for t in replica(sim, "SHOW PROCESSLIST") if t["User"] == "system user"]


def test_the_applier_runs_four_workers(healthy):
    """NDB 8.4: replica_parallel_workers 4 (its default), a coordinator and four workers, all
    waiting when caught up."""
    variables = replica(healthy, "SELECT @@replica_parallel_workers AS w")
    assert variables == [{"w": 4}]
    row = replica_status(healthy)
    assert row["Replica_IO_State"] == "Waiting for source to send event"
    assert row["Replica_SQL_Running_State"] == (
        "Replica has read all relay log; waiting for more updates"
    )
    workers = replica(
        healthy, "SELECT WORKER_ID, THREAD_ID, SERVICE_STATE, LAST_ERROR_NUMBER, "
        "APPLYING_TRANSACTION FROM performance_schema.replication_applier_status_by_worker")  # fmt: skip
    assert [(w["WORKER_ID"], w["THREAD_ID"], w["SERVICE_STATE"]) for w in workers] == [
        (1, 48, "ON"), (2, 49, "ON"), (3, 50, "ON"), (4, 51, "ON")
    ]  # fmt: skip
    assert {w["LAST_ERROR_NUMBER"] for w in workers} == {0}
    threads = _replication_threads(healthy)
    assert [(t["Id"], t["Command"]) for t in threads] == [
        (6, "Connect"), (7, "Query"), (8, "Connect"), (9, "Connect"), (10, "Connect"),
        (11, "Connect"),
    ]  # fmt: skip
    assert {t["State"] for t in threads[2:]} == {"Waiting for an event from Coordinator"}
    names = replica(
        healthy, "SELECT NAME, COUNT(*) AS n FROM performance_schema.threads "
        "WHERE NAME LIKE 'thread/sql/replica%' GROUP BY NAME ORDER BY NAME")  # fmt: skip
    assert [(n["NAME"], n["n"]) for n in names] == [
        ("thread/sql/replica_io", 1), ("thread/sql/replica_sql", 1),
        ("thread/sql/replica_worker", 4),
    ]  # fmt: skip


def test_replica_behind(healthy):
    healthy.fault("replica-behind")
    row = replica_status(healthy)
    assert row["Seconds_Behind_Source"] == 900
    # the coordinator waits for the epoch transaction worker 1 applies
    assert row["Replica_SQL_Running_State"] == "Waiting for dependent transaction to commit"
    states = [t["State"] for t in _replication_threads(healthy)]
    kinds = ("write", "update", "delete")
    assert states[2] in {f"Applying batch of row changes ({kind})" for kind in kinds}
    assert states[3:] == ["Waiting for an event from Coordinator"] * 3
    written = binlog_row(healthy)["latest_applied_binlog_epoch"] >> 32
    applied = replica(healthy, "SELECT epoch FROM mysql.ndb_apply_status")[0]["epoch"] >> 32
    assert written - applied > 150
    healthy.fault("replica-behind", seconds=400)
    assert replica_status(healthy)["Seconds_Behind_Source"] == 400
    healthy.clear("replica-behind")
    assert replica_status(healthy)["Seconds_Behind_Source"] == 0


def _apply_status(sim) -> dict:
    return replica(sim, "SELECT epoch, log_name, start_pos, end_pos FROM mysql.ndb_apply_status")[0]


def _written(sim, epoch: int) -> dict:
    """The source's binlog index row of the newest epoch up to `epoch`."""
    return source(
        sim, "SELECT epoch, File, Position, next_file, next_position FROM mysql.ndb_binlog_index "
        f"WHERE epoch <= {epoch} ORDER BY epoch DESC LIMIT 1")[0]  # fmt: skip


@pytest.mark.parametrize("seconds", [None, 3])
def test_apply_status_holds_the_binlog_position_of_the_applied_epoch(healthy, seconds):
    if seconds:
        healthy.fault("replica-behind", seconds=seconds)
    applied = _apply_status(healthy)
    row = _written(healthy, applied["epoch"])
    # the index names the file with its path, ndb_apply_status as the replica read it
    assert ("./" + applied["log_name"], applied["start_pos"]) == (row["File"], row["Position"])
    assert applied["end_pos"] == row["next_position"] > applied["start_pos"]
    if seconds:
        binlog = source(healthy, "SHOW BINARY LOG STATUS")[0]
        assert (applied["log_name"], applied["end_pos"]) < (binlog["File"], binlog["Position"])
        status = replica_status(healthy)
        assert status["Relay_Source_Log_File"] == applied["log_name"]
        assert applied["end_pos"] <= status["Exec_Source_Log_Pos"] < binlog["Position"]


def test_injector_behind(healthy):
    healthy.fault("injector-behind")
    row = binlog_row(healthy)
    cluster_gci = healthy.status()["gci"]
    assert cluster_gci - (row["latest_handled_binlog_epoch"] >> 32) > 30
    assert cluster_gci - (row["latest_applied_binlog_epoch"] >> 32) > 30
    assert (row["latest_epoch"] >> 32) - (row["latest_received_binlog_epoch"] >> 32) > 10
    assert replica_status(healthy)["Replica_SQL_Running"] == "Yes"
    healthy.clear("injector-behind")
    # read the cluster's GCI first: it only grows while the query runs
    cluster_gci = healthy.status()["gci"]
    row = binlog_row(healthy)
    assert (row["latest_handled_binlog_epoch"] >> 32) >= cluster_gci - 1


def test_subscriber_lag_holds_the_event_buffer_behind_and_returns(healthy):
    healthy.fault("subscriber-lag", gcis=12)
    row = binlog_row(healthy)
    cluster_gci = healthy.status()["gci"]
    assert cluster_gci - (row["latest_epoch"] >> 32) >= 12
    assert row["latest_handled_binlog_epoch"] <= row["latest_epoch"]
    healthy.clear("subscriber-lag")
    assert healthy.status()["gci"] - (binlog_row(healthy)["latest_epoch"] >> 32) <= 1


def test_injector_gap_stops_the_replica_with_an_incident(healthy):
    healthy.fault("injector-behind", gap=True)
    row = replica_status(healthy)
    assert row["Replica_SQL_Running"] == "No" and row["Last_SQL_Errno"] == 1590
    assert row["Last_SQL_Error"].startswith("The incident LOST_EVENTS occured on the source.")
    healthy.reset()
    assert poll(lambda: replica_status(healthy)["Last_SQL_Errno"] == 0)


def _conflicts(rows: list[dict]) -> dict[str, int]:
    return {r["Variable_name"]: int(r["Value"]) for r in rows}


def _replica_conflicts(sim) -> dict[str, int]:
    return _conflicts(replica(sim, "SHOW GLOBAL STATUS LIKE 'Ndb_conflict_%'"))


def test_conflicts_are_counted_on_the_applying_sql_node(healthy):
    before = _replica_conflicts(healthy)
    healthy.fault("conflicts")
    name = "Ndb_conflict_fn_epoch2"
    assert poll(lambda: _replica_conflicts(healthy)[name] > before[name])
    values = _replica_conflicts(healthy)
    # NDB$EPOCH2 is not transactional: the _trans_ counters stay
    assert (
        values["Ndb_conflict_trans_row_conflict_count"]
        == before["Ndb_conflict_trans_row_conflict_count"]
    )
    assert values["Ndb_conflict_last_conflict_epoch"] > 0
    on_source = _conflicts(source(healthy, "SHOW GLOBAL STATUS LIKE 'Ndb_conflict_%'"))
    assert set(on_source.values()) == {0}
    healthy.clear("conflicts")
    settled = _replica_conflicts(healthy)["Ndb_conflict_fn_epoch2"]
    time.sleep(0.5)
    assert _replica_conflicts(healthy)["Ndb_conflict_fn_epoch2"] == settled


def test_transactional_conflict_functions_move_the_trans_counters(healthy):
    before = _replica_conflicts(healthy)
    healthy.fault("conflicts", function="NDB$EPOCH2_TRANS")
    name = "Ndb_conflict_trans_row_conflict_count"
    assert poll(lambda: _replica_conflicts(healthy)[name] > before[name])
    healthy.clear("conflicts")
    values = _replica_conflicts(healthy)
    assert values["Ndb_conflict_fn_epoch2_trans"] > before["Ndb_conflict_fn_epoch2_trans"]
    assert values["Ndb_conflict_fn_epoch2"] == before["Ndb_conflict_fn_epoch2"]
    assert values["Ndb_conflict_trans_reject_count"] > before["Ndb_conflict_trans_reject_count"]


def test_the_control_api_acts_on_either_cluster(healthy):
    assert healthy.stop_node(2, cluster="replica")["state"] == "STOPPED"
    assert [n["state"] for n in healthy.status()["nodes"] if n["node_id"] == 2] == ["STARTED"]
    healthy.reset(cluster="replica")
    link = healthy.replication()
    assert link["io_running"] == "Yes" and link["applied_epoch"] > 0


def test_link_faults_need_the_replica():
    with pytest.raises(FaultError, match="start ndbsim with --replica"):
        Faults().set("replica-behind")


REPLICATION_CORPUS = [
    "SHOW REPLICA STATUS",
    "SHOW SLAVE STATUS FOR CHANNEL ''",
    "SHOW BINARY LOGS",
    "SHOW MASTER LOGS",
    "SHOW BINARY LOG STATUS",
    "SHOW ENGINE NDB STATUS",
    "SELECT server_id, epoch >> 32 AS gci FROM mysql.ndb_apply_status WHERE server_id = 1",
    "SELECT File, MAX(epoch) FROM mysql.ndb_binlog_index GROUP BY File ORDER BY 2 DESC LIMIT 1",
    "SELECT SERVICE_STATE, LAST_ERROR_NUMBER FROM performance_schema.replication_connection_status",
    "SELECT * FROM performance_schema.replication_applier_status_by_worker WHERE WORKER_ID = 0",
]


def test_replication_statements_and_their_mutations_get_mysqld_replies(healthy):
    """Every reply is a result or a mysqld error (code and SQLSTATE), on both SQL nodes."""
    rnd = random.Random(23)
    statements = list(REPLICATION_CORPUS)
    for sql in REPLICATION_CORPUS:
        statements += mutations(sql, rnd)
    for port in (healthy.port, healthy.replica_port):
        conn = pymysql.connect(
            host=healthy.host, port=port, user=healthy.user, password=healthy.password
        )
        try:
            for sql in statements:
                try:
                    with conn.cursor() as cur:
                        cur.execute(sql)
                        cur.fetchall()
                except pymysql.err.MySQLError as e:
                    code, message = e.args[0], str(e.args[1])
                    assert code in SQLSTATES and code != 1105, (sql, code, message)
                    assert not FOREIGN.search(message), (sql, message)
        finally:
            conn.close()
