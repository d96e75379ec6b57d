"""The texts of ndb_mgmd's replies, built from the model (no I/O): each function returns the
lines a command writes, the blank line that ends the reply included."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ndbsim.model import fault_effects
from ndbsim.model.backups import node_progress
from ndbsim.model.cluster import STARTING, STOPPED
from ndbsim.model.cluster_log import DBACC, DBTUP, EVENTS_BY_NUMBER, PAGE_SIZE_BYTES, LogEvent
from ndbsim.model.ndb_errors import ndb_error_string
from ndbsim.model.start_phases import start_phase
from ndbsim.model.topology import MGM, NDB
from ndbsim.protocol.mgm import tables

if TYPE_CHECKING:
    from ndbsim.model.cluster import Cluster
    from ndbsim.model.topology import Node

DUMPABLE = {50: "MemoryUsage", 62: "BackupStatus"}  # dump events types and reports per node


def int32(value: int) -> int:
    """An unsigned 32-bit value as the server's %d prints it."""
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value >= 1 << 31 else value


def version_number(major: int, minor: int, build: int) -> int:
    return (major << 16) | (minor << 8) | build


def mysql_version(c: Cluster) -> tuple[int, int, int]:
    head = c.version.version_string.split("-")[0]
    major, minor, build = (int(p) for p in head.split("."))
    return major, minor, build


def version(c: Cluster) -> list[str]:
    major, minor, build = c.version.numbers
    my_major, my_minor, my_build = mysql_version(c)
    return [
        "version",
        f"id: {version_number(major, minor, build)}",
        f"major: {major}",
        f"minor: {minor}",
        f"build: {build}",
        f"string: {c.version.version_label(c.version.ndb_text)}",
        f"mysql_major: {my_major}",
        f"mysql_minor: {my_minor}",
        f"mysql_build: {my_build}",
        "",
    ]


def _status(name: str) -> str:
    return tables.node_status_string(f"NDB_MGM_NODE_STATUS_{name}")


@dataclass
class NodeStatus:
    """What MgmtSrvr::status reports of a node; the zeros are what printNodeStatus prints for
    the values it leaves unset (a data node without contact, every MGM and API node's
    dynamic_id, node_group and connect_count)."""

    status: str
    version: int = 0
    mysql_version: int = 0
    startphase: int = 0
    dynamic_id: int = 0
    node_group: int = 0
    connect_count: int = 0
    address: str = ""


def _versions(c: Cluster, node_id: int) -> tuple[int, int]:
    release = fault_effects.node_release(c, node_id)
    return version_number(*release), version_number(*mysql_version(c))


def _data_node_status(c: Cluster, node: Node) -> NodeStatus:
    """MgmtSrvr::status for a data node: NO_CONTACT (and nothing else) while it is not
    connected, else its start level as a status."""
    s = c.nodes[node.node_id]
    if s.state == STOPPED:
        return NodeStatus(_status("NO_CONTACT"))
    version, my_version = _versions(c, node.node_id)
    phase = start_phase(c, node.node_id) if s.state == STARTING else 0
    return NodeStatus(
        _status(s.state),
        version,
        my_version,
        phase,
        node.node_id,
        node.nodegroup or 0,
        s.connect_count,
        node.hostname,
    )


def _mgm_node_status(c: Cluster, node: Node, own_id: int) -> NodeStatus:
    """MgmtSrvr::status_mgmd: this management server is always CONNECTED; another one is as
    its transporter shows."""
    if node.node_id != own_id and not c.node_up(node.node_id):
        return NodeStatus(_status("NO_CONTACT"))
    version, my_version = _versions(c, node.node_id)
    return NodeStatus(_status("CONNECTED"), version, my_version, address=node.hostname)


def _api_node_status(c: Cluster, node: Node) -> NodeStatus:
    """MgmtSrvr::status_api: a data node answers for an API node (API_VERSION_REQ); with none
    to ask, UNKNOWN."""
    if not c.started_ids():
        return NodeStatus(_status("UNKNOWN"))
    if not c.node_up(node.node_id):
        return NodeStatus(_status("NO_CONTACT"))
    version, my_version = _versions(c, node.node_id)
    return NodeStatus(_status("CONNECTED"), version, my_version, address=node.hostname)


def node_status(c: Cluster, node: Node, own_id: int) -> NodeStatus:
    if node.node_type == NDB:
        return _data_node_status(c, node)
    if node.node_type == MGM:
        return _mgm_node_status(c, node, own_id)
    return _api_node_status(c, node)


def _node_lines(n: int, kind: int, s: NodeStatus, single_user: bool) -> list[str]:
    """printNodeStatus: the fields of one node, signed as it prints them (%d)."""
    lines = [
        f"node.{n}.type: {tables.node_type_string(kind)}",
        f"node.{n}.status: {s.status}",
        f"node.{n}.version: {int32(s.version)}",
        f"node.{n}.mysql_version: {int32(s.mysql_version)}",
        f"node.{n}.startphase: {int32(s.startphase)}",
        f"node.{n}.dynamic_id: {int32(s.dynamic_id)}",
        f"node.{n}.node_group: {int32(s.node_group)}",
        f"node.{n}.connect_count: {int32(s.connect_count)}",
        f"node.{n}.address: {s.address}",
    ]
    if single_user:
        lines.append(f"node.{n}.is_single_user: 0")
    return lines


def status(c: Cluster, kinds: list[int], own_id: int, single_user: bool) -> list[str]:
    """`get status` (MgmApiSession::getStatus): the nodes of each type asked, a type at a
    time, in node id order; `is_single_user` for clients of 8.0.22 and later."""
    nodes = [
        (node, kind) for kind in kinds for node in c.topology.all_nodes if node.node_type == kind
    ]
    lines = ["node status", f"nodes: {len(nodes)}"]
    for node, kind in nodes:
        lines += _node_lines(node.node_id, kind, node_status(c, node, own_id), single_user)
    return [*lines, ""]


def event_lines(event: LogEvent, parsable: bool) -> list[str]:
    """A forwarded event: the parsable block (ended by a blank line) or the plain text line."""
    if not parsable:
        text = f"Node {event.source_node}: {event.text}"
        if "error" in event.fields:  # the server appends the NDB error's text
            text += f" - {ndb_error_string(event.fields['error'])}"
        return [text]
    lines = [
        "log event reply",
        f"type={event.type.number}",
        "time=0",  # as ndb_mgmd forwards it (logevent2str is given 0)
        f"source_nodeid={event.source_node}",
    ]
    if event.type.fields:
        lines += [f"{key}={int32(value)}" for key, value in event.fields.items()]
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
    progress = None if run is None else node_progress(c, run).get(n)
    if run is None or progress is None:
        return [("Backup not started", dict.fromkeys(kind.fields, 0))]
    words = {"starting_node": run.starting_node, "backup_id": run.backup_id}
    for field, value in (
        ("n_bytes", progress.data_bytes),
        ("n_records", progress.records),
        ("n_log_bytes", progress.log_bytes),
        ("n_log_records", progress.log_records),
    ):
        words[f"{field}_lo"], words[f"{field}_hi"] = value & 0xFFFFFFFF, value >> 32
    text = (
        f"Local backup status: backup {run.backup_id} started from node {run.starting_node}\n"
        f" #Records: {progress.records} #LogRecords: {progress.log_records}\n"
        f" Data: {progress.data_bytes} bytes Log: {progress.log_bytes} bytes"
    )
    return [(text, {key: words[key] for key in kind.fields})]
