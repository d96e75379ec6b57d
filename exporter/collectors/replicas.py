"""Fragment replicas and local checkpoints from ndbinfo.table_replicas, one data node's copy."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from ._one_copy import one_copy
from .base import Collector, Context, Row, SlowChanging, gauge, ident, number

ONE_COPY = " Read from one data node's copy of table_replicas (the lowest reporting node id)."

REPLICAS = gauge(
    "ndb_replicas",
    "Fragment replicas stored on each data node, alive or dead." + ONE_COPY,
    ("node_id", "state"),
)
CRASHED = gauge(
    "ndb_replicas_crashed",
    "Replicas on this data node with crashed replica instances not yet restored." + ONE_COPY,
    ("node_id",),
)
LCP_ONGOING = gauge(
    "ndb_replicas_lcp_ongoing",
    "Replicas on this data node with a local checkpoint in progress." + ONE_COPY,
    ("node_id",),
)
SQL = (
    "SELECT node_id, replica_node_id, is_replica_alive, COUNT(*) AS replicas,"
    " SUM(CASE WHEN num_crashed_replicas > 0 THEN 1 ELSE 0 END) AS crashed,"
    " SUM(is_lcp_ongoing) AS lcp_ongoing"
    " FROM ndbinfo.table_replicas"
    " GROUP BY node_id, replica_node_id, is_replica_alive"
)


def collect(rows: list[Row], ctx: Context) -> Iterable:
    counts: dict[tuple[str, str], float] = defaultdict(float)
    crashed: dict[str, float] = defaultdict(float)
    ongoing: dict[str, float] = defaultdict(float)
    for row in one_copy(rows):
        node = ident(row["replica_node_id"])
        alive = (number(row["is_replica_alive"]) or 0) > 0
        counts[node, "alive" if alive else "dead"] += number(row["replicas"]) or 0.0
        crashed[node] += number(row["crashed"]) or 0.0
        ongoing[node] += number(row["lcp_ongoing"]) or 0.0
    nodes = sorted({node for node, _ in counts}, key=int)
    replicas = REPLICAS.family()
    for node in nodes:
        for state in ("alive", "dead"):
            replicas.add_metric([node, state], counts.get((node, state), 0.0))
    yield replicas
    for spec, values in ((CRASHED, crashed), (LCP_ONGOING, ongoing)):
        family = spec.family()
        for node in nodes:
            family.add_metric([node], values[node])
        yield family


COLLECTOR = Collector(
    name="replicas",
    help="Alive and dead replicas per data node, crashed replicas, ongoing and completed local"
    " checkpoints (ndbinfo.table_replicas, one node's copy, aggregated in SQL). On by default:"
    " rows fetched are bounded by the data nodes; the data nodes still scan every replica.",
    default_enabled=True,
    reads={
        "table_replicas": (
            "node_id",
            "replica_node_id",
            "is_replica_alive",
            "num_crashed_replicas",
            "is_lcp_ongoing",
        )
    },
    min_version=(7, 5, 0),
    sql=SQL,
    collect=collect,
    metrics=(REPLICAS, CRASHED, LCP_ONGOING),
    slow=SlowChanging(frozenset({"nodes", "ddl", "objects"}), aged=False),
)
