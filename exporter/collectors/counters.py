"""Block counters (DBTC, DBLQH, DBSPJ) from ndbinfo.counters, summed over block instances in SQL."""

from __future__ import annotations

from collections.abc import Iterable

from .base import Collector, Context, Row, counter, ident, number, text

COUNTER = counter(
    "ndb_block_events_total",
    "Operations counted by the data node blocks since the node started (READS, WRITES,"
    " TABLE_SCANS, RANGE_SCANS, TRANSACTIONS, COMMITS, ABORTS, ...), summed over the block's"
    " instances; resets when the data node restarts.",
    ("node_id", "block", "counter"),
)

SQL = (
    "SELECT node_id, block_name, counter_name, SUM(val) AS val FROM ndbinfo.counters"
    " GROUP BY node_id, block_name, counter_name"
)


def collect(rows: list[Row], ctx: Context) -> Iterable:
    family = COUNTER.family()
    labelled = [
        (
            (number(row["node_id"]), text(row["block_name"]), text(row["counter_name"])),
            number(row["val"]),
        )
        for row in rows
        if number(row["val"]) is not None
    ]
    for (node, block, name), value in sorted(labelled):
        family.add_metric([ident(node), block, name], value)
    yield family


COLLECTOR = Collector(
    name="counters",
    help="DBTC, DBLQH and DBSPJ operation counters per data node (ndbinfo.counters, summed"
    " over block instances in SQL). On by default: about 30 rows per data node.",
    default_enabled=True,
    reads={"counters": ("node_id", "block_name", "counter_name", "val")},
    min_version=(7, 5, 0),
    sql=SQL,
    collect=collect,
    metrics=(COUNTER,),
)
