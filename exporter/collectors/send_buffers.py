"""Send buffers of each data node, summed over its links (ndbinfo.transporter_details), against
the send buffer memory it may use (TRANSPORTER_BUFFERS in ndbinfo.resources)."""

from __future__ import annotations

from collections.abc import Iterable

from .base import Collector, Context, Row, gauge, ident, number

PAGE_BYTES = 32768
LABELS = ("node_id",)
SUMMED = " Summed over the data node's links to every other node."

USED = gauge(
    "ndb_send_buffer_used_bytes",
    "Bytes waiting in the data node's send buffers." + SUMMED,
    LABELS,
)
ALLOCATED = gauge(
    "ndb_send_buffer_allocated_bytes",
    "Send buffer memory allocated to the data node's links." + SUMMED,
    LABELS,
)
FULLEST = gauge(
    "ndb_send_buffer_fullest_link_bytes",
    "Bytes waiting in the send buffer of the data node's fullest link.",
    LABELS,
)
LIMIT = gauge(
    "ndb_send_buffer_limit_bytes",
    "Send buffer memory the data node may use (TRANSPORTER_BUFFERS maximum; absent when the"
    " pool has no fixed maximum).",
    LABELS,
)

SQL = (
    "SELECT t.node_id, SUM(t.sendbuffer_used_bytes) AS used_bytes,"
    " SUM(t.sendbuffer_alloc_bytes) AS allocated_bytes,"
    " MAX(t.sendbuffer_used_bytes) AS fullest_link_bytes, MAX(r.`max`) AS limit_pages"
    " FROM ndbinfo.transporter_details t LEFT JOIN ndbinfo.resources r"
    " ON r.node_id = t.node_id AND r.resource_name = 'TRANSPORTER_BUFFERS'"
    " GROUP BY t.node_id"
)


def collect(rows: list[Row], ctx: Context) -> Iterable:
    used, allocated, fullest, limit = (
        USED.family(),
        ALLOCATED.family(),
        FULLEST.family(),
        LIMIT.family(),
    )
    for row in sorted(rows, key=lambda r: number(r["node_id"])):
        node = [ident(row["node_id"])]
        used.add_metric(node, number(row["used_bytes"]) or 0.0)
        allocated.add_metric(node, number(row["allocated_bytes"]) or 0.0)
        fullest.add_metric(node, number(row["fullest_link_bytes"]) or 0.0)
        pages = number(row["limit_pages"])
        if pages:
            limit.add_metric(node, pages * PAGE_BYTES)
    yield from (used, allocated, fullest, limit)


COLLECTOR = Collector(
    name="send_buffers",
    help="Send buffer bytes used and allocated per data node, summed over its links"
    " (ndbinfo.transporter_details, 8.0.37+), the fullest link, and the send buffer memory"
    " the node may use (ndbinfo.resources TRANSPORTER_BUFFERS). On by default: one row per"
    " data node.",
    default_enabled=True,
    reads={
        "transporter_details": (
            "node_id",
            "sendbuffer_used_bytes",
            "sendbuffer_alloc_bytes",
        ),
        "resources": ("node_id", "resource_name", "max"),
    },
    min_version=(8, 0, 37),
    sql=SQL,
    collect=collect,
    metrics=(USED, ALLOCATED, FULLEST, LIMIT),
)
