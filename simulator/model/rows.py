"""Rows of the small ndbinfo tables (per node, per thread, per log part ...), built in Python
from the cluster state. Each builder returns dicts keyed by column name; the writer puts them in
the catalog's column order. Rows exist only for running data nodes, as on a real cluster."""

from __future__ import annotations

import math
import random
from typing import TYPE_CHECKING

from ndbsim.model import config_params, links, tls, workload
from ndbsim.model.faults import START_PHASES
from ndbsim.model.topology import API, MGM, NDB

if TYPE_CHECKING:
    from ndbsim.model.cluster import Cluster

SEND_BUFFER_BYTES = links.SEND_BUFFER_BYTES
SEND_BUFFER_POOL_PAGES = links.SEND_BUFFER_POOL_PAGES

# block numbers (ndb$blocks)
BACKUP, DBTC, DBDIH, DBLQH, DBACC, DBTUP, DBDICT, NDBCNTR, QMGR, NDBFS, CMVMI = (
    244,
    245,
    246,
    247,
    248,
    249,
    250,
    251,
    252,
    253,
    254,
)
TRIX, DBUTIL, SUMA, DBTUX, TSMAN, LGMAN, PGMAN, RESTORE, DBINFO, DBSPJ, THRMAN, TRPMAN = (
    255,
    256,
    257,
    258,
    259,
    260,
    261,
    262,
    263,
    264,
    265,
    266,
)

THREAD_DESCRIPTIONS = {
    "main": "main thread, schema and distribution handling",
    "rep": "rep thread, asynch replication and proxy block handling",
    "ldm": "ldm thread, handling a set of data partitions",
    "tc": "tc thread, transaction handling, unique index and pushed join handling",
    "send": "send thread",
    "recv": "receive thread, performing receive and polling for new receives",
}
# (idle CPU share, CPU microseconds per operation of the node, signals per operation)
THREAD_LOAD = {
    "main": (0.02, 0.3, 0.5),
    "rep": (0.01, 0.6, 1.0),
    "ldm": (0.04, 11.0, 6.0),
    "tc": (0.03, 6.0, 4.0),
    "send": (0.02, 2.0, 1.0),
    "recv": (0.03, 3.0, 2.0),
}

TC_COUNTERS = (1, 2, 3, 4, 5, 6, 7, 8, 9, 24, 25)
LQH_COUNTERS = (10, 26, 27, 28, 29, 30, 31)
SPJ_COUNTERS = (11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23)
# restart_info statuses in the documented numbering: (int, text) per stage of a node restart
RESTART_STAGES = (
    (0, "Allocated node id"),
    (1, "Included in heartbeat protocol"),
    (2, "Wait for NDBCNTR master to permit us to start"),
    (3, "NDBCNTR master permitted us to start"),
    (4, "All nodes permitted us to start"),
    (5, "Wait for LCP completion to start copying metadata"),
    (6, "Copying metadata to starting node"),
    (7, "Include node in LCP and GCP protocols"),
    (8, "Restore fragments ongoing"),
    (9, "Synchronizing starting node with live nodes"),
    (10, "Wait for LCP to ensure durability"),
    (11, "Wait for handover of subscriptions"),
)
RESTART_COMPLETED = (12, "Restart completed")
NODE_FAILURE_COMPLETED = (14, "Node failure handling completed")
# share of the restart time spent in each secs_* column of restart_info
RESTART_SPLIT = (
    ("secs_to_complete_node_failure", 0.02),
    ("secs_to_allocate_node_id", 0.02),
    ("secs_to_include_in_heartbeat_protocol", 0.04),
    ("secs_until_wait_for_ndbcntr_master", 0.02),
    ("secs_wait_for_ndbcntr_master", 0.02),
    ("secs_to_get_start_permitted", 0.02),
    ("secs_to_wait_for_lcp_for_copy_meta_data", 0.02),
    ("secs_to_copy_meta_data", 0.04),
    ("secs_to_include_node", 0.04),
    ("secs_starting_node_to_request_local_recovery", 0.02),
    ("secs_for_local_recovery", 0.30),
    ("secs_restore_fragments", 0.12),
    ("secs_undo_disk_data", 0.03),
    ("secs_exec_redo_log", 0.08),
    ("secs_index_rebuild", 0.07),
    ("secs_to_synchronize_starting_node", 0.08),
    ("secs_wait_lcp_for_restart", 0.03),
    ("secs_wait_subscription_handover", 0.01),
)


# --- threads ---------------------------------------------------------------------------------


