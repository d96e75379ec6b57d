"""The texts of ndb_mgmd's replies, built from the model (no I/O): each function returns the
lines a command writes, the blank line that ends the reply included."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ndbsim.model.cluster_log import DBACC, DBTUP, EVENTS_BY_NUMBER, PAGE_SIZE_BYTES, LogEvent
from ndbsim.model.rows.membership import start_phase
from ndbsim.model.topology import MGM, NDB

if TYPE_CHECKING:
    from ndbsim.model.cluster import Cluster

TYPE_NAMES = {NDB: "NDB", MGM: "MGM"}  # anything else is an API node
# Texts of the NDB error codes a backup answers (storage/ndb/src/ndbapi/ndberror.cpp)
BACKUP_ERRORS = {
    1302: "A backup is already running",
    1325: "File or scan error",
    1326: "Backup aborted due to node failure",
    1340: "Backup undefined error",
    1342: "Backup failed to allocate buffers (check configuration)",
    1343: "Backup failed to setup fs buffers (check configuration)",
    1350: "Backup failed: file already exists (use 'START BACKUP <backup id>')",
}
DUMPABLE = {50: "MemoryUsage", 62: "BackupStatus"}  # dump events types and reports per node


def version_number(major: int, minor: int, build: int) -> int:
    return (major << 16) | (minor << 8) | build


def mysql_version(c: Cluster) -> tuple[int, int, int]:
    head = c.version.version_string.split("-")[0]
    major, minor, build = (int(p) for p in head.split("."))
    return major, minor, build


def version(c: Cluster) -> list[str]:
    major, minor, build = c.version.ndb
    my_major, my_minor, my_build = mysql_version(c)
    return [
        "version",
        f"id: {version_number(major, minor, build)}",
        f"major: {major}",
        f"minor: {minor}",
        f"build: {build}",
        f"string: mysql-{my_major}.{my_minor}.{my_build} ndb-{major}.{minor}.{build}",
        f"mysql_major: {my_major}",
        f"mysql_minor: {my_minor}",
        f"mysql_build: {my_build}",
        "",
    ]


def _node_lines(c: Cluster, node) -> list[str]:
    n = node.node_id
    kind = TYPE_NAMES.get(node.node_type, "API")
    up = c.node_up(n)
    phase, group, connects = 0, 0, 1 if up else 0
    if n in c.nodes:
        s = c.nodes[n]
        status = {"STARTED": "STARTED", "STARTING": "STARTING"}.get(s.state, "NO_CONTACT")
        if s.state == "STARTING":
            phase = start_phase(c, n)
        group, connects = node.nodegroup or 0, s.connect_count
    else:
        status = "CONNECTED" if up else "NO_CONTACT"
    if up:
        major, minor, build = (int(p) for p in c.ndb_version_text(n).split("."))
        ndb_version = version_number(major, minor, build)
        my_version = version_number(*mysql_version(c))
    else:
        ndb_version = my_version = 0
    return [
        f"node.{n}.type: {kind}",
        f"node.{n}.status: {status}",
        f"node.{n}.version: {ndb_version}",
        f"node.{n}.mysql_version: {my_version}",
        f"node.{n}.startphase: {phase}",
        f"node.{n}.dynamic_id: {n if up else 0}",
        f"node.{n}.node_group: {group}",
        f"node.{n}.connect_count: {connects}",
        f"node.{n}.address: {node.hostname if up else ''}",
    ]


def status(c: Cluster, types: list[str] | None = None) -> list[str]:
    """`get status`: the nodes of each type asked (default NDB, MGM, API) in node id order."""
    wanted = types or ["NDB", "MGM", "API"]
    nodes = [
        node
        for kind in wanted
        for node in c.topology.all_nodes
        if TYPE_NAMES.get(node.node_type, "API") == kind
    ]
    lines = ["node status", f"nodes: {len(nodes)}"]
    for node in nodes:
        lines += _node_lines(c, node)
    return [*lines, ""]


def event_lines(event: LogEvent, parsable: bool) -> list[str]:
    """A forwarded event: the parsable block (ended by a blank line) or the plain text line."""
    if not parsable:
        text = f"Node {event.source_node}: {event.text}"
        if "error" in event.fields:  # the server appends the NDB error's text
            text += f" - {backup_error_text(event.fields['error'])}"
        return [text]
    lines = [
        "log event reply",
        f"type={event.type.number}",
        "time=0",  # as ndb_mgmd forwards it (logevent2str is given 0)
        f"source_nodeid={event.source_node}",
    ]
    if event.type.fields:
        lines += [f"{key}={value}" for key, value in event.fields.items()]
    else:
        lines.append("data=" + "".join(f"{w} " for w in event.words))
    return [*lines, ""]


def dump_events(c: Cluster, kind: int, nodes: list[int]) -> list[str]:
    """`dump events`: the reports the data nodes send for a DUMP (MemoryUsage, BackupStatus)."""
    name = DUMPABLE.get(kind)
    if name is None:
        return ["dump events reply", f"result: ndb_logevent_type {kind} not supported", ""]
    ids = [n for n in c.started_ids() if not nodes or n in nodes]
    reports: list[LogEvent] = []
    for n in ids:
        for text, fields in _reports(c, name, n):
            reports.append(LogEvent(0, EVENTS_BY_NUMBER[kind], n, 0.0, fields, text))
    lines = ["dump events reply", "result: Ok", f"events: {len(reports)}", ""]
    for report in reports:
        lines += event_lines(report, parsable=True)
    return lines


def _reports(c: Cluster, name: str, n: int) -> list[tuple[str, dict[str, int]]]:
    kind = EVENTS_BY_NUMBER[50 if name == "MemoryUsage" else 62]
    if name == "MemoryUsage":
        used, total = c.data_memory_pages(n)
        out = []
        for block, label, u, t in ((DBTUP, "Data", used, total), (DBACC, "Index", 0, 0)):
            percent = 100 * u // t if t else 0
            values = (0, PAGE_SIZE_BYTES, u, t, block)
            text = f"{label} usage is {percent}%({u} 32K pages of total {t})"
            out.append((text, dict(zip(kind.fields, values, strict=True))))
        return out
    run = c.backups.running
    if run is None:
        return [("Backup not started", dict.fromkeys(kind.fields, 0))]
    values = dict.fromkeys(kind.fields, 0)
    values.update(starting_node=run.starting_node, backup_id=run.backup_id)
    text = f"Local backup status: backup {run.backup_id} started from node {run.starting_node}"
    return [(text, values)]


def backup_error_text(error: int) -> str:
    return BACKUP_ERRORS.get(error, f"Unknown error code {error}")
