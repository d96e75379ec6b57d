"""Rows of the node and membership tables: nodes, membership, processes, config_nodes, the
transporters and the certificates."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from ndbsim.model import fault_effects, links, tls
from ndbsim.model.start_phases import start_phase
from ndbsim.model.topology import API, MGM, NDB

if TYPE_CHECKING:
    from ndbsim.model.cluster import Cluster


SEND_BUFFER_BYTES = links.SEND_BUFFER_BYTES


def nodes(c: Cluster) -> list[dict]:
    out = []
    for n in c.running_ids():
        s = c.nodes[n]
        if s.state == "STARTED":
            out.append(
                {
                    "node_id": n,
                    "uptime": int(c.now - s.up_since),
                    "status": 3,
                    "start_phase": 0,
                    "config_generation": c.config_generation(n),
                }
            )
        else:
            out.append(
                {
                    "node_id": n,
                    "uptime": int(c.now - s.up_since),
                    "status": 2,
                    "start_phase": start_phase(c, n),
                    "config_generation": c.config_generation(n),
                }
            )
    return out


def _arbitrator(c: Cluster) -> int:
    if c.faults.is_active("arbitrator-lost"):
        return 0
    return next((m.node_id for m in c.topology.mgm_nodes if c.node_up(m.node_id)), 0)


def membership(c: Cluster) -> list[dict]:
    started = c.started_ids()
    # succession: the president first, then by start time (oldest first)
    order = sorted(started, key=lambda n: (n != c.president, c.nodes[n].started_at, n))
    ring = sorted(started)
    arbitrator = _arbitrator(c)
    ticket = f"{random.Random(c.spec.seed * 31 + c.connect_count).getrandbits(64):016x}"
    rank1 = [m.node_id for m in c.topology.mgm_nodes if c.node_up(m.node_id)]
    out = []
    for n in started:
        i = ring.index(n)
        is_president = n == c.president
        if arbitrator:
            state, connected = 6, 1  # ARBIT_RUN
        else:
            state, connected = (2 if is_president else 0), 0  # ARBIT_FIND / ARBIT_NULL
        out.append(
            {
                "node_id": n,
                "group_id": c.topology.node(n).nodegroup,
                "left_node": ring[i - 1],
                "right_node": ring[(i + 1) % len(ring)],
                "president": c.president,
                "successor": order[1] if len(order) > 1 else 0,
                "dynamic_id": ((i + 1) << 16) | (order.index(n) + 1),
                "arbitrator": arbitrator,
                "arb_ticket": ticket if arbitrator else "0000000000000000",
                "arb_state": state,
                "arb_connected": connected,
                "conn_rank1_arbs": "[" + ", ".join(str(a) for a in rank1) + "]"
                if not c.faults.is_active("arbitrator-lost")
                else "[]",
                "conn_rank2_arbs": "[]",
            }
        )
    return out


def _node_version(c: Cluster, node_id: int, node_type: int) -> str:
    if node_type == API:
        return c.version.version_label(c.version.ndb_text)
    text = c.version.text_of(fault_effects.node_release(c, node_id))
    return c.version.version_label(text) if c.version.is_rondb else text


def _connected_nodes(c: Cluster) -> list[int]:
    return [
        n.node_id
        for n in c.topology.all_nodes
        if (n.node_id in c.nodes and c.nodes[n.node_id].state == "STARTED")
        or (n.node_id not in c.nodes and c.node_up(n.node_id))
    ]


def processes(c: Cluster) -> list[dict]:
    rnd = random.Random(c.spec.seed * 101)
    pids = {n.node_id: rnd.randint(1200, 64000) for n in c.topology.all_nodes}
    out = []
    for reporter in c.started_ids():
        for node_id in _connected_nodes(c):
            node = c.topology.node(node_id)
            if node.node_type == NDB:
                uri = f"ndb://{node.hostname}"
                pid = pids[node_id] + c.nodes[node_id].connect_count * 7
                angel = pids[node_id] - 1
            elif node.node_type == MGM:
                uri, pid, angel = f"ndb://{node.hostname}:1186", pids[node_id], 0
            else:
                uri = f"mysql://{node.hostname}:3306/?server-id={c.server_id(node_id) or 1}"
                pid, angel = pids[node_id], 0
            out.append(
                {
                    "reporting_node_id": reporter,
                    "node_id": node_id,
                    "node_type": node.node_type,
                    "node_version": _node_version(c, node_id, node.node_type),
                    "process_id": pid,
                    "angel_process_id": angel,
                    "process_name": node.process_name,
                    "service_URI": uri,
                }
            )
    return out


def config_nodes(c: Cluster) -> list[dict]:
    return [
        {
            "reporting_node_id": reporter,
            "node_id": n.node_id,
            "node_type": n.node_type,
            "node_hostname": n.hostname,
        }
        for reporter in c.started_ids()
        for n in c.topology.all_nodes
    ]


def _transporter_rows(c: Cluster) -> list[dict]:
    """One row per data node and peer; traffic from links.py (A's sent is B's received), an
    unconnected slot's address is '-' as the data node writes it."""
    out = []
    overloaded = set(c.overloaded_links())
    encrypted = int(tls.enabled(c))
    for n in c.started_ids():
        for remote_node in c.topology.all_nodes:
            remote = remote_node.node_id
            if remote == n:
                continue
            status = links.link_state(c, remote)
            up = status == 0 and remote_node.process_name != ""
            connects = (
                c.nodes[remote].connect_count if remote in c.nodes else c.api_connect_count(remote)
            )
            overloads, slowdowns = c.link_overloads(n, remote)
            now_overloaded = int((n, remote) in overloaded)
            out.append(
                {
                    "node_id": n,
                    "remote_node_id": remote,
                    "connection_status": status,
                    "remote_address": remote_node.hostname if status == 0 else "-",
                    "bytes_sent": links.sent_bytes(c, n, remote) if up else 0,
                    "bytes_received": links.sent_bytes(c, remote, n) if up else 0,
                    "connect_count": connects,
                    "overloaded": now_overloaded,
                    "overload_count": overloads,
                    "slowdown": now_overloaded,
                    "slowdown_count": slowdowns,
                    "encrypted": encrypted if up else 0,
                }
            )
    return out


