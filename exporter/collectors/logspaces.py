"""Redo and undo log space per log part from ndbinfo.logspaces."""

from __future__ import annotations

from collections.abc import Iterable

from .base import Collector, Context, MetricSpec, Row, add_value, gauge, ident, number, text

LABELS = ("node_id", "log_type", "log_id", "log_part")
USED = gauge(
    "ndb_log_space_used_bytes",
    "Log space in use (REDO per log part, DD-UNDO per log file group); a full redo log stops writes.",
    LABELS,
)
TOTAL = gauge("ndb_log_space_total_bytes", "Log space available.", LABELS)


def log_families(rows: list[Row], used_spec: MetricSpec, total_spec: MetricSpec) -> Iterable:
    """Used and total bytes per node, log type, log id and log part (logspaces and logbuffers)."""
    used, total = used_spec.family(), total_spec.family()
    labelled = sorted(
        (
            (
                (
                    number(r["node_id"]),
                    text(r["log_type"]),
                    number(r["log_id"]),
                    number(r["log_part"]),
                ),
                r,
            )
            for r in rows
        ),
        key=lambda item: item[0],
    )
    for (node, log_type, log_id, log_part), row in labelled:
        labels = [ident(node), log_type, ident(log_id), ident(log_part)]
        add_value(used, labels, number(row["used"]))
        add_value(total, labels, number(row["total"]))
    yield from (used, total)


def collect(rows: list[Row], ctx: Context) -> Iterable:
    return log_families(rows, USED, TOTAL)


COLLECTOR = Collector(
    name="logspaces",
    help="Used and total redo and disk-data undo log space per data node and log part"
    " (ndbinfo.logspaces). On by default: one row per log part.",
    default_enabled=True,
    reads={"logspaces": ("node_id", "log_type", "log_id", "log_part", "total", "used")},
    min_version=(7, 5, 0),
    sql="SELECT node_id, log_type, log_id, log_part, total, used FROM ndbinfo.logspaces",
    collect=collect,
    metrics=(USED, TOTAL),
)
