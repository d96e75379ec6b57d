"""ndbinfo latency ranges -> Prometheus histograms in seconds.

The time-track tables count, per range, the operations whose time fell in it (not cumulative)
and keep no sum. ``_bucket`` is the running total up to an upper bound. Every ``stride``-th
bound of the data node's, from rank ``first`` to rank ``last``, is exported: the running total
at a subset of the bounds is still exact, and each bucket is one more series per data node
(the data nodes' ranges are finer than alerting and dashboards need). The last range takes
everything slower than the one before, so it counts only in ``+Inf``. ``_sum`` is an estimate: each range's
count times its midpoint, the last one's at its lower bound, so ``_sum / _count`` is an
approximate mean (a lower bound when many operations fall in the last range); quantiles come
from the buckets (``histogram_quantile``), which do not use ``_sum``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from prometheus_client.core import HistogramMetricFamily

from .base import Row, SlowChanging, number, text


def histogram(
    ranges: Iterable[tuple[float, float]], stride: int, first: int, last: int
) -> tuple[list[tuple[str, float]], float]:
    """(upper bound in microseconds, count in that range) -> the buckets [(le in seconds,
    cumulative count)] at the bounds of ranks first, first + stride, ... up to last, plus
    +Inf, and the estimated sum in seconds."""
    ordered = sorted(ranges)
    buckets: list[tuple[str, float]] = []
    total = estimate = lower = 0.0
    for rank, (upper, count) in enumerate(ordered):
        unbounded = rank == len(ordered) - 1
        estimate += count * (lower if unbounded else (lower + upper) / 2)
        total += count
        exported = first <= rank <= last and (rank - first) % stride == 0
        if rank < len(ordered) - 1 and exported:
            buckets.append((repr(upper / 1e6), total))
        lower = upper
    buckets.append(("+Inf", total))
    return buckets, estimate / 1e6


def add_histograms(
    family: HistogramMetricFamily,
    labels: list[str],
    ranges: list[Row],
    operations: Mapping[str, str],
    stride: int,
    first: int,
    last: int,
) -> None:
    """One histogram per operation (label value -> count column) from one group's rows, one
    row per range with its ``upper_bound``; none for an operation with a range without a
    count, rather than a wrong one."""
    for operation, column in operations.items():
        counts = [(number(row["upper_bound"]), number(row[column])) for row in ranges]
        if any(None in pair for pair in counts):
            continue
        buckets, total = histogram(counts, stride, first, last)
        family.add_metric([*labels, operation], buckets, total)


def idle_until_counted(columns: Iterable[str]) -> SlowChanging:
    """Histograms change with every operation once there are any: read at every scrape. Until
    a count appears (no disk data page read on any data node, no transaction since the nodes
    started), the rows change only when a data node starts or a table is created, or are read
    again at the maximum age: a cluster without disk data does not scan its page cache's
    ranges at every scrape."""
    counted = tuple(columns)

    def idle(rows: list[Row]) -> bool:
        return not any(
            number(count)
            for row in rows
            for column in counted
            for count in text(row[column]).split(",")
        )

    return SlowChanging(frozenset({"nodes", "ddl"}), idle=idle)


def concatenated(ranges_sql: str, keys: tuple[str, ...], columns: tuple[str, ...]) -> str:
    """One row per group of ``keys`` from ``ranges_sql`` (a row per group and range): the
    ranges' upper bounds and each count column as comma-separated lists in the order of the
    bounds (GROUP_CONCAT; a NULL count is an empty item), so that the SQL node sends a row per
    data node instead of one per range. 32 ranges of 20 digits stay well within MySQL's
    group_concat_max_len (1,024 by default)."""
    lists = ", ".join(
        f"GROUP_CONCAT(COALESCE(CAST({column} AS CHAR), '') ORDER BY upper_bound) AS {column}"
        for column in ("upper_bound", *columns)
    )
    grouped = ", ".join(keys)
    return f"SELECT {grouped}, {lists} FROM ({ranges_sql}) ranges GROUP BY {grouped}"


def split_ranges(row: Row, columns: tuple[str, ...]) -> list[dict]:
    """A row of ``concatenated`` -> a row per range: its upper bound and counts (None for an
    empty item)."""
    lists = {column: text(row[column]).split(",") for column in ("upper_bound", *columns)}
    return [
        {column: values[rank] or None for column, values in lists.items()}
        for rank in range(len(lists["upper_bound"]))
    ]