def thread_layout(ldm: int) -> list[tuple[int, str, list[tuple[int, int]]]]:
    """(thr_no, thread name, [(block, instance)]) of an ndbmtd with `ldm` LDM threads."""
    tc = ldm // 2
    send = 1 if ldm >= 4 else 0
    threads: list[tuple[str, list[tuple[int, int]]]] = [
        (
            "main",
            [
                (DBDICT, 0),
                (DBDIH, 0),
                (NDBCNTR, 0),
                (QMGR, 0),
                (CMVMI, 0),
                (TRIX, 0),
                (DBUTIL, 0),
                (DBINFO, 0),
            ]
            + ([] if tc else [(DBTC, 0), (DBSPJ, 0)]),
        ),
        ("rep", [(SUMA, 0), (TSMAN, 0), (LGMAN, 0), (NDBFS, 0), (BACKUP, 0), (RESTORE, 0)]),
    ]
    for i in range(1, ldm + 1):
        threads.append(
            ("ldm", [(b, i) for b in (DBLQH, DBACC, DBTUP, DBTUX, BACKUP, RESTORE, PGMAN)])
        )
    for i in range(1, tc + 1):
        threads.append(("tc", [(DBTC, i), (DBSPJ, i)]))
    threads += [("send", [])] * send
    threads.append(("recv", [(TRPMAN, 1)]))
    return [
        (thr_no, name, [*blocks, (THRMAN, thr_no + 1)])
        for thr_no, (name, blocks) in enumerate(threads)
    ]


def block_instances(ldm: int, block: int) -> list[int]:
    return sorted({inst for _, _, blocks in thread_layout(ldm) for b, inst in blocks if b == block})


def ldm_thread_numbers(ldm: int) -> list[int]:
    return [thr for thr, name, _ in thread_layout(ldm) if name == "ldm"]


def _thread_counts(ldm: int) -> dict[str, int]:
    counts: dict[str, int] = {}
    for _, name, _ in thread_layout(ldm):
        counts[name] = counts.get(name, 0) + 1
    return counts


def _uptime(c: Cluster, node_id: int) -> float:
    return max(0.0, c.now - c.nodes[node_id].started_at)


def threads(c: Cluster) -> list[dict]:
    return [
        {
            "node_id": n,
            "thr_no": thr,
            "thread_name": name,
            "thread_description": THREAD_DESCRIPTIONS[name],
        }
        for n in c.started_ids()
        for thr, name, _ in thread_layout(c.ldm)
    ]


def threadblocks(c: Cluster) -> list[dict]:
    return [
        {
            "node_id": n,
            "thr_no": thr,
            "block_number": block,
            "block_instance": inst,
            "error_insert_value": 0,
            "error_insert_extra": 0,
        }
        for n in c.started_ids()
        for thr, _, blocks in thread_layout(c.ldm)
        for block, inst in blocks
    ]


def _thread_cpu(c: Cluster, node_id: int, name: str) -> tuple[float, float]:
    """(user seconds, system seconds) a thread used since its node started."""
    idle, cost_us, _ = THREAD_LOAD[name]
    count = _thread_counts(c.ldm)[name]
    busy = c.nodes[node_id].ops * cost_us / 1e6 / count
    user = _uptime(c, node_id) * idle + busy
    return user, user * 0.18


def _thread_util(c: Cluster, node_id: int, name: str) -> float:
    """Share of one CPU the thread uses right now."""
    idle, cost_us, _ = THREAD_LOAD[name]
    count = _thread_counts(c.ldm)[name]
    ready = max(1, len(c.started_ids()))
    rate = c.workload.rate(c.now) / ready if c.is_up() else 0.0
    return min(0.97, idle + rate * cost_us / 1e6 / count)


def threadstat(c: Cluster) -> list[dict]:
    out = []
    for n in c.started_ids():
        uptime = _uptime(c, n)
        ops = c.nodes[n].ops
        for thr, name, _ in thread_layout(c.ldm):
            skew = _thread_skew(n, thr, name)
            user, system = (t * skew for t in _thread_cpu(c, n, name))
            signals = (ops * THREAD_LOAD[name][2] / _thread_counts(c.ldm)[name]) * skew
            signals += uptime * 400
            out.append(
                {
                    "node_id": n,
                    "thr_no": thr,
                    "thr_nm": name,
                    "c_loop": int(uptime * 1000 + signals / 12),
                    "c_exec": int(signals),
                    "c_wait": int(uptime * 900),
                    "c_l_sent_prioa": int(signals * 0.01),
                    "c_l_sent_priob": int(signals * 0.45),
                    "c_r_sent_prioa": int(signals * 0.005),
                    "c_r_sent_priob": int(signals * 0.2),
                    "os_tid": 20000 + n * 100 + thr,
                    "os_now": int(c.wall_time() * 1000),  # the host's clock, in ms
                    "os_ru_utime": int(user * 1e6),
                    "os_ru_stime": int(system * 1e6),
                    "os_ru_minflt": 52000 + thr * 17,
                    "os_ru_majflt": 3,
                    "os_ru_nvcsw": int(uptime * 120 + signals / 50),
                    "os_ru_nivcsw": int(uptime * 4),
                }
            )
    return out


