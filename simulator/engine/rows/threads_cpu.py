"""Rows of the thread and CPU tables: threads, threadblocks, threadstat, cpustat."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from ndbsim.model.blocks import thread_layout
from ndbsim.model.thread_load import THREAD_LOAD, thread_counts, thread_util

if TYPE_CHECKING:
    from ndbsim.model.cluster import Cluster

THREAD_DESCRIPTIONS = {
    "main": "main thread, schema and distribution handling",
    "rep": "rep thread, asynch replication and proxy block handling",
    "ldm": "ldm thread, handling a set of data partitions",
    "tc": "tc thread, transaction handling, unique index and pushed join handling",
    "send": "send thread",
    "recv": "receive thread, performing receive and polling for new receives",
}


def node_uptime(c: Cluster, node_id: int) -> float:
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
    count = thread_counts(c.ldm)[name]
    busy = c.nodes[node_id].ops * cost_us / 1e6 / count
    user = node_uptime(c, node_id) * idle + busy
    return user, user * 0.18


def threadstat(c: Cluster) -> list[dict]:
    out = []
    for n in c.started_ids():
        uptime = node_uptime(c, n)
        ops = c.nodes[n].ops
        for thr, name, _ in thread_layout(c.ldm):
            skew = _thread_skew(n, thr, name)
            user, system = (t * skew for t in _thread_cpu(c, n, name))
            signals = (ops * THREAD_LOAD[name][2] / thread_counts(c.ldm)[name]) * skew
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


# job-buffer-congestion: the LDM threads of a node consume their job buffers too slowly; the
# threads that send them signals (TC: LQHKEYREQ, SCAN_FRAGREQ; recv: those of other nodes)
# find the buffers congested and sleep until they drain (mt.cpp update_sched_config: the sleep
# counts as thread_buffer_full), while the LDM threads execute all the time.
CONGESTED_CONSUMER = "ldm"
CONGESTED_PRODUCERS = {"tc": 0.3, "recv": 0.2}  # share of time waiting on the full buffers


def _congested(c: Cluster, node_id: int) -> bool:
    params = c.faults.get("job-buffer-congestion")
    return params is not None and params["node"] == node_id


def _buffer_full_share(c: Cluster, node_id: int, name: str) -> float:
    """Share of time the thread waits on congested job buffers of a slower thread."""
    return CONGESTED_PRODUCERS.get(name, 0.0) if _congested(c, node_id) else 0.0


def _exec_util(c: Cluster, node_id: int, thr: int, name: str) -> float:
    if name == CONGESTED_CONSUMER and _congested(c, node_id):
        return 0.99
    return min(0.99, thread_util(c, node_id, name) * _thread_skew(node_id, thr, name))


def cpustat(c: Cluster) -> list[dict]:
    out = []
    for n in c.started_ids():
        for thr, name, _ in thread_layout(c.ldm):
            util = _exec_util(c, n, thr, name)
            user = int(util * 100 * 0.85)
            system = int(util * 100 * 0.15)
            exec_pct = int(util * 100 * 0.9)
            # a thread spins briefly before it sleeps, less the busier it is
            spin = int(round(4 * (1 - util))) if name in ("ldm", "tc", "recv") else 0
            send = int(round(util * 100 * (0.12 if name == "send" else 0.04)))
            full = int(round(_buffer_full_share(c, n, name) * 100))
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
            util = _exec_util(c, n, thr, name)
            full = _buffer_full_share(c, n, name)
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
                        "buffer_full_time": int(window_us * full),
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
