"""Status and duration of the last restart of each data node from ndbinfo.restart_info; the
duration of each of its 18 phases with the option ``phases``."""

from __future__ import annotations

from collections.abc import Iterable

from .base import (
    Collector,
    Context,
    Option,
    Row,
    SlowChanging,
    add_value,
    boolean,
    gauge,
    ident,
    number,
    text,
)

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


def phase_name(column: str) -> str:
    """secs_to_allocate_node_id -> allocate_node_id, secs_for_local_recovery -> local_recovery."""
    name = column.removeprefix("secs_")
    for prefix in ("to_", "for_"):
        name = name.removeprefix(prefix)
    return name


DURATION = gauge(
    "ndb_restart_duration_seconds",
    "Total duration of the last restart of the data node (total_restart_secs).",
    ("node_id",),
)
PHASE = gauge(
    "ndb_restart_phase_seconds",
    "Time the last restart of the data node spent in each phase (option phases).",
    ("node_id", "phase"),
)
STATUS = gauge(
    "ndb_restart_status",
    "Restart status text of the data node (node_restart_status, e.g. 'Restart completed'); always 1.",
    ("node_id", "status"),
)

SQL = (
    "SELECT node_id, node_restart_status, "
    + ", ".join(PHASE_COLUMNS)
    + ", total_restart_secs FROM ndbinfo.restart_info"
)


def collect(rows: list[Row], ctx: Context) -> Iterable:
    phases = bool(ctx.options.get("phases"))
    duration, phase, status = DURATION.family(), PHASE.family(), STATUS.family()
    for row in sorted(rows, key=lambda r: number(r["node_id"])):
        node = ident(row["node_id"])
        add_value(duration, [node], number(row["total_restart_secs"]))
        for column in PHASE_COLUMNS if phases else ():
            add_value(phase, [node, phase_name(column)], number(row[column]))
        status.add_metric([node, text(row["node_restart_status"])], 1.0)
    yield from (duration, phase, status) if phases else (duration, status)


COLLECTOR = Collector(
    name="restart_info",
    help="Status and duration of the last restart of each data node (ndbinfo.restart_info),"
    " the time spent in each phase with the option phases. On by default: one row per data"
    " node.",
    default_enabled=True,
    reads={
        "restart_info": ("node_id", "node_restart_status", *PHASE_COLUMNS, "total_restart_secs")
    },
    min_version=(7, 5, 0),
    sql=SQL,
    collect=collect,
    metrics=(DURATION, PHASE, STATUS),
    options=(
        Option(
            "phases",
            "Also export the seconds the last restart spent in each of its 18 phases (18 more"
            " series per data node); for finding the phase that makes restarts slow.",
            False,
            boolean,
        ),
    ),
    # A data node's restart record changes only while it restarts: each start phase, its
    # start and a restart no scrape saw in progress move the nodes signal.
    slow=SlowChanging(frozenset({"nodes"}), aged=False),
)
