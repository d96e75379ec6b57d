"""Latency of disk data page reads and writes and of waits for the undo log, as the data
nodes' page caches (PGMAN) measure it, from ndbinfo.pgman_time_track_stats, as histograms."""

from __future__ import annotations

from collections.abc import Iterable
from itertools import groupby

from ._histograms import add_histograms, concatenated, idle_until_counted, split_ranges
from .base import Collector, Context, Row, ident, number
from .base import histogram as histogram_spec

# PGMAN's ranges end at 0, 16, 32, ... 2^21 us and one unbounded range; every third one
# from 128 us gives 5 buckets at 128 us, 1 ms, 8 ms, 66 ms and 0.5 s: a disk page read or
# write takes 0.1 ms on fast flash and some milliseconds on spinning disks.
STRIDE, FIRST, LAST = 3, 4, 16
OPERATIONS = {"page_read": "page_reads", "page_write": "page_writes", "log_wait": "log_waits"}

COUNTS = tuple(OPERATIONS.values())
RANGES = (
    "SELECT node_id, upper_bound, SUM(page_reads) AS page_reads,"
    " SUM(page_writes) AS page_writes, SUM(log_waits) AS log_waits"
    " FROM ndbinfo.pgman_time_track_stats GROUP BY node_id, upper_bound"
)
# A row per data node: the 20 ranges' counts as lists.
SQL = concatenated(RANGES, ("node_id",), COUNTS)

TIME = histogram_spec(
    "ndb_pgman_operation_duration_seconds",
    "Time of disk data page reads, page writes and waits for the undo log before a page"
    " write, as the data node's PGMAN instances measured it; summed over the instances."
    " _sum is estimated from the range midpoints.",
    ("node_id", "operation"),
)


def collect(rows: list[Row], ctx: Context) -> Iterable:
    family = TIME.family()
    ordered = sorted(rows, key=lambda r: number(r["node_id"]))
    for node, grouped in groupby(ordered, key=lambda r: ident(r["node_id"])):
        ranges = [item for row in grouped for item in split_ranges(row, COUNTS)]
        add_histograms(family, [node], ranges, OPERATIONS, STRIDE, FIRST, LAST)
    yield family


COLLECTOR = Collector(
    name="pgman_latency",
    help="Latency histograms of disk data page reads, writes and undo log waits per data node"
    " (ndbinfo.pgman_time_track_stats), in seconds (counts stay 0 without disk data tables)."
    " On by default: 20 ranges per PGMAN instance, summed per data node in SQL, exported as"
    " 5 buckets, 24 series per data node.",
    default_enabled=True,
    reads={
        "pgman_time_track_stats": (
            "node_id",
            "upper_bound",
            "page_reads",
            "page_writes",
            "log_waits",
        )
    },
    min_version=(8, 0, 20),
    sql=SQL,
    collect=collect,
    metrics=(TIME,),
    slow=idle_until_counted(COUNTS),
)
