"""The replicated distribution state (table_fragments, table_replicas,
table_distribution_status) as one data node's copy: every data node may report its own."""

from __future__ import annotations

from .base import Row, number

# The objects signal of the refresh on change: what has fragments (tables, indexes, blob
# tables), counted and summed over one data node's copy of table_distribution_status.
# Creating or dropping one changes the count and the sum of ids, adding partitions the
# partitions and the fragments. Statements that carry these columns (grouped by node_id and
# more) give it.
OBJECT_SUMS = (
    "COUNT(*) AS tables, SUM(table_id) AS ids, SUM(tab_partitions) AS partitions,"
    " SUM(tab_fragments) AS fragments"
)
FINGERPRINT = ("tables", "ids", "partitions", "fragments")


def objects_fingerprint(rows: list[Row]) -> tuple[int, ...]:
    """The objects signal in rows carrying the columns of OBJECT_SUMS: their sums over the
    lowest reporting node's rows."""
    copy = one_copy(rows)
    return tuple(sum(int(number(row[column]) or 0) for row in copy) for column in FINGERPRINT)


def one_copy(rows: list[Row]) -> list[Row]:
    """The rows reported by the lowest reporting node id."""
    if not rows:
        return []
    reporter = min(number(row["node_id"]) for row in rows)
    return [row for row in rows if number(row["node_id"]) == reporter]
