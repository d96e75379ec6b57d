"""How far a data node's restart has come and how long it has left, estimated from one read of
ndbinfo.restart_info (all data nodes' rows) and the restarting node's ndbinfo.nodes uptime.

What NDB writes (DbdihMain.cpp, the node recovery status module): the master data node keeps
per data node the NodeRecord::NodeRecoveryStatus of its last restart and the time it entered
each status (setNodeRecoveryStatus); fill_row_with_node_restart_status writes the status as
node_restart_status_int and, per secs_* column, the seconds between entering two statuses, 0
until the second is entered. So the columns fill one by one as the phases complete, the
column of the phase under way is still 0, and total_restart_secs is written once the restart
completed. The statuses 4 to 18 are the master's: each times the next restart phase in
``RESTART_PHASES``. The statuses 20 to 23 are those a node records while it is not the
master; after a change of master they say a restart runs but not which phases it did.

The estimate:

- the restart is what follows the node id's allocation: secs_to_complete_node_failure and
  secs_to_allocate_node_id measure how long the node was down, and secs_for_local_recovery is
  the sum of the four columns after it, so none of them counts;
- elapsed: the seconds of the node's completed restart phases, plus the time in its current
  phase, known from its uptime (ndbinfo.nodes, counted from its process start, when it
  allocated its node id) less those seconds; a node without a nodes row counts none;
- remaining: for each other data node whose last restart completed, what its phases from the
  current one on took, less the time already spent in the current one (at least 0); the
  median of those;
- ratio: elapsed / (elapsed + remaining), at most ``RATIO_CAP`` until the node has started.

Without another data node's completed restart there is no estimate."""

from __future__ import annotations

import statistics
from collections.abc import Iterable
from dataclasses import dataclass

from .base import Row, number

PHASE_COLUMNS = (
    "secs_to_complete_node_failure",
    "secs_to_allocate_node_id",
    "secs_to_include_in_heartbeat_protocol",
    "secs_until_wait_for_ndbcntr_master",
    "secs_wait_for_ndbcntr_master",
    "secs_to_get_start_permitted",
    "secs_to_wait_for_lcp_for_copy_meta_data",
    "secs_to_copy_meta_data",
    "secs_to_include_node",
    "secs_starting_node_to_request_local_recovery",
    "secs_for_local_recovery",
    "secs_restore_fragments",
    "secs_undo_disk_data",
    "secs_exec_redo_log",
    "secs_index_rebuild",
    "secs_to_synchronize_starting_node",
    "secs_wait_lcp_for_restart",
    "secs_wait_subscription_handover",
)
DOWN_COLUMNS = ("secs_to_complete_node_failure", "secs_to_allocate_node_id")
LOCAL_RECOVERY = "secs_for_local_recovery"
RESTART_PHASES = tuple(c for c in PHASE_COLUMNS if c not in (*DOWN_COLUMNS, LOCAL_RECOVERY))
STATUS_INT = "node_restart_status_int"
UPTIME = "uptime"

# NodeRecord::NodeRecoveryStatus (Dbdih.hpp)
ALLOCATED_NODE_ID = 4
RESTART_COMPLETED = 19
NODE_GETTING_PERMIT = 20
NODE_ACTIVE = 24
RATIO_CAP = 0.99


@dataclass(frozen=True)
class Estimate:
    elapsed_seconds: float
    remaining_seconds: float

    @property
    def ratio(self) -> float:
        expected = self.elapsed_seconds + self.remaining_seconds
        return min(RATIO_CAP, self.elapsed_seconds / expected) if expected > 0 else 0.0


def _status(row: Row) -> int | None:
    value = number(row.get(STATUS_INT))
    return None if value is None else int(value)


def restarting(row: Row) -> bool:
    """The row is of a restart under way: past the node id's allocation, not completed."""
    status = _status(row)
    return status is not None and (
        ALLOCATED_NODE_ID <= status < RESTART_COMPLETED
        or NODE_GETTING_PERMIT <= status < NODE_ACTIVE
    )


def estimates(rows: Iterable[Row]) -> dict[int, Estimate]:
    """node id -> the estimate of its restart, for each node whose restart is under way and
    that another node's completed restart can be compared with."""
    rows = list(rows)
    done = [r for r in rows if _status(r) == RESTART_COMPLETED]
    found = {}
    for row in filter(restarting, rows):
        node = int(number(row["node_id"]) or 0)
        others = [r for r in done if number(r["node_id"]) != node]
        if others:
            found[node] = _estimate(row, others)
    return found


def _estimate(row: Row, completed: list[Row]) -> Estimate:
    """The estimate for one restarting node's row beside the rows of completed restarts."""
    status = _status(row) or 0
    if status < RESTART_COMPLETED:
        current = status - ALLOCATED_NODE_ID  # 4..18 time RESTART_PHASES in their order
        done = sum(_seconds(row, c) for c in RESTART_PHASES[:current])
        now, later = RESTART_PHASES[current : current + 1], RESTART_PHASES[current + 1 :]
    else:  # a non-master status: the phases done are not known
        done, now, later = 0.0, RESTART_PHASES, ()
    uptime = number(row.get(UPTIME))
    in_current = max(0.0, uptime - done) if uptime is not None else 0.0
    remaining = statistics.median(
        max(0.0, sum(_seconds(r, c) for c in now) - in_current) + sum(_seconds(r, c) for c in later)
        for r in completed
    )
    return Estimate(elapsed_seconds=done + in_current, remaining_seconds=remaining)


def _seconds(row: Row, column: str) -> float:
    return number(row.get(column)) or 0.0
