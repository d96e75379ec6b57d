"""Latency of transactions, key operations and scans as the data nodes' transaction
coordinators (DBTC) measure it, from ndbinfo.tc_time_track_stats, as histograms in seconds."""

from __future__ import annotations

from collections.abc import Iterable
from itertools import groupby

from ._histograms import add_histograms, concatenated, idle_until_counted, split_ranges
from .base import Collector, Context, Option, Row, boolean, counter, ident, number
from .base import histogram as histogram_spec

# DBTC's 32 ranges grow by 1.5 from 50 us; every third one up to the 25th gives 9 buckets
# growing by 3.4 from 50 us to 0.84 s, slower operations count in +Inf.
STRIDE, FIRST, LAST = 3, 0, 24
OPERATIONS = {"transaction": "transactions", "key": "key_ops", "scan": "scans"}
ERRORS = {"transaction": "transaction_errors", "key": "key_op_errors", "scan": "scan_errors"}

COUNTS = (*OPERATIONS.values(), *ERRORS.values())
RANGES = (
    "SELECT node_id, CASE WHEN %s = 1 THEN comm_node_id ELSE 0 END AS comm_node_id,"
    " upper_bound, SUM(transactions) AS transactions,"
    " SUM(read_key_ops + write_key_ops + index_key_ops) AS key_ops, SUM(scans) AS scans,"
    " SUM(transaction_errors) AS transaction_errors, SUM(key_op_errors) AS key_op_errors,"
    " SUM(scan_errors) AS scan_errors"
    " FROM ndbinfo.tc_time_track_stats"
    " GROUP BY node_id, CASE WHEN %s = 1 THEN comm_node_id ELSE 0 END, upper_bound"
)
# A row per data node (and client node): the 32 ranges' counts as lists.
SQL = concatenated(RANGES, ("node_id", "comm_node_id"), COUNTS)


def _labels(per_api: bool) -> tuple[str, ...]:
    return ("node_id", "comm_node_id", "operation") if per_api else ("node_id", "operation")


TIME_HELP = (
    "Time from start to end of successful transactions, key operations (primary and unique"
    " key reads and writes) and scans, as the data node's TC instances measured it; summed"
    " over TC instances and client nodes. _sum is estimated from the range midpoints."
)
ERRORS_HELP = "Transactions, key operations and scans that ended in an error."
TIME = histogram_spec("ndb_tc_operation_duration_seconds", TIME_HELP, _labels(False))
ERRORS_TOTAL = counter("ndb_tc_operation_errors_total", ERRORS_HELP, _labels(False))


def per_api(ctx: Context) -> bool:
    return bool(ctx.options.get("per_api", False))


def params(ctx: Context) -> tuple[int, int]:
    flag = 1 if per_api(ctx) else 0
    return flag, flag


def collect(rows: list[Row], ctx: Context) -> Iterable:
    detail = per_api(ctx)
    labels = _labels(detail)
    time = histogram_spec(TIME.name, TIME.help, labels).family()
    errors = counter(ERRORS_TOTAL.name, ERRORS_TOTAL.help, labels).family()

    def key(row: Row) -> tuple[str, ...]:
        node = ident(row["node_id"])
        return (node, ident(row["comm_node_id"])) if detail else (node,)

    def order(row: Row) -> tuple:
        return (number(row["node_id"]), number(row["comm_node_id"]))

    for group, items in groupby(sorted(rows, key=order), key):
        ranges = [item for row in items for item in split_ranges(row, COUNTS)]
        add_histograms(time, list(group), ranges, OPERATIONS, STRIDE, FIRST, LAST)
        for operation, column in ERRORS.items():
            counts = [number(r[column]) for r in ranges]
            if None not in counts:
                errors.add_metric([*group, operation], sum(counts))
    yield time
    yield errors


COLLECTOR = Collector(
    name="tc_latency",
    help="Latency histograms of transactions, key operations and scans per data node"
    " (ndbinfo.tc_time_track_stats), in seconds, and their errors. On by default: the data"
    " nodes keep 32 ranges per TC instance and client node; the exporter sums them per data"
    " node in SQL and exports every third range up to 0.84 s as a bucket.",
    default_enabled=True,
    reads={
        "tc_time_track_stats": (
            "node_id",
            "comm_node_id",
            "upper_bound",
            "transactions",
            "read_key_ops",
            "write_key_ops",
            "index_key_ops",
            "scans",
            "transaction_errors",
            "key_op_errors",
            "scan_errors",
        )
    },
    min_version=(7, 5, 0),
    sql=SQL,
    collect=collect,
    params=params,
    options=(
        Option(
            "per_api",
            "Also label by the client node (comm_node_id): which SQL or API node the latency"
            " is seen from. Multiplies the series by the client nodes.",
            False,
            boolean,
        ),
    ),
    metrics=(TIME, ERRORS_TOTAL),
    slow=idle_until_counted(COUNTS),
)
