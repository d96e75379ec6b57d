"""Hardware of each data node host (ndbinfo.hwinfo, with the online CPUs of ndbinfo.cpuinfo).

The hardware under a data node changes only across a restart of that node, so the collector
follows the "nodes" change signal. What no signal shows (a restart that falls between two
scrapes, a CPU taken offline while the node runs) is read at the exporter's maximum age."""

from __future__ import annotations

from collections.abc import Iterable

from .base import Collector, Context, Row, SlowChanging, add_value, gauge, ident, number, text

LABELS = ("node_id",)

INFO = gauge(
    "ndb_data_node_hardware_info",
    "The data node host's CPU model.",
    ("node_id", "model_name"),
)
CPUS = gauge(
    "ndb_data_node_cpus",
    "CPUs of the data node host: available to the data node (available), online (online,"
    " from cpuinfo), cores and sockets.",
    ("node_id", "kind"),
)
MEMORY = gauge(
    "ndb_data_node_memory_bytes", "Memory of the data node host (HW_memory_size).", LABELS
)

SQL = (
    "SELECT h.node_id, h.cpu_cnt, h.num_cpu_cores, h.num_cpu_sockets, h.HW_memory_size,"
    " h.model_name, c.online FROM ndbinfo.hwinfo h LEFT JOIN"
    " (SELECT node_id, SUM(cpu_online) AS online FROM ndbinfo.cpuinfo GROUP BY node_id) c"
    " ON c.node_id = h.node_id"
)
KINDS = (
    ("available", "cpu_cnt"),
    ("online", "online"),
    ("cores", "num_cpu_cores"),
    ("sockets", "num_cpu_sockets"),
)


def collect(rows: list[Row], ctx: Context) -> Iterable:
    info, cpus, memory = INFO.family(), CPUS.family(), MEMORY.family()
    for row in sorted(rows, key=lambda r: number(r["node_id"])):
        node = ident(row["node_id"])
        info.add_metric([node, text(row["model_name"]).strip()], 1.0)
        for kind, column in KINDS:
            add_value(cpus, [node, kind], number(row[column]))
        add_value(memory, [node], number(row["HW_memory_size"]))
    yield from (info, cpus, memory)


COLLECTOR = Collector(
    name="inventory",
    help="Hardware of each data node host: CPU model, CPUs available, online, cores and"
    " sockets, memory (ndbinfo.hwinfo and cpuinfo, 8.0.23+). On by default: one row per data"
    " node, read again when a data node's state changes or at the maximum age.",
    default_enabled=True,
    reads={
        "hwinfo": (
            "node_id",
            "cpu_cnt",
            "num_cpu_cores",
            "num_cpu_sockets",
            "HW_memory_size",
            "model_name",
        ),
        "cpuinfo": ("node_id", "cpu_online"),
    },
    min_version=(8, 0, 23),
    sql=SQL,
    collect=collect,
    metrics=(INFO, CPUS, MEMORY),
    # The hardware changes with a data node's restart (the nodes signal); a CPU taken offline
    # under a running node is seen within an hour, as a certificate's renewal.
    slow=SlowChanging(frozenset({"nodes"}), max_age=3600.0),
)
