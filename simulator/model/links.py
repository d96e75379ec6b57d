"""Traffic and send buffers of the links between a data node and its peers.

A link's byte counts are one quantity seen from both ends: what data node A sent to B is what
B received from A. Data nodes replicate to each other, answer the SQL nodes (replies larger than
requests) and exchange only heartbeats and a little configuration traffic with the management
node. Every pair gets its own factor, so no two links are identical. The counters start when
the link connects (the later start of its two ends)."""

from __future__ import annotations

import functools
import math
import random
from typing import TYPE_CHECKING

from ndbsim.model.topology import MGM, NDB

if TYPE_CHECKING:
    from ndbsim.model.cluster import Cluster

PAGE = 32768  # send buffer pages (resources TRANSPORTER_BUFFERS counts them)
SEND_BUFFER_BYTES = 1048576  # send buffer memory of one transporter
SEND_BUFFER_POOL_PAGES = 1024  # TRANSPORTER_BUFFERS max of a data node (32 MiB)
HEARTBEAT_BYTES_PER_SECOND = 4
# bytes per operation of the sending data node, by (sender kind, receiver kind)
BYTES_PER_OP = {
    (NDB, NDB): 180.0,  # replication and commit protocol
    (NDB, "sql"): 120.0,  # replies and scan rows to the SQL node
    ("sql", NDB): 75.0,  # requests from the SQL node
    (NDB, MGM): 0.02,
    (MGM, NDB): 0.01,
}


def _kind(c: Cluster, node_id: int):
    node = c.topology.node(node_id)
    if node.node_type in (NDB, MGM):
        return node.node_type
    return "sql" if node.process_name else None


def _factor(c: Cluster, src: int, dst: int) -> float:
    """A fixed factor of the direction src -> dst, 0.8..1.2."""
    return _seeded_factor(c.spec.seed * 1_000_003 + src * 257 + dst)


@functools.cache
def _seeded_factor(seed: int) -> float:
    """Computed once per seed: it is asked for every link at every model step."""
    return 0.8 + 0.4 * random.Random(seed).random()


def _ops_and_seconds(c: Cluster, a: int, b: int) -> tuple[float, float]:
    """Operations of a data node and seconds since the link between a and b (re)connected:
    the data node that started last bounds both. Uptime before the simulation started
    counts at the configured load."""
    ends = [n for n in (a, b) if n in c.nodes]
    seconds = min(max(0.0, c.now - c.nodes[n].started_at) for n in ends)
    before = max(0.0, seconds - c.now) * c.spec.ops_per_second / max(1, len(c.nodes))
    return min(c.nodes[n].ops for n in ends) + before, seconds


def link_state(c: Cluster, remote: int) -> int:
    """The state of the started data nodes' links to `remote` (ndbinfo.transporters'
    connection_status): 0 CONNECTED, 1 CONNECTING (a starting data node), 2 DISCONNECTED."""
    if remote in c.nodes:
        state = c.nodes[remote].state
        return {"STARTED": 0, "STARTING": 1}.get(state, 2)
    return 0 if c.node_up(remote) else 2


def transporter_connected(c: Cluster, remote: int) -> bool:
    """Whether the started data nodes' links to `remote` are CONNECTED."""
    return link_state(c, remote) == 0


def sent_bytes(c: Cluster, src: int, dst: int) -> int:
    """Bytes src sent to dst since their link connected (one of them is a data node)."""
    kinds = (_kind(c, src), _kind(c, dst))
    per_op = BYTES_PER_OP.get(kinds)
    if per_op is None:
        return 0
    ops, seconds = _ops_and_seconds(c, src, dst)
    if NDB in kinds and "sql" in kinds:
        sql_nodes = sum(1 for n in c.topology.api_nodes if n.process_name)
        ops /= max(1, sql_nodes)
    heartbeat = seconds * HEARTBEAT_BYTES_PER_SECOND
    return int((ops * per_op + heartbeat) * _factor(c, src, dst))


def send_rate(c: Cluster, src: int, dst: int) -> float:
    """Bytes per second src sends to dst at the current load."""
    kinds = (_kind(c, src), _kind(c, dst))
    per_op = BYTES_PER_OP.get(kinds, 0.0)
    ready = max(1, len(c.started_ids()))
    rate = c.workload.rate(c.now) / ready if c.is_up() else 0.0
    return (rate * per_op + HEARTBEAT_BYTES_PER_SECOND) * _factor(c, src, dst)


def pressure_share(c: Cluster, node_id: int) -> float | None:
    """Share of its send buffer memory send-buffer-pressure fills on this data node."""
    params = c.faults.get("send-buffer-pressure")
    if params is None or params["node"] != node_id:
        return None
    return params["share"]


def send_buffer(c: Cluster, node_id: int, remote: int, connected: list[int]) -> tuple[int, int]:
    """(used, allocated) send buffer bytes of the link node_id -> remote. A healthy link holds
    a few milliseconds of its traffic in one or two pages; under send-buffer-pressure the
    node's send buffer memory fills, shared over its connected links by traffic."""
    if remote not in connected:
        return 0, 0
    share = pressure_share(c, node_id)
    if share is not None:
        weights = {r: send_rate(c, node_id, r) for r in connected}
        pool = SEND_BUFFER_POOL_PAGES * PAGE * share
        allocated = int(pool * weights[remote] / sum(weights.values()))
        return int(allocated * 0.97), allocated
    used = int(send_rate(c, node_id, remote) * 0.004)
    allocated = max(1, math.ceil(used / PAGE)) * PAGE
    return used, allocated


def pool_pages_used(allocated_bytes: int) -> int:
    """TRANSPORTER_BUFFERS pages in use for a node's allocated send buffers."""
    return math.ceil(allocated_bytes / PAGE)
