"""Per-thread CPU time and signals executed of the data nodes from ndbinfo.threadstat."""

from __future__ import annotations

from collections.abc import Iterable

from .base import Collector, Context, Row, counter, ident, number, text

LABELS = ("node_id", "thr_no", "thread")
USER = counter(
    "ndb_thread_cpu_user_seconds_total", "User CPU time of the data node thread.", LABELS
)
SYSTEM = counter(
    "ndb_thread_cpu_system_seconds_total", "System CPU time of the data node thread.", LABELS
)
SIGNALS = counter(
    "ndb_thread_signals_executed_total", "Signals executed by the data node thread.", LABELS
)

SQL = "SELECT node_id, thr_no, thr_nm, os_ru_utime, os_ru_stime, c_exec FROM ndbinfo.threadstat"


def collect(rows: list[Row], ctx: Context) -> Iterable:
    families = (
        (USER.family(), "os_ru_utime", 1e-6),
        (SYSTEM.family(), "os_ru_stime", 1e-6),
        (SIGNALS.family(), "c_exec", 1),
    )
    for row in sorted(rows, key=lambda r: (number(r["node_id"]), number(r["thr_no"]))):
        labels = [ident(row["node_id"]), ident(row["thr_no"]), text(row["thr_nm"])]
        for family, column, scale in families:
            if number(row[column]) is not None:
                family.add_metric(labels, number(row[column]) * scale)
    yield from (family for family, _, _ in families)


COLLECTOR = Collector(
    name="threads",
    help="User and system CPU time and signals executed per data node thread (main, ldm, tc,"
    " recv, send, rep, io, ...) (ndbinfo.threadstat). On by default: one row per thread.",
    default_enabled=True,
    reads={"threadstat": ("node_id", "thr_no", "thr_nm", "os_ru_utime", "os_ru_stime", "c_exec")},
    min_version=(7, 5, 0),
    sql=SQL,
    collect=collect,
    metrics=(USER, SYSTEM, SIGNALS),
)
