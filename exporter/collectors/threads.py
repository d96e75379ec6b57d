"""The data node threads, one statement for both per-thread tables: CPU time and signals
executed (ndbinfo.threadstat) and, where ndbinfo.cpustat exists, how each thread spent the last
second: executing signals and stalled on full job buffers for the busiest thread of each type,
or (option per_thread) also spinning and sending, per thread.

cpustat has no thread names; threadstat has them, so the two are read in one join rather than
threadstat twice (once for the counters, once for the names), one row per thread.

A thread's buffer_full time is the time it slept because the job buffer it writes signals into,
that of another thread of its node, was congested: that thread (most often an overloaded LDM
thread) consumes its signals too slowly (the data node's scheduler, mt.cpp: the sleep in
update_sched_config() counts as m_buffer_full_micros_sleep). It is not a wait on send buffers.
cpustat holds the last second only; the rules average the samples over minutes rather than read
the 20 rows per thread of cpustat_20sec at every scrape."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from .base import (
    Collector,
    Context,
    Option,
    Row,
    add_value,
    boolean,
    counter,
    gauge,
    ident,
    number,
    text,
)

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
RATIO = gauge(
    "ndb_thread_time_ratio",
    "Share of the last second the thread spent executing signals (exec), spinning while"
    " waiting for signals (spin), sending (send) and sleeping on the congested job buffer of a"
    " slower thread it sends signals to (buffer_full); the rest it slept. By default exec and"
    " buffer_full of the busiest thread of each type per data node (ndbinfo.cpustat); OS user"
    " and system time are ndb_thread_cpu_seconds_total.",
    ("node_id", "thread", "activity"),
)
ACTIVITIES = {
    "exec": "thread_exec",
    "spin": "thread_spinning",
    "send": "thread_send",
    "buffer_full": "thread_buffer_full",
}
# by default: what saturates a thread type, two series per type and data node
DEFAULT_ACTIVITIES = ("exec", "buffer_full")

THREADSTAT_COLUMNS = ("node_id", "thr_no", "thr_nm", "os_ru_utime", "os_ru_stime", "c_exec")
SQL = f"SELECT {', '.join(THREADSTAT_COLUMNS)} FROM ndbinfo.threadstat"
WITH_CPUSTAT_SQL = (
    "SELECT t.node_id, t.thr_no, t.thr_nm, t.os_ru_utime, t.os_ru_stime, t.c_exec,"
    " c.thread_exec, c.thread_spinning, c.thread_send, c.thread_buffer_full"
    " FROM ndbinfo.threadstat t"
    " LEFT JOIN ndbinfo.cpustat c ON c.node_id = t.node_id AND c.thr_no = t.thr_no"
)
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


def collect_with_cpustat(rows: list[Row], ctx: Context) -> Iterable:
    yield from collect(rows, ctx)
    yield time_ratios(rows, bool(ctx.options.get("per_thread", False)))


def time_ratios(rows: list[Row], per_thread: bool):
    """The busiest thread of each type per data node and activity, or every thread."""
    labels = ("node_id", "thr_no", "thread", "activity") if per_thread else RATIO.labels
    family = gauge(RATIO.name, RATIO.help, labels).family()
    busiest: dict[tuple[str, ...], float] = {}
    for row in rows:
        node = ident(row["node_id"])
        thread = (node, ident(row["thr_no"])) if per_thread else (node,)
        thread = (*thread, text(row["thr_nm"]))
        for activity, column in ACTIVITIES.items():
            percent = number(row[column])
            if percent is None or (not per_thread and activity not in DEFAULT_ACTIVITIES):
                continue
            key = (*thread, activity)
            busiest[key] = max(busiest.get(key, 0.0), percent / 100)
    for key in sorted(busiest, key=lambda k: (int(k[0]), *k[1:])):
        family.add_metric(list(key), busiest[key])
    return family


HELP = (
    "CPU time and signals executed per data node thread (main, ldm, tc, recv, send, rep, io,"
    " ...) (ndbinfo.threadstat); user and system time apart with the option cpu-modes. Where"
    " ndbinfo.cpustat exists, read in the same statement: the share of the last second the"
    " busiest thread of each type per data node spent executing and stalled on full job"
    " buffers of slower threads, which shows the thread type that saturates first; option"
    " per_thread gives every thread, with spinning and sending too. On by default: one row per"
    " thread."
)
OPTIONS = (
    Option(
        "cpu-modes",
        "Split the CPU time into user and system time (label mode; one more series per thread).",
        False,
        boolean,
    ),
    Option(
        "per_thread",
        "Every thread (label thr_no) with spin and send time too in ndb_thread_time_ratio,"
        " instead of the busiest thread of each type.",
        False,
        boolean,
    ),
)

# Where cpustat does not exist: the counters of threadstat only.
THREADSTAT_ONLY = Collector(
    name="threads",
    help=HELP,
    default_enabled=True,
    reads={"threadstat": THREADSTAT_COLUMNS},
    min_version=(7, 5, 0),
    sql=SQL,
    collect=collect,
    metrics=(CPU, SIGNALS, RATIO),
    options=OPTIONS,
)
COLLECTOR = replace(
    THREADSTAT_ONLY,
    newer=replace(
        THREADSTAT_ONLY,
        reads={
            "threadstat": THREADSTAT_COLUMNS,
            "cpustat": ("node_id", "thr_no", *ACTIVITIES.values()),
        },
        sql=WITH_CPUSTAT_SQL,
        collect=collect_with_cpustat,
    ),
)
