"""Redo, undo and backup log use from ndbinfo.logspaces and ndbinfo.logbuffers.

The two views have the same columns and mean the same thing for different storage: the log
itself on disk (logspaces) and its buffer in memory (logbuffers). One collector each, so that
either can be turned off alone."""

from __future__ import annotations

from collections.abc import Iterable

from .base import Collector, Context, MetricSpec, Row, add_value, gauge, ident, number, text

LABELS = ("node_id", "log_type", "log_id", "log_part")
COLUMNS = (*LABELS, "total", "used")


def log_collector(view: str, help: str, used: MetricSpec, total: MetricSpec) -> Collector:
    """The collector of one log view: used and total bytes per node, log type, log id and
    log part."""

    def collect(rows: list[Row], ctx: Context) -> Iterable:
        return log_families(rows, used, total)

    return Collector(
        name=view,
        help=help,
        default_enabled=True,
        reads={view: COLUMNS},
        min_version=(7, 5, 0),
        sql=f"SELECT {', '.join(COLUMNS)} FROM ndbinfo.{view}",
        collect=collect,
        metrics=(used, total),
    )


def log_families(rows: list[Row], used_spec: MetricSpec, total_spec: MetricSpec) -> Iterable:
    """Used and total bytes, in the order of node, log type, log id and log part."""
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


LOGSPACES = log_collector(
    "logspaces",
    "Used and total redo and disk-data undo log space per data node and log part"
    " (ndbinfo.logspaces). On by default: one row per log part.",
    used=gauge(
        "ndb_log_space_used_bytes",
        "Log space in use (REDO per log part, DD-UNDO per log file group);"
        " a full redo log stops writes.",
        LABELS,
    ),
    total=gauge("ndb_log_space_total_bytes", "Log space available.", LABELS),
)
LOGBUFFERS = log_collector(
    "logbuffers",
    "Used and total redo, undo and backup log buffers per data node and log part"
    " (ndbinfo.logbuffers). On by default: one row per log part and buffer.",
    used=gauge(
        "ndb_log_buffer_used_bytes",
        "Log buffer in use (REDO, DD-UNDO, BACKUP-DATA, BACKUP-LOG);"
        " a full redo buffer fails writes.",
        LABELS,
    ),
    total=gauge("ndb_log_buffer_total_bytes", "Log buffer size.", LABELS),
)
COLLECTORS = (LOGSPACES, LOGBUFFERS)
