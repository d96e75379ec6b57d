"""Redo and undo log space per log part from ndbinfo.logspaces."""

from __future__ import annotations

from collections.abc import Iterable

from ._logs import log_families
from .base import Collector, Context, Row, gauge

LABELS = ("node_id", "log_type", "log_id", "log_part")
USED = gauge(
    "ndb_log_space_used_bytes",
    "Log space in use (REDO per log part, DD-UNDO per log file group); a full redo log stops writes.",
    LABELS,
)
TOTAL = gauge("ndb_log_space_total_bytes", "Log space available.", LABELS)


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
