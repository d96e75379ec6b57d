"""Rows of the counter and activity tables: counters, disk page buffer and disk writes,
configuration values, hardware and CPU data, disk statistics, and the open
transactions, operations and locks of the model's snapshot (model/transactions.py)."""

from __future__ import annotations

import math
import random
from typing import TYPE_CHECKING

from ndbsim.model import config_params, node_config, workload
from ndbsim.model.blocks import (
    DBLQH,
    DBSPJ,
    DBTC,
    PGMAN,
    block_instances,
    ldm_thread_numbers,
    thread_layout,
)
from ndbsim.model.disk_data import disk_share
from ndbsim.model.thread_load import thread_util

if TYPE_CHECKING:
    from ndbsim.model.cluster import Cluster


TC_COUNTERS = (1, 2, 3, 4, 5, 6, 7, 8, 9, 24, 25)
LQH_COUNTERS = (10, 26, 27, 28, 29, 30, 31)
SPJ_COUNTERS = (11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23)


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


PAGE_REQUESTS_PER_OP = 1.3  # disk page requests per operation on a disk data table


def diskpagebuffer(c: Cluster) -> list[dict]:
    """PGMAN rows. A healthy cache serves 98-99.5% of the requests it does not queue (the
    manual's hit ratio); those made while disk-page-buffer-misses was set miss its share."""
    out = []
    share = disk_share(c)
    for n in c.started_ids():
        s = c.nodes[n]
        ops = s.ops * share
        pgman = block_instances(c.ldm, PGMAN)
        for inst, inst_share in zip(pgman, pgman_shares(c, n), strict=True):
            part = ops * inst_share
            warm = (s.ops - s.cold_ops) * share * inst_share * PAGE_REQUESTS_PER_OP
            cold = s.cold_ops * share * inst_share * PAGE_REQUESTS_PER_OP
            cold_hits = s.cold_hit_ops * share * inst_share * PAGE_REQUESTS_PER_OP
            miss = 0.005 + 0.015 * random.Random(c.spec.seed * 389 + n * 61 + inst).random()
            misses = warm * miss + cold - cold_hits
            out.append(
                {
                    "node_id": n,
                    "block_instance": inst,
                    "pages_written": int(part * 0.2),
                    "pages_written_lcp": int(part * 0.12),
                    "pages_read": int(misses),
                    "log_waits": int(part * 0.001),
                    "page_requests_direct_return": int(warm * (0.99 - miss) + cold_hits),
                    "page_requests_wait_queue": int(warm * 0.01),
                    "page_requests_wait_io": int(misses),
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
                    "slowdowns_due_to_io_lag": int(c.nodes[n].redo_io_lag_seconds),
                    "slowdowns_due_to_high_cpu": 0,
                    "disk_write_speed_set_to_min": 0,
                    "current_target_disk_write_speed": target,
                }
            )
    return out


def config_values(c: Cluster) -> list[dict]:
    params = {p.name: p.number for p in config_params.params_for(c.version)}
    return [
        {"node_id": n, "config_param": params[name], "config_value": value}
        for n in c.started_ids()
        for name, value in sorted(node_config.reported(c, n).items(), key=lambda kv: params[kv[0]])
        if value != ""
    ]


def config_params_rows(c: Cluster) -> list[dict]:
    """ndb$config_params: the parameters the cluster's version knows."""
    return [
        {
            "param_number": p.number,
            "param_name": p.name,
            "param_description": p.description,
            "param_type": p.type,
            "param_default": p.default,
            "param_min": p.minimum,
            "param_max": p.maximum,
            "param_mandatory": p.mandatory,
            "param_status": p.status,
        }
        for p in config_params.params_for(c.version)
    ]


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
    return sum(thread_util(c, n, name) for _, name, _ in thread_layout(c.ldm)) / 16


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
    return thread_util(c, n, "ldm") * disk_share(c) * 2000


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


def transactions(c: Cluster) -> list[dict]:
    return [record._asdict() for record in c.activity.snapshot(c).transactions]


def operations(c: Cluster) -> list[dict]:
    return [record._asdict() for record in c.activity.snapshot(c).operations]


def acc_operations(c: Cluster) -> list[dict]:
    return [record._asdict() for record in c.activity.snapshot(c).locks]