def _thread_skew(node_id: int, thr: int, name: str) -> float:
    """LDM threads differ by the fragments they own; other types share evenly."""
    return 1 + 0.22 * math.sin(2.1 * thr + node_id) if name == "ldm" else 1.0


def cpustat(c: Cluster) -> list[dict]:
    out = []
    for n in c.started_ids():
        overloaded = any(node == n for node, _ in c.overloaded_links())
        for thr, name, _ in thread_layout(c.ldm):
            util = min(0.99, _thread_util(c, n, name) * _thread_skew(n, thr, name))
            user = int(util * 100 * 0.85)
            system = int(util * 100 * 0.15)
            exec_pct = int(util * 100 * 0.9)
            # a thread spins briefly before it sleeps, less the busier it is
            spin = int(round(4 * (1 - util))) if name in ("ldm", "tc", "recv") else 0
            send = int(round(util * 100 * (0.12 if name == "send" else 0.04)))
            full = 7 if overloaded and name in ("ldm", "tc", "send") else 0
            out.append(
                {
                    "node_id": n,
                    "thr_no": thr,
                    "OS_user": user,
                    "OS_system": system,
                    "OS_idle": max(0, 100 - user - system),
                    "thread_exec": exec_pct,
                    "thread_sleeping": max(0, 100 - exec_pct - spin - send - full),
                    "thread_spinning": spin,
                    "thread_send": send,
                    "thread_buffer_full": full,
                    "elapsed_time": 1_000_000,
                }
            )
    return out


def _cpustat_history(c: Cluster, window_us: int) -> list[dict]:
    out = []
    for n in c.started_ids():
        for thr, name, _ in thread_layout(c.ldm):
            util = _thread_util(c, n, name)
            for k in range(20):
                wobble = 1 + 0.08 * math.sin(k * 1.7 + thr + n)
                busy = int(window_us * util * wobble)
                user = int(busy * 0.85)
                out.append(
                    {
                        "node_id": n,
                        "thr_no": thr,
                        "OS_user_time": user,
                        "OS_system_time": busy - user,
                        "OS_idle_time": max(0, window_us - busy),
                        "exec_time": int(busy * 0.9),
                        "sleep_time": max(0, window_us - busy),
                        "spin_time": int(window_us * 0.005),
                        "send_time": int(busy * 0.05),
                        "buffer_full_time": 0,
                        "elapsed_time": window_us,
                    }
                )
    return out


def cpustat_50ms(c: Cluster) -> list[dict]:
    return _cpustat_history(c, 50_000)


def cpustat_1sec(c: Cluster) -> list[dict]:
    return _cpustat_history(c, 1_000_000)


def cpustat_20sec(c: Cluster) -> list[dict]:
    return _cpustat_history(c, 20_000_000)


# --- nodes and membership --------------------------------------------------------------------


def start_phase(c: Cluster, node_id: int) -> int:
    return min(START_PHASES, 1 + int(START_PHASES * c.restart_progress(node_id)))