def transporters(c: Cluster) -> list[dict]:
    return _transporter_rows(c)


def _connected_remotes(c: Cluster) -> list[int]:
    """The peers a data node's links are CONNECTED to (the state of a link is its remote's),
    in node order; a data node's own id is left out by the caller."""
    return [
        r.node_id
        for r in c.topology.all_nodes
        if links.link_state(c, r.node_id) == 0 and r.process_name
    ]


def _allocated(allocated: int, overloaded: bool) -> int:
    """Send buffer bytes a link has allocated: an overloaded link's buffer is full."""
    return max(allocated, SEND_BUFFER_BYTES) if overloaded else allocated


def transporter_details(c: Cluster) -> list[dict]:
    out = []
    full = SEND_BUFFER_BYTES * 15 // 16  # above the overload level of the send buffer
    base = _transporter_rows(c)
    remotes = _connected_remotes(c)
    connected = {n: [r for r in remotes if r != n] for n in c.started_ids()}
    for trp_id, row in enumerate(base, start=1):
        n, remote = row["node_id"], row["remote_node_id"]
        used, allocated = links.send_buffer(c, n, remote, connected[n])
        peak = max(used * 6, allocated // 2) if used else 0
        if row["overloaded"]:
            used, allocated = full, _allocated(allocated, True)
        if row["slowdown_count"]:
            peak = max(peak, full)
        peak = max(peak, used)
        remote_kind = c.topology.node(remote).node_type
        out.append(
            {
                **row,
                "block_instance": 0,
                "trp_id": trp_id,
                "sendbuffer_used_bytes": used,
                "sendbuffer_max_used_bytes": peak,
                "sendbuffer_alloc_bytes": allocated,
                "sendbuffer_max_alloc_bytes": max(allocated, -(-peak // links.PAGE) * links.PAGE),
                "type": 1,
                # 9.x: HeartbeatIntervalDbDb / DbApi in ms, and ms since the last receive
                "heartbeat_interval": 5000 if remote_kind == NDB else 1500,
                "last_recv": (int(c.now * 1000) + remote * 37) % 100 if row["bytes_sent"] else 0,
            }
        )
    return out


def send_buffer_allocated(c: Cluster) -> dict[int, int]:
    """Bytes of send buffer each data node has allocated over all its links (the sum of
    transporter_details' sendbuffer_alloc_bytes, without building its rows)."""
    overloaded = set(c.overloaded_links())
    remotes = _connected_remotes(c)
    out: dict[int, int] = {}
    for n in c.started_ids():
        connected = [r for r in remotes if r != n]
        out[n] = sum(
            _allocated(
                links.send_buffer(c, n, remote.node_id, connected)[1],
                (n, remote.node_id) in overloaded,
            )
            for remote in c.topology.all_nodes
            if remote.node_id != n
        )
    return out


def certificates(c: Cluster) -> list[dict]:
    """ndb$certificates: each started data node lists its own certificate and those of the
    nodes connected to it."""
    if not tls.enabled(c):
        return []
    out = []
    for reporter in c.started_ids():
        for node in c.topology.all_nodes:
            if node.node_id != reporter and not _node_connected(c, node.node_id):
                continue
            out.append(
                {
                    "reporting_node_id": reporter,
                    "node_id": node.node_id,
                    "name": tls.NAMES[node.node_type],
                    "serial": tls.serial(c, node.node_id),
                    "expires": tls.expiry(c, node.node_id),
                }
            )
    return out


def _node_connected(c: Cluster, node_id: int) -> bool:
    if node_id in c.nodes:
        return c.nodes[node_id].state == "STARTED"
    return c.topology.node(node_id).process_name != "" and c.node_up(node_id)
