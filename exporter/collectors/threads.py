"""CPU time and signals executed per data node thread from ndbinfo.threadstat."""

from __future__ import annotations

from collections.abc import Iterable

from .base import Collector, Context, Option, Row, add_value, boolean, counter, ident, number, text

LABELS = ("node_id", "thr_no", "thread")
CPU = counter(
    "ndb_thread_cpu_seconds_total",
    "CPU time of the data node thread as the OS counts it (user and system; split by the"
    " label mode with the option cpu-modes).",
    LABELS,
)
SIGNALS = counter(
    "ndb_thread_signals_executed_total", "Signals executed by the data node thread.", LABELS
)

SQL = "SELECT node_id, thr_no, thr_nm, os_ru_utime, os_ru_stime, c_exec FROM ndbinfo.threadstat"
MODES = {"user": "os_ru_utime", "system": "os_ru_stime"}


def microseconds(value: float | None) -> float | None:
    return None if value is None else value * 1e-6


def collect(rows: list[Row], ctx: Context) -> Iterable:
    modes = bool(ctx.options.get("cpu-modes"))
    cpu = counter(CPU.name, CPU.help, (*LABELS, "mode") if modes else LABELS).family()
    signals = SIGNALS.family()
    for row in sorted(rows, key=lambda r: (number(r["node_id"]), number(r["thr_no"]))):
        labels = [ident(row["node_id"]), ident(row["thr_no"]), text(row["thr_nm"])]
        times = {mode: microseconds(number(row[column])) for mode, column in MODES.items()}
        if modes:
            for mode, seconds in times.items():
                add_value(cpu, [*labels, mode], seconds)
        elif None not in times.values():
            cpu.add_metric(labels, sum(times.values()))
        add_value(signals, labels, number(row["c_exec"]))
    yield from (cpu, signals)


COLLECTOR = Collector(
    name="threads",
    help="CPU time and signals executed per data node thread (main, ldm, tc, recv, send, rep,"
    " io, ...) (ndbinfo.threadstat); user and system time apart with the option cpu-modes."
    " On by default: one row per thread.",
    default_enabled=True,
    reads={"threadstat": ("node_id", "thr_no", "thr_nm", "os_ru_utime", "os_ru_stime", "c_exec")},
    min_version=(7, 5, 0),
    sql=SQL,
    collect=collect,
    metrics=(CPU, SIGNALS),
    options=(
        Option(
            "cpu-modes",
            "Split the CPU time into user and system time (label mode; one more series per"
            " thread).",
            False,
            boolean,
        ),
    ),
)
