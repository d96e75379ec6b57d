"""Redo, undo and backup log buffers from ndbinfo.logbuffers."""

from __future__ import annotations

from collections.abc import Iterable

from ._logs import log_families
from .base import Collector, Context, Row, gauge

LABELS = ("node_id", "log_type", "log_id", "log_part")
USED = gauge(
    "ndb_log_buffer_used_bytes",
    "Log buffer in use (REDO, DD-UNDO, BACKUP-DATA, BACKUP-LOG); a full redo buffer fails writes.",
    LABELS,
)
TOTAL = gauge("ndb_log_buffer_total_bytes", "Log buffer size.", LABELS)


def collect(rows: list[Row], ctx: Context) -> Iterable:
    return log_families(rows, USED, TOTAL)


COLLECTOR = Collector(
    name="logbuffers",
    help="Used and total redo, undo and backup log buffers per data node and log part"
    " (ndbinfo.logbuffers). On by default: one row per log part and buffer.",
    default_enabled=True,
    reads={"logbuffers": ("node_id", "log_type", "log_id", "log_part", "total", "used")},
    min_version=(7, 5, 0),
    sql="SELECT node_id, log_type, log_id, log_part, total, used FROM ndbinfo.logbuffers",
    collect=collect,
    metrics=(USED, TOTAL),
)
