"""Disk data page cache (PGMAN) activity per data node from ndbinfo.diskpagebuffer."""

from __future__ import annotations

from collections.abc import Iterable

from .base import Collector, Context, Row, add_value, counter, ident, number

REQUESTS = counter(
    "ndb_disk_page_buffer_page_requests_total",
    "Disk data page requests: served from the cache (direct_return), queued behind a pending"
    " read of the same page (wait_queue) or waiting for a disk read (wait_io).",
    ("node_id", "result"),
)
WRITTEN = counter(
    "ndb_disk_page_buffer_pages_written_total",
    "Disk data pages written, by local checkpoints (lcp) or otherwise (other).",
    ("node_id", "cause"),
)
READ = counter(
    "ndb_disk_page_buffer_pages_read_total", "Disk data pages read from disk.", ("node_id",)
)
LOG_WAITS = counter(
    "ndb_disk_page_buffer_log_waits_total",
    "Page writes that waited for the undo log to be flushed first.",
    ("node_id",),
)

COLUMNS = (
    "pages_written",
    "pages_written_lcp",
    "pages_read",
    "log_waits",
    "page_requests_direct_return",
    "page_requests_wait_queue",
    "page_requests_wait_io",
)
SQL = (
    "SELECT node_id, "
    + ", ".join(f"SUM({column}) AS {column}" for column in COLUMNS)
    + " FROM ndbinfo.diskpagebuffer GROUP BY node_id"
)


def collect(rows: list[Row], ctx: Context) -> Iterable:
    requests, written, read, waits = (
        REQUESTS.family(),
        WRITTEN.family(),
        READ.family(),
        LOG_WAITS.family(),
    )
    for row in sorted(rows, key=lambda r: number(r["node_id"])):
        node = ident(row["node_id"])
        value = {column: number(row[column]) for column in COLUMNS}
        for result in ("direct_return", "wait_queue", "wait_io"):
            add_value(requests, [node, result], value[f"page_requests_{result}"])
        add_value(written, [node, "lcp"], value["pages_written_lcp"])
        if value["pages_written"] is not None and value["pages_written_lcp"] is not None:
            written.add_metric(
                [node, "other"], max(0.0, value["pages_written"] - value["pages_written_lcp"])
            )
        add_value(read, [node], value["pages_read"])
        add_value(waits, [node], value["log_waits"])
    yield from (requests, written, read, waits)


COLLECTOR = Collector(
    name="diskpagebuffer",
    help="Disk data page cache hits, waits, reads and writes per data node (ndbinfo.diskpagebuffer,"
    " summed over PGMAN instances in SQL). On by default: one row per data node.",
    default_enabled=True,
    reads={"diskpagebuffer": ("node_id", *COLUMNS)},
    min_version=(7, 5, 0),
    sql=SQL,
    collect=collect,
    metrics=(REQUESTS, WRITTEN, READ, LOG_WAITS),
)
