"""Row locks held and lock requests waiting per data node, and the longest wait, from
ndbinfo.cluster_locks (no transaction or row ids: bounded labels)."""

from __future__ import annotations

from collections.abc import Iterable

from .base import Collector, Context, Row, add_value, gauge, ident, number

# nodes is joined so that a data node without locks still reports 0.
SQL = (
    "SELECT n.node_id,"
    " SUM(CASE WHEN l.state = 'H' THEN 1 ELSE 0 END) AS held,"
    " SUM(CASE WHEN l.state = 'W' THEN 1 ELSE 0 END) AS waiting,"
    " MAX(CASE WHEN l.state = 'W' THEN l.duration_millis ELSE 0 END) AS longest_wait,"
    " MAX(CASE WHEN l.state = 'H' THEN l.duration_millis ELSE 0 END) AS longest_held"
    " FROM ndbinfo.nodes n LEFT JOIN ndbinfo.cluster_locks l ON l.node_id = n.node_id"
    " GROUP BY n.node_id ORDER BY n.node_id"
)

LOCKS = gauge(
    "ndb_locks",
    "Row locks in the data node's lock manager (DBACC): held, or requests waiting for one.",
    ("node_id", "state"),
)
LONGEST = gauge(
    "ndb_lock_longest_seconds",
    "The longest a lock request of the data node has waited (state waiting) or a lock has"
    " been held (state held); 0 without one.",
    ("node_id", "state"),
)


def seconds(millis: float | None) -> float | None:
    return None if millis is None else millis / 1000


def collect(rows: list[Row], ctx: Context) -> Iterable:
    locks, longest = LOCKS.family(), LONGEST.family()
    for row in sorted(rows, key=lambda r: int(r["node_id"])):
        node = ident(row["node_id"])
        for state, count, millis in (
            ("held", "held", "longest_held"),
            ("waiting", "waiting", "longest_wait"),
        ):
            add_value(locks, [node, state], number(row[count]))
            add_value(longest, [node, state], seconds(number(row[millis])))
    yield locks
    yield longest


COLLECTOR = Collector(
    name="locks",
    help="Row locks held and lock requests waiting per data node, with the longest wait and"
    " hold (ndbinfo.cluster_locks). On by default: aggregated in SQL, one row per data node;"
    " the data nodes list their lock queues for it.",
    default_enabled=True,
    reads={
        "nodes": ("node_id",),
        "cluster_locks": ("node_id", "state", "duration_millis"),
    },
    min_version=(7, 5, 0),
    sql=SQL,
    collect=collect,
    metrics=(LOCKS, LONGEST),
)
