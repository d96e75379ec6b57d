"""Faults that act the moment they are set or cleared (a crash, an SQL node moving to another
API slot) rather than over cluster time."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ndbsim.model import api_slots, node_failures
from ndbsim.model.faults import SCHEMA_CHANGES
from ndbsim.model.ndbd_exit_codes import NO_START_PHASE
from ndbsim.model.start_phases import start_phase

if TYPE_CHECKING:
    from ndbsim.model.cluster import Cluster


def lcp_stalled(c: Cluster) -> bool:
    """Local checkpoints do not complete (lcp-stall, lcp-keep-gci-stall)."""
    return c.faults.is_active("lcp-stall") or c.faults.is_active("lcp-keep-gci-stall")


def redo_lag_slows_checkpoints(c: Cluster, node_id: int) -> bool:
    """Whether the BACKUP block asks Dblqh if the redo log lags, and so counts
    slowdowns_due_to_io_lag: Backup::calculate_disk_write_speed returns at the lowest speed
    before it asks when MaxDiskWriteSpeed leaves no room above MinDiskWriteSpeed."""
    config = c.config[node_id]
    return int(config["MaxDiskWriteSpeed"]) > int(config["MinDiskWriteSpeed"])


def changed(c: Cluster, name: str) -> None:
    params = c.faults.get(name)
    if name == "data-node-crash" and params is not None and "phase" not in params:
        crash_now(c, params["node"], params["error"])
    elif name in SCHEMA_CHANGES and params is not None:
        # the application's first SQL node runs the ALTER TABLE
        c.sql_nodes[c.sql_node_id].alter_tables += 1
    elif name == "sql-node-slot-taken":
        if params is not None:
            api_slots.take(c, params["node"])
        else:
            api_slots.restore(c)


def crash_now(c: Cluster, node_id: int, error: int) -> None:
    """A running data node crashes: during its start, the start phase it was in is told."""
    s = c.nodes[node_id]
    if s.state == "STOPPED":
        return
    sphase = start_phase(c, node_id) if s.state == "STARTING" else NO_START_PHASE
    node_failures.crash(c, node_id, error, sphase)


def node_release(c: Cluster, node_id: int) -> tuple[int, int, int]:
    """The release a data or management node runs: the cluster's, or the previous one for
    the node old-version names."""
    major, minor, build = c.version.numbers
    params = c.faults.get("old-version")
    if params is None or params["node"] != node_id:
        return major, minor, build
    return (major, minor, build - 1) if build else (major, minor - 1, 0)