def nodes(c: Cluster) -> list[dict]:
    out = []
    for n in c.running_ids():
        s = c.nodes[n]
        if s.state == "STARTED":
            out.append(
                {
                    "node_id": n,
                    "uptime": int(_uptime(c, n)),
                    "status": 3,
                    "start_phase": 0,
                    "config_generation": 1,
                }
            )
        else:
            out.append(
                {
                    "node_id": n,
                    "uptime": int(c.now - s.restart_begin),
                    "status": 2,
                    "start_phase": start_phase(c, n),
                    "config_generation": 1,
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


def _node_version(c: Cluster, node_type: int) -> str:
    ndb = c.version.ndb_text
    if node_type == API:
        server = c.version.version_string.split("-")[0]
        return f"mysql-{server} ndb-{ndb}"
    return ndb


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
                uri = f"mysql://{node.hostname}:3306/?server-id={node_id - 49}"
                pid, angel = pids[node_id], 0
            out.append(
                {
                    "reporting_node_id": reporter,
                    "node_id": node_id,
                    "node_type": node.node_type,
                    "node_version": _node_version(c, node.node_type),
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


def _transporter_state(c: Cluster, remote: int) -> int:
    if remote in c.nodes:
        state = c.nodes[remote].state
        return {"STARTED": 0, "STARTING": 1}.get(state, 2)
    return 0 if c.node_up(remote) else 2


def transporter_connected(c: Cluster, remote: int) -> bool:
    """Whether the started data nodes' links to `remote` are CONNECTED."""
    return _transporter_state(c, remote) == 0


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
            status = _transporter_state(c, remote)
            up = status == 0 and remote_node.process_name != ""
            connects = c.nodes[remote].connect_count if remote in c.nodes else 1
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
                    "connect_count": connects if remote_node.process_name else 0,
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


def _connected_remotes(c: Cluster, rows_: list[dict], node_id: int) -> list[int]:
    return [
        r["remote_node_id"]
        for r in rows_
        if r["node_id"] == node_id
        and r["connection_status"] == 0
        and c.topology.node(r["remote_node_id"]).process_name
    ]


def transporter_details(c: Cluster) -> list[dict]:
    out = []
    full = SEND_BUFFER_BYTES * 15 // 16  # above the overload level of the send buffer
    base = _transporter_rows(c)
    connected = {n: _connected_remotes(c, base, n) for n in c.started_ids()}
    for trp_id, row in enumerate(base, start=1):
        n, remote = row["node_id"], row["remote_node_id"]
        used, allocated = links.send_buffer(c, n, remote, connected[n])
        peak = max(used * 6, allocated // 2) if used else 0
        if row["overloaded"]:
            used, allocated = full, max(allocated, SEND_BUFFER_BYTES)
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
    """Bytes of send buffer each data node has allocated over all its links."""
    out: dict[int, int] = {}
    for r in transporter_details(c):
        out[r["node_id"]] = out.get(r["node_id"], 0) + r["sendbuffer_alloc_bytes"]
    return out


# --- memory, logs, resources -----------------------------------------------------------------


def pools(c: Cluster) -> list[dict]:
    out = []
    for n in c.started_ids():
        cfg = c.config[n]
        used, total = c.data_memory_pages(n)
        lmb_total = int(cfg["LongMessageBuffer"]) // 256
        lmb_used = int(lmb_total * 0.01) + int(_thread_util(c, n, "tc") * 900)
        rows = [("Data memory", used, total, int(max(used, total * 0.42)), 32768, 112, 3, 1)]
        if "IndexMemory" in cfg:
            im_total = int(cfg["IndexMemory"]) // 8192
            im_used = int(im_total * 0.18) + int(c.nodes[n].ops * 1e-5) % max(1, im_total // 10)
            rows.append(("Index memory", im_used, im_total, im_used, 8192, 113, 0, 0))
        rows.append(("Long message buffer", lmb_used, lmb_total, lmb_used * 3, 256, 157, 0, 0))
        for name, u, t, high, size, param, resource, type_id in rows:
            out.append(
                {
                    "node_id": n,
                    "block_number": CMVMI,
                    "block_instance": 0,
                    "pool_name": name,
                    "used": u,
                    "total": t,
                    "high": max(u, high),
                    "entry_size": size,
                    "config_param1": param,
                    "config_param2": 0,
                    "config_param3": 0,
                    "config_param4": 0,
                    "resource_id": resource,
                    "type_id": type_id,
                }
            )
    return out


def resources(c: Cluster) -> list[dict]:
    out = []
    allocated = send_buffer_allocated(c)
    for n in c.started_ids():
        cfg = c.config[n]
        used, total = c.data_memory_pages(n)
        util = _thread_util(c, n, "tc")
        tm_reserved = max(int(cfg.get("TransactionMemory", "0") or 0) // 32768, total // 10)
        dpb = int(cfg["DiskPageBufferMemory"]) // 32768
        rows = {
            1: (tm_reserved, int(tm_reserved * (0.02 + util * 0.2)), 0),
            2: (0, 2 + int(util * 40), 0),
            3: (total, used, total),
            4: (64, 3 + int(util * 30), 0),
            5: (32 + 32 * c.ldm, 32 + 32 * c.ldm, 0),
            6: (256, links.pool_pages_used(allocated[n]), SEND_BUFFER_POOL_PAGES),
            7: (dpb, dpb, 0),
            8: (0, int(util * 20), 0),
            9: (64, 2, 0),
        }
        if c.version.is_7x:
            rows[0] = (0, 0, 0)
            rows.pop(8)
            rows.pop(9)
        for resource_id, (reserved, used_pages, maximum) in sorted(rows.items()):
            out.append(
                {
                    "node_id": n,
                    "resource_id": resource_id,
                    "reserved": reserved,
                    "used": used_pages,
                    "max": maximum,
                    "high": used_pages,
                    "spare": 0,
                }
            )
    return out


def logspaces(c: Cluster) -> list[dict]:
    out = []
    lg = c.dictionary.logfile_group_id
    for n in c.started_ids():
        total = c.redo_part_bytes(n)
        for part in range(int(c.config[n]["NoOfFragmentLogParts"])):
            used = c.redo_used(n, part)
            out.append(
                {
                    "node_id": n,
                    "log_type": 0,
                    "log_id": 0,
                    "log_part": part,
                    "total": total,
                    "used": used,
                    "high": min(total, int(used * 1.15)),
                }
            )
        if lg is not None:
            undo_total = 134217728
            undo_used = 2 * 1024 * 1024 + int(c.nodes[n].ops * 3) % (undo_total // 4)
            out.append(
                {
                    "node_id": n,
                    "log_type": 1,
                    "log_id": lg,
                    "log_part": 0,
                    "total": undo_total,
                    "used": undo_used,
                    "high": undo_used,
                }
            )
    return out


def logbuffers(c: Cluster) -> list[dict]:
    out = []
    lg = c.dictionary.logfile_group_id
    for n in c.started_ids():
        cfg = c.config[n]
        total = int(cfg["RedoBuffer"])
        util = _thread_util(c, n, "ldm")
        for part in range(int(cfg["NoOfFragmentLogParts"])):
            used = int(total * util * 0.05) + 32768 * (part % 2)
            out.append(
                {
                    "node_id": n,
                    "log_type": 0,
                    "log_id": 0,
                    "log_part": part,
                    "total": total,
                    "used": used,
                    "high": used * 4,
                }
            )
        if lg is not None:
            out.append(
                {
                    "node_id": n,
                    "log_type": 1,
                    "log_id": lg,
                    "log_part": 0,
                    "total": 8388608,
                    "used": 32768,
                    "high": 262144,
                }
            )
        if not c.version.is_7x:
            out.append(
                {
                    "node_id": n,
                    "log_type": 2,
                    "log_id": 0,
                    "log_part": 0,
                    "total": int(cfg["BackupDataBufferSize"]),
                    "used": 0,
                    "high": 0,
                }
            )
            out.append(
                {
                    "node_id": n,
                    "log_type": 3,
                    "log_id": 0,
                    "log_part": 0,
                    "total": int(cfg["BackupLogBufferSize"]),
                    "used": 0,
                    "high": 0,
                }
            )
    return out


# --- counters and activity -------------------------------------------------------------------


def counters(c: Cluster) -> list[dict]:
    out = []
    for n in c.started_ids():
        ops = c.nodes[n].ops
        key = ops * workload.KEY_SHARE
        scans = ops - key
        reads = workload.reads(ops)
        wr = workload.writes(ops)
        trans = ops / workload.OPS_PER_TRANSACTION
        tc = block_instances(c.ldm, DBTC)
        tc_values = {
            1: key * 3.1,
            2: trans,
            3: trans * (1 - workload.ABORT_RATIO),
            4: reads * 0.7,
            5: reads * 0.3,
            6: wr,
            7: trans * workload.ABORT_RATIO,
            8: scans * (1 - workload.RANGE_SHARE_OF_SCANS),
            9: scans * workload.RANGE_SHARE_OF_SCANS,
            24: reads * 0.55,
            25: wr * 0.5,
        }
        spj_values = {
            11: reads * 0.05,
            12: reads * 0.04,
            13: reads * 0.01,
            14: reads * 0.002,
            15: scans * 0.02,
            16: scans * 0.02,
            17: scans * 0.1,
            18: scans * 0.07,
            19: scans * 0.03,
            20: scans * 0.3,
            21: scans * 4.0,
            22: scans * 0.1 * c.spec.pruned_scan_share,
            23: scans * 0.01,
        }
        for i, inst in enumerate(tc):
            share = (1 + 0.06 * i) / sum(1 + 0.06 * k for k in range(len(tc)))
            for cid in TC_COUNTERS:
                out.append(
                    {
                        "node_id": n,
                        "block_number": DBTC,
                        "block_instance": inst,
                        "counter_id": cid,
                        "val": int(tc_values[cid] * share),
                    }
                )
            for cid in SPJ_COUNTERS:
                out.append(
                    {
                        "node_id": n,
                        "block_number": DBSPJ,
                        "block_instance": inst,
                        "counter_id": cid,
                        "val": int(spj_values[cid] * share),
                    }
                )
        lqh = block_instances(c.ldm, DBLQH)
        for i, inst in enumerate(lqh):
            share = (1 + 0.1 * i) / sum(1 + 0.1 * k for k in range(len(lqh)))
            values = {
                10: (reads + wr * c.spec.replicas) * share,
                26: 0,
                27: 0,
                28: 0,
                29: 0,
                30: 0,
                31: scans * 1e-5 * share,
            }
            for cid in LQH_COUNTERS:
                out.append(
                    {
                        "node_id": n,
                        "block_number": DBLQH,
                        "block_instance": inst,
                        "counter_id": cid,
                        "val": int(values[cid]),
                    }
                )
    return out


def _disk_share(c: Cluster) -> float:
    return sum(t.weight for t in c.dictionary.dih if t.disk)


def diskpagebuffer(c: Cluster) -> list[dict]:
    out = []
    share = _disk_share(c)
    for n in c.started_ids():
        ops = c.nodes[n].ops * share
        pgman = block_instances(c.ldm, PGMAN)
        for inst, inst_share in zip(pgman, pgman_shares(c, n), strict=True):
            part = ops * inst_share
            requests = part * 1.3
            miss = 0.02 + 0.03 * random.Random(c.spec.seed * 389 + n * 61 + inst).random()
            out.append(
                {
                    "node_id": n,
                    "block_instance": inst,
                    "pages_written": int(part * 0.2),
                    "pages_written_lcp": int(part * 0.12),
                    "pages_read": int(requests * miss),
                    "log_waits": int(part * 0.001),
                    "page_requests_direct_return": int(requests * (0.99 - miss)),
                    "page_requests_wait_queue": int(requests * 0.01),
                    "page_requests_wait_io": int(requests * miss),
                }
            )
    return out


def pgman_shares(c: Cluster, n: int) -> list[float]:
    """Share of a data node's disk data work each PGMAN instance does: the disk tables'
    fragments are not spread evenly over the LDM threads."""
    rnd = random.Random(c.spec.seed * 127 + n)
    weights = [rnd.uniform(0.7, 1.3) for _ in block_instances(c.ldm, PGMAN)]
    return [w / sum(weights) for w in weights]


def _lcp_speed(c: Cluster, n: int) -> int:
    """Bytes per second one LDM thread writes for LCP right now."""
    cfg = c.config[n]
    if not c.checkpoints.in_round or c.faults.is_active("lcp-stall"):
        return 0
    low, high = int(cfg["MinDiskWriteSpeed"]), int(cfg["MaxDiskWriteSpeed"])
    return int((low + (high - low) * 0.35) / c.ldm)


def _redo_speed(c: Cluster) -> int:
    ready = max(1, len(c.started_ids()))
    rate = c.workload.rate(c.now) if c.is_up() else 0.0
    return int(workload.writes(rate) * workload.REDO_BYTES_PER_WRITE / ready / c.ldm)


def _write_wobble(k: int, thr: int, n: int) -> float:
    """Relative write speed of an LDM thread k seconds ago (disk writes come in bursts)."""
    return 1 + 0.1 * math.sin(k * 0.9 + thr + n) + 0.05 * math.sin(k * 0.23 + 2 * thr)


def disk_write_speed_base(c: Cluster) -> list[dict]:
    out = []
    redo = _redo_speed(c)
    for n in c.started_ids():
        lcp = _lcp_speed(c, n)
        target = int(c.config[n]["MaxDiskWriteSpeed"]) // c.ldm
        for thr in ldm_thread_numbers(c.ldm):
            for k in range(60):
                wobble = _write_wobble(k, thr, n)
                out.append(
                    {
                        "node_id": n,
                        "thr_no": thr,
                        "millis_ago": k * 1000,
                        "millis_passed": 1000,
                        "backup_lcp_bytes_written": int(lcp * wobble),
                        "redo_bytes_written": int(redo * wobble),
                        "target_disk_write_speed": target,
                    }
                )
    return out


def _mean_and_std_dev(values: list[int]) -> tuple[int, int]:
    mean = sum(values) / len(values)
    return int(mean), int(math.sqrt(sum((v - mean) ** 2 for v in values) / len(values)))


def disk_write_speed_aggregate(c: Cluster) -> list[dict]:
    """The last second, the mean and standard deviation over the last 10 and 60 seconds of
    the per-second samples that disk_write_speed_base shows."""
    out = []
    redo = _redo_speed(c)
    for n in c.started_ids():
        lcp = _lcp_speed(c, n)
        target = int(c.config[n]["MaxDiskWriteSpeed"]) // c.ldm
        for thr in ldm_thread_numbers(c.ldm):
            wobble = [_write_wobble(k, thr, n) for k in range(60)]
            lcp_s = [int(lcp * w) for w in wobble]
            redo_s = [int(redo * w) for w in wobble]
            lcp_10, lcp_10_sd = _mean_and_std_dev(lcp_s[:10])
            redo_10, redo_10_sd = _mean_and_std_dev(redo_s[:10])
            lcp_60, lcp_60_sd = _mean_and_std_dev(lcp_s)
            redo_60, redo_60_sd = _mean_and_std_dev(redo_s)
            out.append(
                {
                    "node_id": n,
                    "thr_no": thr,
                    "backup_lcp_speed_last_sec": lcp_s[0],
                    "redo_speed_last_sec": redo_s[0],
                    "backup_lcp_speed_last_10sec": lcp_10,
                    "redo_speed_last_10sec": redo_10,
                    "std_dev_backup_lcp_speed_last_10sec": lcp_10_sd,
                    "std_dev_redo_speed_last_10sec": redo_10_sd,
                    "backup_lcp_speed_last_60sec": lcp_60,
                    "redo_speed_last_60sec": redo_60,
                    "std_dev_backup_lcp_speed_last_60sec": lcp_60_sd,
                    "std_dev_redo_speed_last_60sec": redo_60_sd,
                    "slowdowns_due_to_io_lag": 0,
                    "slowdowns_due_to_high_cpu": 0,
                    "disk_write_speed_set_to_min": 0,
                    "current_target_disk_write_speed": target,
                }
            )
    return out


def restart_info(c: Cluster) -> list[dict]:
    out = []
    duration = c.spec.restart_seconds
    for n, s in sorted(c.nodes.items()):
        if not s.restarted:
            continue
        row = {"node_id": n}
        if s.state == "STARTING":
            frac = c.restart_progress(n)
            status_int, text = RESTART_STAGES[
                min(len(RESTART_STAGES) - 1, int(frac * len(RESTART_STAGES)))
            ]
            elapsed = int(c.now - s.restart_begin)
            secs = {name: 0 for name, _ in RESTART_SPLIT}
            secs["secs_to_complete_node_failure"] = 1
            total = elapsed
        elif s.state == "STARTED":
            status_int, text = RESTART_COMPLETED
            secs = {name: max(0, round(duration * share)) for name, share in RESTART_SPLIT}
            total = max(int(duration), sum(secs.values()))
        else:
            status_int, text = NODE_FAILURE_COMPLETED
            secs = {name: 0 for name, _ in RESTART_SPLIT}
            secs["secs_to_complete_node_failure"] = 1
            total = 0
        row.update(
            {
                "node_restart_status": text,
                "node_restart_status_int": status_int,
                **secs,
                "total_restart_secs": total,
            }
        )
        out.append(row)
    return out


def config_values(c: Cluster) -> list[dict]:
    params = {p.name: p.number for p in config_params.params_for(c.version)}
    return [
        {"node_id": n, "config_param": params[name], "config_value": value}
        for n in c.started_ids()
        for name, value in sorted(c.config[n].items(), key=lambda kv: params[kv[0]])
        if value != ""
    ]


def config_params_rows(c: Cluster) -> list[dict]:
    return config_params.config_params_rows(c.version)


def hwinfo(c: Cluster) -> list[dict]:
    return [
        {
            "node_id": n,
            "cpu_cnt_max": 16,
            "cpu_cnt": 16,
            "num_cpu_cores": 8,
            "num_cpu_sockets": 1,
            "HW_memory_size": 68719476736,
            "model_name": "Intel(R) Xeon(R) Gold 6248R CPU @ 3.00GHz",
        }
        for n in c.started_ids()
    ]


def cpuinfo(c: Cluster) -> list[dict]:
    return [
        {"node_id": n, "cpu_no": cpu, "cpu_online": 1, "core_id": cpu // 2, "socket_id": 0}
        for n in c.started_ids()
        for cpu in range(16)
    ]


def _cpu_util(c: Cluster, n: int) -> float:
    return sum(_thread_util(c, n, name) for _, name, _ in thread_layout(c.ldm)) / 16


def _cpu_times(util: float, cpu: int, window_us: int) -> dict:
    """One CPU's times over a window: the first ten CPUs carry the data node's threads."""
    spread = 1 + 0.15 * math.sin(1.3 * cpu + 0.5)  # the OS does not balance evenly
    busy = int(window_us * min(0.98, util * (1.2 if cpu < 10 else 0.4) * spread))
    return {
        "cpu_no": cpu,
        "cpu_online": 1,
        "cpu_userspace_time": int(busy * 0.85),
        "cpu_idle_time": window_us - busy,
        "cpu_system_time": int(busy * 0.12),
        "cpu_interrupt_time": int(busy * 0.03),
        "cpu_exec_vm_time": 0,
    }


def cpudata(c: Cluster) -> list[dict]:
    out = []
    for n in c.started_ids():
        util = _cpu_util(c, n)
        for cpu in range(16):
            out.append({"node_id": n, **_cpu_times(util, cpu, 1_000_000)})
    return out


def _cpudata_history(c: Cluster, window_us: int) -> list[dict]:
    out = []
    for n in c.started_ids():
        util = _cpu_util(c, n)
        for m in range(20):
            for cpu in range(16):
                out.append(
                    {
                        "node_id": n,
                        "measurement_id": m,
                        **_cpu_times(util, cpu, window_us),
                        "elapsed_time": window_us,
                    }
                )
    return out


def cpudata_50ms(c: Cluster) -> list[dict]:
    return _cpudata_history(c, 50_000)


def cpudata_1sec(c: Cluster) -> list[dict]:
    return _cpudata_history(c, 1_000_000)


def cpudata_20sec(c: Cluster) -> list[dict]:
    return _cpudata_history(c, 20_000_000)


def _pgman_activity(c: Cluster, n: int) -> float:
    return _thread_util(c, n, "ldm") * _disk_share(c) * 2000


def diskstat(c: Cluster) -> list[dict]:
    out = []
    for n in c.started_ids():
        pgman = block_instances(c.ldm, PGMAN)
        activity = _pgman_activity(c, n)
        for inst, share in zip(pgman, pgman_shares(c, n), strict=True):
            a = int(activity * share * len(pgman))
            out.append(
                {
                    "node_id": n,
                    "block_instance": inst,
                    "pages_made_dirty": a,
                    "reads_issued": a // 8,
                    "reads_completed": a // 8,
                    "writes_issued": a // 3,
                    "writes_completed": a // 3,
                    "log_writes_issued": a // 20,
                    "log_writes_completed": a // 20,
                    "get_page_calls_issued": a * 4,
                    "get_page_reqs_issued": a // 8,
                    "get_page_reqs_completed": a // 8,
                }
            )
    return out


def diskstats_1sec(c: Cluster) -> list[dict]:
    base = diskstat(c)
    return [{**row, "seconds_ago": k} for row in base for k in range(1, 21)]


# --- dictionary lookups (SQL-node virtual tables answered from the data nodes) ---------------


def backup_id(c: Cluster) -> list[dict]:
    return [{"id": c.backup_id, "fragment": 0, "row_id": 0}]


def dictionary_tables(c: Cluster) -> list[dict]:
    out = []
    for t in c.dictionary.dih:
        if t.type != 2 or t.name.startswith("NDB$BLOB"):
            continue
        out.append(
            {
                "table_id": t.table_id,
                "database_name": t.database,
                "table_name": t.name,
                "status": "Retrieved",
                "attributes": t.columns,
                "primary_key_cols": 1,
                "primary_key": "id",
                "storage": "disk" if t.disk else "memory",
                "logging": 1,
                "dynamic": 0,
                "read_backup": int(t.read_backup),
                "fully_replicated": int(t.fully_replicated),
                "checksum": 0,
                "row_size": t.row_bytes + t.var_bytes,
                "min_rows": 0,
                "max_rows": 0,
                "tablespace": c.dictionary.tablespace_id if t.disk else None,
                "fragment_type": "HashMapPartition",
                "hash_map": f"DEFAULT-HASHMAP-3840-{t.partitions}",
                "fragments": t.fragments,
                "partitions": t.partitions,
                "partition_balance": {
                    4294967294: "FOR_RP_BY_LDM",
                    4294967293: "FOR_RA_BY_LDM",
                    4294967292: "FOR_RP_BY_NODE",
                    4294967291: "FOR_RA_BY_NODE",
                }[t.partition_balance],
                "contains_GCI": 1,
                "single_user_mode": "locked",
                "force_var_part": 1,
                "GCI_bits": 0,
                "author_bits": 0,
                "extra_metadata_version": 2,
                "extra_metadata": None,
            }
        )
    return out


def blobs(c: Cluster) -> list[dict]:
    by_id = {t.table_id: t for t in c.dictionary.dih}
    return [
        {
            "table_id": base_id,
            "database_name": by_id[base_id].database,
            "table_name": by_id[base_id].name,
            "column_id": column,
            "column_name": name,
            "inline_size": 256,
            "part_size": 2000,
            "stripe_size": 0,
            "blob_table_name": blob_name,
        }
        for base_id, column, name, blob_name in c.dictionary.blobs
    ]


# Every small table the model writes, by ndbinfo name.
BUILDERS = {
    "ndb$nodes": nodes,
    "ndb$membership": membership,
    "ndb$processes": processes,
    "ndb$config_nodes": config_nodes,
    "ndb$transporters": transporters,
    "ndb$transporter_details": transporter_details,
    "ndb$pools": pools,
    "ndb$resources": resources,
    "ndb$logspaces": logspaces,
    "ndb$logbuffers": logbuffers,
    "ndb$counters": counters,
    "ndb$diskpagebuffer": diskpagebuffer,
    "ndb$threads": threads,
    "ndb$threadblocks": threadblocks,
    "ndb$threadblock_details": threadblocks,
    "ndb$threadstat": threadstat,
    "ndb$cpustat": cpustat,
    "ndb$cpustat_50ms": cpustat_50ms,
    "ndb$cpustat_1sec": cpustat_1sec,
    "ndb$cpustat_20sec": cpustat_20sec,
    "ndb$disk_write_speed_base": disk_write_speed_base,
    "ndb$disk_write_speed_aggregate": disk_write_speed_aggregate,
    "ndb$tc_time_track_stats": lambda c: c.latency.tc_rows(c),
    "ndb$restart_info": restart_info,
    "ndb$config_values": config_values,
    "ndb$config_params": config_params_rows,
    "ndb$hwinfo": hwinfo,
    "ndb$cpuinfo": cpuinfo,
    "ndb$cpudata": cpudata,
    "ndb$cpudata_50ms": cpudata_50ms,
    "ndb$cpudata_1sec": cpudata_1sec,
    "ndb$cpudata_20sec": cpudata_20sec,
    "ndb$diskstat": diskstat,
    "ndb$diskstats_1sec": diskstats_1sec,
    "ndb$pgman_time_track_stats": lambda c: c.latency.pgman_rows(c),
    "ndb$backup_id": backup_id,
    "ndb$transactions": lambda c: c.activity.rows(c).transactions,
    "ndb$operations": lambda c: c.activity.rows(c).operations,
    "ndb$acc_operations": lambda c: c.activity.rows(c).locks,
    "ndb$certificates": tls.certificates,
    "dictionary_tables": dictionary_tables,
    "blobs": blobs,
}
