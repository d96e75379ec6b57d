"""The replicated distribution state (table_fragments, table_replicas,
table_distribution_status) as one data node's copy: every data node may report its own."""

from __future__ import annotations

from .base import Row, number


def one_copy(rows: list[Row]) -> list[Row]:
    """The rows reported by the lowest reporting node id."""
    if not rows:
        return []
    reporter = min(number(row["node_id"]) for row in rows)
    return [row for row in rows if number(row["node_id"]) == reporter]
