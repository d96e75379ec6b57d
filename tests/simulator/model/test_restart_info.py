"""ndbinfo.restart_info moves as Dbdih's master fills it (fill_row_with_node_restart_status):
a failed node's row, then one status after the other with their columns filled as each phase
completes, secs_for_local_recovery once the node synchronises, the total only at the end."""

from __future__ import annotations

from tests.simulator.model.fault_sim import Sim

RESTART = 1000  # cluster seconds: every phase of the restart lasts 20 s or more
DOWN = 300
ROW = (
    "SELECT node_restart_status_int, node_restart_status, secs_to_complete_node_failure,"
    " secs_to_allocate_node_id, secs_to_include_in_heartbeat_protocol,"
    " secs_until_wait_for_ndbcntr_master, secs_wait_for_ndbcntr_master,"
    " secs_to_get_start_permitted, secs_to_wait_for_lcp_for_copy_meta_data,"
    " secs_to_copy_meta_data, secs_to_include_node,"
    " secs_starting_node_to_request_local_recovery, secs_for_local_recovery,"
    " secs_restore_fragments, secs_undo_disk_data, secs_exec_redo_log, secs_index_rebuild,"
    " secs_to_synchronize_starting_node, secs_wait_lcp_for_restart,"
    " secs_wait_subscription_handover, total_restart_secs FROM ndbinfo.restart_info"
    " WHERE node_id = 2"
)
LOCAL_RECOVERY = 12  # the row's index of secs_for_local_recovery
RESTART_PHASES = [i for i in range(4, 20) if i != LOCAL_RECOVERY]  # after the node id's


def test_a_restart_fills_the_row_phase_by_phase():
    sim = Sim(data_nodes=4, restart_seconds=RESTART)
    sim.cluster.stop_node(2)
    sim.tick(DOWN)
    assert sim.q(ROW) == [(3, "Node failure handling complete", *[0] * 19)]
    sim.cluster.start_node(2)
    seen = []
    while sim.q("SELECT status FROM ndbinfo.nodes WHERE node_id = 2") == [("STARTING",)]:
        seen.append(sim.q(ROW)[0])
        sim.tick(10)
    statuses = [r[0] for r in seen]
    assert statuses == sorted(statuses) and set(statuses) == set(range(4, 19))
    for r in seen:
        status, filled = r[0], [r[i] > 0 for i in RESTART_PHASES]
        assert filled == [True] * (status - 4) + [False] * (19 - status), r
        assert r[3] == DOWN and r[-1] == 0
        assert (r[LOCAL_RECOVERY] > 0) == (status >= 16)
    final = sim.q(ROW)[0]
    assert final[:2] == (19, "Restart completed")
    assert final[-1] == DOWN + RESTART == sum(final[2:-1]) - final[LOCAL_RECOVERY]
    assert final[LOCAL_RECOVERY] == sum(final[LOCAL_RECOVERY + 1 : LOCAL_RECOVERY + 5])
