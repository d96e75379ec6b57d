"""Every configured node, up or down: config_nodes LEFT JOIN processes (NDB 7.5.7+).

Every data node reports every configured node and every process connected to it, a row per
pair of nodes; they change only when a node connects, goes away or restarts, or with the
configuration: the collector follows the node, links and configuration signals. Each such
change moves one of them (a restarted process reconnects its links), so the rows are not
read again for age alone."""

from __future__ import annotations

from collections.abc import Iterable

from .base import Collector, Context, Row, SlowChanging, gauge, ident, number, text

CONFIGURED = gauge(
    "ndb_node_configured",
    "A node slot in the cluster configuration (data, management or API node); always 1.",
    ("node_id", "node_type"),
)
CONNECTED = gauge(
    "ndb_node_connected",
    "1 if a process is connected in this configured node slot, 0 if not.",
    ("node_id", "node_type"),
)
INFO = gauge(
    "ndb_node_info",
    "Configured host and, while connected, version and program name of each node; always 1.",
    ("node_id", "node_type", "hostname", "node_version", "process_name"),
)

SQL = (
    "SELECT c.node_id, c.node_type, c.node_hostname, p.node_version, p.process_name"
    " FROM ndbinfo.config_nodes c"
    " LEFT JOIN ndbinfo.processes p ON p.node_id = c.node_id"
    " ORDER BY c.node_id"
)


def collect(rows: list[Row], ctx: Context) -> Iterable:
    configured, connected, info = CONFIGURED.family(), CONNECTED.family(), INFO.family()
    seen = set()
    for row in sorted(rows, key=lambda r: number(r["node_id"])):
        node = ident(row["node_id"])
        if node in seen:  # a process reported twice for one slot
            continue
        seen.add(node)
        node_type = text(row["node_type"])
        is_connected = row["node_version"] is not None or row["process_name"] is not None
        configured.add_metric([node, node_type], 1.0)
        connected.add_metric([node, node_type], 1.0 if is_connected else 0.0)
        info.add_metric(
            [
                node,
                node_type,
                text(row["node_hostname"]),
                text(row["node_version"]),
                text(row["process_name"]),
            ],
            1.0,
        )
    yield from (configured, connected, info)


COLLECTOR = Collector(
    name="processes",
    help="Every configured node (data, management, API) and whether a process is connected in"
    " its slot (config_nodes LEFT JOIN processes; NDB 7.5.7+). On by default: one row per"
    " configured node, read again only when a node connects, goes away or restarts, or the"
    " configuration changes.",
    default_enabled=True,
    reads={
        "config_nodes": ("node_id", "node_type", "node_hostname"),
        "processes": ("node_id", "node_version", "process_name"),
    },
    min_version=(7, 5, 7),
    sql=SQL,
    collect=collect,
    metrics=(CONFIGURED, CONNECTED, INFO),
    slow=SlowChanging(frozenset({"nodes", "links", "config"}), aged=False),
)
