"""Fragment placement from ndbinfo.table_fragments, one data node's copy.

The distribution information is replicated: every data node may report its own copy of
the same fragments. The SQL groups by the reporting node so that the rows fetched stay
bounded by the number of data nodes, and the collector keeps the copy of the lowest node
id in the result.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from ._one_copy import one_copy
from .base import Collector, Context, Row, SlowChanging, gauge, ident, number

ONE_COPY = " Read from one data node's copy of table_fragments (the lowest reporting node id)."

FRAGMENTS = gauge(
    "ndb_fragments",
    "Fragments of all tables, unique indexes and blob tables." + ONE_COPY,
)
PRIMARIES = gauge(
    "ndb_fragment_primaries",
    "Fragments whose current primary replica is on this data node." + ONE_COPY,
    ("node_id",),
)
PREFERRED = gauge(
    "ndb_fragment_preferred_primaries",
    "Fragments whose preferred primary replica is on this data node." + ONE_COPY,
    ("node_id",),
)
NOT_PREFERRED = gauge(
    "ndb_fragments_not_on_preferred_primary",
    "Fragments preferring this data node as primary whose current primary is another node"
    " (after a node restart, until primaries are rebalanced)." + ONE_COPY,
    ("node_id",),
)
DEAD = gauge(
    "ndb_fragments_with_dead_replicas",
    "Fragments with at least one dead replica (redundancy reduced)." + ONE_COPY,
)

SQL = (
    "SELECT node_id, current_primary, preferred_primary, COUNT(*) AS fragments,"
    " SUM(CASE WHEN num_dead_replicas > 0 THEN 1 ELSE 0 END) AS with_dead_replicas"
    " FROM ndbinfo.table_fragments"
    " GROUP BY node_id, current_primary, preferred_primary"
)


def settled(rows: list[Row]) -> bool:
    """Primaries away from their preferred node while no replica is dead are being handed
    back (after a node restart): re-read until they are. Dead replicas change only with
    the nodes' states, which are signals of their own."""
    copy = one_copy(rows)
    if any(number(row["with_dead_replicas"]) for row in copy):
        return True
    return all(ident(row["current_primary"]) == ident(row["preferred_primary"]) for row in copy)


def collect(rows: list[Row], ctx: Context) -> Iterable:
    total = dead = 0.0
    primaries: dict[str, float] = defaultdict(float)
    preferred: dict[str, float] = defaultdict(float)
    misplaced: dict[str, float] = defaultdict(float)
    for row in one_copy(rows):
        count = number(row["fragments"]) or 0.0
        current, wanted = ident(row["current_primary"]), ident(row["preferred_primary"])
        total += count
        dead += number(row["with_dead_replicas"]) or 0.0
        primaries[current] += count
        preferred[wanted] += count
        misplaced[wanted] += count if current != wanted else 0.0
    nodes = sorted(set(primaries) | set(preferred), key=int)
    fragments = FRAGMENTS.family()
    fragments.add_metric([], total)
    yield fragments
    for spec, values in (
        (PRIMARIES, primaries),
        (PREFERRED, preferred),
        (NOT_PREFERRED, misplaced),
    ):
        family = spec.family()
        for node in nodes:
            family.add_metric([node], values.get(node, 0.0))
        yield family
    with_dead = DEAD.family()
    with_dead.add_metric([], dead)
    yield with_dead


COLLECTOR = Collector(
    name="fragments",
    help="Fragment counts, primaries per data node, fragments off their preferred primary and"
    " fragments with dead replicas (ndbinfo.table_fragments, one node's copy, aggregated in"
    " SQL). On by default: rows fetched are bounded by the data nodes, not the tables; the data"
    " nodes still scan every fragment.",
    default_enabled=True,
    reads={
        "table_fragments": (
            "node_id",
            "current_primary",
            "preferred_primary",
            "num_dead_replicas",
        )
    },
    min_version=(7, 5, 0),
    sql=SQL,
    collect=collect,
    metrics=(FRAGMENTS, PRIMARIES, PREFERRED, NOT_PREFERRED, DEAD),
    slow=SlowChanging(frozenset({"nodes", "ddl", "objects"}), settled=settled, aged=False),
)
