"""Status and duration of the last restart of each data node from ndbinfo.restart_info; the
duration of each of its 18 phases with the option ``phases``; for a restart under way, how far
it has come and how long it has left (``_restart_progress``)."""

from __future__ import annotations

from collections.abc import Iterable

from ._restart_progress import PHASE_COLUMNS, STATUS_INT, UPTIME, estimates, restarting
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
PROGRESS = gauge(
    "ndb_restart_progress_ratio",
    "Estimated share (0 to 0.99) of its restart a restarting data node has done: the seconds"
    " of its completed restart phases and of its current one (from its uptime) over those plus"
    " the remaining seconds; only while the restart is under way and another data node's"
    " last restart completed.",
    ("node_id",),
)
REMAINING = gauge(
    "ndb_restart_remaining_seconds",
    "Estimated seconds until a restarting data node has started: the median, over the other"
    " data nodes' last completed restarts, of the seconds their phases from the current one on"
    " took, less the time already spent in the current one; only while the restart is under"
    " way.",
    ("node_id",),
)

# The restarting node's uptime times its current phase: it counts from its process start.
SQL = (
    f"SELECT r.node_id, r.node_restart_status, r.{STATUS_INT}, "
    + ", ".join(f"r.{column}" for column in PHASE_COLUMNS)
    + f", r.total_restart_secs, n.{UPTIME} FROM ndbinfo.restart_info r"
    " LEFT JOIN ndbinfo.nodes n ON n.node_id = r.node_id"
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
    yield from progress(rows)


def progress(rows: list[Row]) -> Iterable:
    """The estimate of each restart under way, when there is one."""
    found = estimates(rows)
    if not found:
        return
    ratio, remaining = PROGRESS.family(), REMAINING.family()
    for node, estimate in sorted(found.items()):
        ratio.add_metric([str(node)], estimate.ratio)
        remaining.add_metric([str(node)], estimate.remaining_seconds)
    yield from (ratio, remaining)


COLLECTOR = Collector(
    name="restart_info",
    help="Status and duration of the last restart of each data node (ndbinfo.restart_info),"
    " the time spent in each phase with the option phases, and for a restart under way an"
    " estimate of its progress and of the time it has left. On by default: one row per data"
    " node, read at every scrape while a restart is under way.",
    default_enabled=True,
    reads={
        "restart_info": (
            "node_id",
            "node_restart_status",
            STATUS_INT,
            *PHASE_COLUMNS,
            "total_restart_secs",
        ),
        "nodes": ("node_id", UPTIME),
    },
    min_version=(7, 5, 0),
    sql=SQL,
    collect=collect,
    metrics=(DURATION, PHASE, STATUS, PROGRESS, REMAINING),
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
    # start and a restart no scrape saw in progress move the nodes signal; while a restart is
    # under way its phases and the estimate move at every scrape.
    slow=SlowChanging(
        frozenset({"nodes"}), settled=lambda rows: not any(map(restarting, rows)), aged=False
    ),
)
