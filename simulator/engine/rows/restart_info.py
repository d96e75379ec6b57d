"""ndbinfo.restart_info: each data node's last restart as the master data node records it
(Dbdih's node recovery status module, DbdihMain.cpp).

The master keeps per data node its NodeRecord::NodeRecoveryStatus and the time it entered
each status (setNodeRecoveryStatus); fill_row_with_node_restart_status writes the status as
get_status_str words it, its number, and per secs_* column the seconds between two of those
times, 0 while the second has not come: the columns fill one by one as the restart goes on.
secs_for_local_recovery, the sum of the four local recovery columns after it, is written once
the node synchronises with the live nodes; total_restart_secs, from the node's failure to the
end of its restart, once the restart completed. A node that failed shows "Node failure
handling complete" until its new process allocates its node id.

Here the failure is handled at once, the node id is allocated when the node is started, and
the restart's steps share its time as ``STEPS`` says (the big ones, local recovery and the
synchronisation, as on a real cluster); a step ends on a whole cluster second. A restart held
by stuck-start stays in the step it reached; once it completes, its steps share the time it
took. A restart that ended before the simulation began follows a failure ``UNSEEN_DOWN``
seconds before it."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from ndbsim.engine.catalog import load_json
from ndbsim.model.cluster import STARTED, STOPPED

if TYPE_CHECKING:
    from ndbsim.model.cluster import Cluster, DataNodeState

# NodeRecord::NodeRecoveryStatus (Dbdih.hpp) by name -> its number (data/ndbinfo/enums.json)
RECOVERY_STATUS = {
    name: int(number)
    for number, name in load_json("enums.json")["restart_info.node_restart_status_int"][
        "kernel_enum"
    ].items()
}


def _status(name: str, words: str) -> tuple[int, str]:
    """A recovery status as the columns carry it: its number and get_status_str's words."""
    return RECOVERY_STATUS[name], words


NODE_FAILURE_COMPLETED = _status("NODE_FAILURE_COMPLETED", "Node failure handling complete")
RESTART_COMPLETED = _status("RESTART_COMPLETED", "Restart completed")
# The steps of a node restart in the master's order: the status the node is in, the column
# that times it (from entering that status to entering the next) and its share of the time
# from the node id's allocation to the restart's end.
STEPS = (
    (
        _status("ALLOCATED_NODE_ID", "Allocated node id"),
        "secs_to_include_in_heartbeat_protocol",
        0.06,
    ),
    (
        _status("INCLUDED_IN_HB_PROTOCOL", "Included in heartbeat protocol"),
        "secs_until_wait_for_ndbcntr_master",
        0.05,
    ),
    (
        _status("NDBCNTR_START_WAIT", "Wait for NDBCNTR master permit"),
        "secs_wait_for_ndbcntr_master",
        0.05,
    ),
    (
        _status("NDBCNTR_STARTED", "NDBCNTR master permitted us"),
        "secs_to_get_start_permitted",
        0.06,
    ),
    (
        _status("START_PERMITTED", "All nodes permitted us"),
        "secs_to_wait_for_lcp_for_copy_meta_data",
        0.06,
    ),
    (
        _status("WAIT_LCP_TO_COPY_DICT", "Wait for LCP complete to copy meta data"),
        "secs_to_copy_meta_data",
        0.06,
    ),
    (
        _status("COPY_DICT_TO_STARTING_NODE", "Copy meta data to start node"),
        "secs_to_include_node",
        0.06,
    ),
    (
        _status("INCLUDE_NODE_IN_LCP_AND_GCP", "Include node in LCP/GCP protocols"),
        "secs_starting_node_to_request_local_recovery",
        0.04,
    ),
    (
        _status("LOCAL_RECOVERY_STARTED", "Restore fragments ongoing"),
        "secs_restore_fragments",
        0.16,
    ),
    (_status("RESTORE_FRAG_COMPLETED", "Undo Disk data ongoing"), "secs_undo_disk_data", 0.02),
    (_status("UNDO_DD_COMPLETED", "Execute REDO logs ongoing"), "secs_exec_redo_log", 0.08),
    (_status("EXECUTE_REDO_LOG_COMPLETED", "Build indexes ongoing"), "secs_index_rebuild", 0.08),
    (
        _status("COPY_FRAGMENTS_STARTED", "Synchronize start node with live nodes"),
        "secs_to_synchronize_starting_node",
        0.12,
    ),
    (
        _status("WAIT_LCP_FOR_RESTART", "Wait LCP to ensure durability"),
        "secs_wait_lcp_for_restart",
        0.07,
    ),
    (
        _status("WAIT_SUMA_HANDOVER", "Wait handover of subscriptions"),
        "secs_wait_subscription_handover",
        0.03,
    ),
)
# secs_for_local_recovery spans these steps: restore, undo, redo, index rebuild.
LOCAL_RECOVERY = slice(8, 12)
UNSEEN_DOWN = 2.0


def restart_info(c: Cluster) -> list[dict]:
    return [
        _row(c, node_id, s)
        for node_id, s in sorted(c.nodes.items())
        if s.restarted or s.failed_at is not None
    ]


def _row(c: Cluster, node_id: int, s: DataNodeState) -> dict:
    row = {column: 0 for column in ("secs_to_allocate_node_id", "secs_for_local_recovery")}
    row.update({column: 0 for _, column, _ in STEPS})
    status, total = NODE_FAILURE_COMPLETED, 0
    if s.state != STOPPED:
        failed, began, ends = _times(c, s)
        row["secs_to_allocate_node_id"] = math.floor(began - failed)
        done = _steps_done(c, node_id, s, began, ends)
        starts = [began, *ends]
        for (_, column, _), start, end in zip(STEPS[:done], starts, ends, strict=False):
            row[column] = math.floor(end - start)
        if done >= LOCAL_RECOVERY.stop:
            row["secs_for_local_recovery"] = math.floor(
                ends[LOCAL_RECOVERY.stop - 1] - starts[LOCAL_RECOVERY.start]
            )
        status = STEPS[done][0] if done < len(STEPS) else RESTART_COMPLETED
        total = math.floor(ends[-1] - failed) if done == len(STEPS) else 0
    return {
        "node_id": node_id,
        "node_restart_status": status[1],
        "node_restart_status_int": status[0],
        "secs_to_complete_node_failure": 0,
        **row,
        "total_restart_secs": total,
    }


def _times(c: Cluster, s: DataNodeState) -> tuple[float, float, list[float]]:
    """(failure, start, end of each step) of the node's last restart, in cluster seconds: the
    steps share restart_seconds while the node starts, the time the restart took once it is
    started."""
    began, took = s.restart_begin, c.spec.restart_seconds
    seen = s.failed_at is not None and s.failed_at <= began
    if s.state == STARTED:
        if not (seen and began <= s.started_at):
            began, seen = s.started_at - took, False
        took = s.started_at - began
    failed = s.failed_at if seen else began - UNSEEN_DOWN
    ends, share = [], 0.0
    for _, _, part in STEPS:
        share += part
        ends.append(began + round(share * took))
    return failed, began, ends


def _steps_done(c: Cluster, node_id: int, s: DataNodeState, began: float, ends: list[float]) -> int:
    """How many steps the node has completed: all once it is started; while it starts, those
    that end by its progress, never the last (the subscription handover ends the restart)."""
    if s.state == STARTED:
        return len(STEPS)
    position = began + c.restart_progress(node_id) * c.spec.restart_seconds
    return min(len(STEPS) - 1, sum(1 for end in ends if end <= position))
