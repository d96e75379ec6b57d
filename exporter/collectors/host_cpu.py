"""CPU use of the data nodes' hosts over the last second as the OS reports it, from
ndbinfo.cpudata summed over the online CPUs of each data node in SQL."""

from __future__ import annotations

from collections.abc import Iterable

from .base import Collector, Context, Row, add_value, gauge, ident, number

MODES = {
    "user": "user_time",
    "system": "system_time",
    "interrupt": "interrupt_time",
    "idle": "idle_time",
}

SQL = (
    "SELECT node_id, COUNT(*) AS cpus, SUM(cpu_userspace_time) AS user_time,"
    " SUM(cpu_system_time) AS system_time, SUM(cpu_interrupt_time) AS interrupt_time,"
    " SUM(cpu_idle_time) AS idle_time"
    " FROM ndbinfo.cpudata WHERE cpu_online = 1 GROUP BY node_id ORDER BY node_id"
)

RATIO = gauge(
    "ndb_host_cpu_ratio",
    "Share of the last second the online CPUs of the data node's host spent in user space,"
    " the kernel, interrupts and idle (cpudata, summed over the CPUs).",
    ("node_id", "mode"),
)
CPUS = gauge("ndb_host_cpus_online", "Online CPUs of the data node's host.", ("node_id",))


def collect(rows: list[Row], ctx: Context) -> Iterable:
    ratio, cpus = RATIO.family(), CPUS.family()
    for row in rows:
        node = ident(row["node_id"])
        add_value(cpus, [node], number(row["cpus"]))
        times = {mode: number(row[column]) for mode, column in MODES.items()}
        total = sum(value for value in times.values() if value is not None)
        for mode, value in times.items():
            if value is not None and total:
                ratio.add_metric([node, mode], value / total)
    yield ratio
    yield cpus


COLLECTOR = Collector(
    name="host_cpu",
    help="CPU use of each data node's host over the last second: user, system, interrupt and"
    " idle shares over its online CPUs (ndbinfo.cpudata). Off by default (the threads"
    " collector has each thread's OS CPU time): summed per data node in SQL, five series per"
    " data node.",
    default_enabled=False,
    reads={
        "cpudata": (
            "node_id",
            "cpu_online",
            "cpu_userspace_time",
            "cpu_system_time",
            "cpu_interrupt_time",
            "cpu_idle_time",
        )
    },
    min_version=(8, 0, 23),
    sql=SQL,
    collect=collect,
    metrics=(RATIO, CPUS),
)
