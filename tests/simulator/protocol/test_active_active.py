"""ndbsim --replica --active-active through a real client: each cluster's first SQL node both
writes a binary log and applies the other's, the replica cluster the NDB$EPOCH2 primary and
the source the secondary; conflicts found on the primary are resolved on the secondary."""

from __future__ import annotations

import pytest
from ndb_harness import running_ndbsim

from tests.simulator.protocol.pair_rows import replica, source
from tests.support.polling import poll

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def circle():
    with running_ndbsim("--active-active", replica=True, speed=10) as sim:
        yield sim


def status(rows_of, sim, like: str) -> dict[str, int]:
    rows = rows_of(sim, f"SHOW GLOBAL STATUS LIKE '{like}'")
    return {r["Variable_name"]: int(r["Value"]) for r in rows}


def test_each_first_sql_node_logs_and_applies(circle):
    variables = (
        "SELECT @@server_id AS id, @@log_bin AS log_bin, @@ndb_log_apply_status AS apply_status,"
        " @@ndb_applier_conflict_role AS role"
    )
    assert source(circle, variables) == [
        {"id": 1, "log_bin": 1, "apply_status": 1, "role": "SECONDARY"}
    ]
    assert replica(circle, variables) == [
        {"id": 101, "log_bin": 1, "apply_status": 1, "role": "PRIMARY"}
    ]
    back = source(circle, "SHOW REPLICA STATUS")[0]
    assert back["Source_Port"] == circle.replica_port
    assert poll(lambda: source(circle, "SHOW REPLICA STATUS")[0]["Source_Server_Id"] == 101)
    assert replica(circle, "SHOW BINARY LOGS")[0]["Log_name"] == "binlog.000001"
    assert poll(lambda: [r["Server_Id"] for r in replica(circle, "SHOW REPLICAS")] == [1])
    # each cluster's ndb_apply_status: the epochs it applied from the other's binlog server
    applied = "SELECT server_id FROM mysql.ndb_apply_status"
    assert poll(lambda: source(circle, applied)) == [{"server_id": 101}]


def test_each_cluster_sees_its_own_epochs_come_back(circle):
    for rows_of in (source, replica):
        values = poll(
            lambda rows_of=rows_of: (
                v
                if (v := status(rows_of, circle, "Ndb_%replicated_epoch"))[
                    "Ndb_replica_max_replicated_epoch"
                ]
                > 0
                else None
            )
        )
        own = status(rows_of, circle, "Ndb_last_commit_epoch_server")
        assert values["Ndb_replica_max_replicated_epoch"] <= own["Ndb_last_commit_epoch_server"]


def test_conflicts_on_the_primary_converge_on_the_secondary(circle):
    before = status(source, circle, "Ndb_conflict_%")
    circle.fault("conflicts")
    assert poll(lambda: status(replica, circle, "Ndb_conflict_fn_epoch2")["Ndb_conflict_fn_epoch2"])
    refresh = "Ndb_conflict_refresh_op_count"
    assert poll(lambda: status(source, circle, refresh)[refresh] > before[refresh])
    circle.clear("conflicts")

    def converged() -> bool:
        values = status(replica, circle, "Ndb_conflict_last_%")
        last = values["Ndb_conflict_last_conflict_epoch"]
        return last > 0 and values["Ndb_conflict_last_stable_epoch"] >= last

    assert poll(converged)
    secondary = status(source, circle, "Ndb_conflict_%")
    assert secondary["Ndb_conflict_reflected_op_prepare_count"] > 0
    assert secondary["Ndb_conflict_fn_epoch2"] == 0  # the secondary detects none
    # the exceptions tables the primary's applier writes to
    exceptions = "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_NAME LIKE '%$EX'"
    assert replica(circle, exceptions) and not source(circle, exceptions)


def test_a_link_fault_acts_on_the_link_from_the_cluster_named(circle):
    """`replica-sql-error` on the replica cluster stops the secondary's applier (the link back
    from the primary); the primary's own applier runs on."""
    circle.fault("replica-sql-error", cluster="replica")
    try:
        back = source(circle, "SHOW REPLICA STATUS")[0]
        assert (back["Replica_SQL_Running"], back["Last_SQL_Errno"]) == ("No", 1032)
        assert replica(circle, "SHOW REPLICA STATUS")[0]["Replica_SQL_Running"] == "Yes"
        assert "replica-sql-error" in circle.status(cluster="replica")["faults"]
        assert "replica-sql-error" not in circle.status()["faults"]
    finally:
        circle.clear("replica-sql-error", cluster="replica")
    assert source(circle, "SHOW REPLICA STATUS")[0]["Replica_SQL_Running"] == "Yes"
