"""Open transactions per data node and state, and how long the most idle one has waited for
its client, from ndbinfo.cluster_transactions (no transaction ids: bounded labels)."""

from __future__ import annotations

from collections.abc import Iterable

from .base import Collector, Context, Row, gauge, ident, number, text

# nodes is joined so that a data node without open transactions still reports 0.
SQL = (
    "SELECT n.node_id, t.state, COUNT(t.transid) AS transactions,"
    " MAX(t.inactive_seconds) AS inactive_seconds"
    " FROM ndbinfo.nodes n LEFT JOIN ndbinfo.cluster_transactions t ON t.node_id = n.node_id"
    " GROUP BY n.node_id, t.state ORDER BY n.node_id, t.state"
)

OPEN = gauge(
    "ndb_transactions_open",
    "Transactions open in the data node's transaction coordinators, by state (Started,"
    " Receiving, Committing, ...).",
    ("node_id", "state"),
)
INACTIVE = gauge(
    "ndb_transaction_longest_inactive_seconds",
    "Seconds the most idle open transaction of the data node has waited for its client"
    " (cluster_transactions.inactive_seconds); 0 without open transactions.",
    ("node_id",),
)


def collect(rows: list[Row], ctx: Context) -> Iterable:
    open_family, inactive_family = OPEN.family(), INACTIVE.family()
    longest: dict[str, float] = {}
    for row in rows:
        node = ident(row["node_id"])
        longest[node] = max(longest.get(node, 0.0), number(row["inactive_seconds"]) or 0.0)
        if row["state"] is not None:
            open_family.add_metric([node, text(row["state"])], number(row["transactions"]) or 0)
    for node, seconds in sorted(longest.items(), key=lambda item: int(item[0])):
        inactive_family.add_metric([node], seconds)
    yield open_family
    yield inactive_family


COLLECTOR = Collector(
    name="transactions",
    help="Open transactions per data node and state, and the longest a transaction has been"
    " idle (ndbinfo.cluster_transactions). On by default: aggregated in SQL, one row per data"
    " node and state; the data nodes list their open transactions for it.",
    default_enabled=True,
    reads={
        "nodes": ("node_id",),
        "cluster_transactions": ("node_id", "transid", "state", "inactive_seconds"),
    },
    min_version=(7, 5, 0),
    sql=SQL,
    collect=collect,
    metrics=(OPEN, INACTIVE),
)
