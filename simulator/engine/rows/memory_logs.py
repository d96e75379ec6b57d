"""Rows of the memory, log and resource tables: pools, resources, logspaces, logbuffers."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ndbsim.engine.rows.membership import send_buffer_allocated
from ndbsim.model import links
from ndbsim.model.blocks import CMVMI
from ndbsim.model.disk_data import UNDO_FILE_BYTES, node_undo_used_bytes
from ndbsim.model.faults import POOLS
from ndbsim.model.thread_load import thread_util

if TYPE_CHECKING:
    from ndbsim.model.cluster import Cluster


SEND_BUFFER_POOL_PAGES = links.SEND_BUFFER_POOL_PAGES
UNDO_BUFFER_BYTES = 8388608  # UNDO_BUFFER_SIZE 8M of the log file group
MIN_POOL_LIMIT_PAGES = 64  # resource-pool: the limit of a pool that reserves less


# The share of each REDO buffer held by pages waiting for a redo disk too slow for GCP_SAVE.
REDO_BACKLOG_SHARE = 0.5


def buffer_share(c: Cluster, buffer: str) -> float | None:
    """The share buffer-full fills `buffer` of every data node to, if it names it."""
    params = c.faults.get("buffer-full")
    if params is None or params["buffer"] != buffer:
        return None
    return params["share"]


def pools(c: Cluster) -> list[dict]:
    out = []
    for n in c.started_ids():
        cfg = c.config[n]
        used, total = c.data_memory_pages(n)
        lmb_total = int(cfg["LongMessageBuffer"]) // 256
        lmb_used = int(lmb_total * 0.01) + int(thread_util(c, n, "tc") * 900)
        lmb_share = buffer_share(c, "long-message")
        if lmb_share is not None:
            lmb_used = int(lmb_total * lmb_share)
        rows = [("Data memory", used, total, int(max(used, total * 0.42)), 32768, 112, 3, 1)]
        if "IndexMemory" in cfg:
            im_total = int(cfg["IndexMemory"]) // 8192
            im_used = int(im_total * 0.18) + int(c.nodes[n].ops * 1e-5) % max(1, im_total // 10)
            share = c.faults.share("data-memory")  # NDB 7.5: the hash indexes fill with the rows
            if share is not None:
                im_used = int(im_total * share)
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
        util = thread_util(c, n, "tc")
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
        if c.version.is_rondb:
            rows.update(_rondb_regions(c))
        _fill_pool(c, rows)
        if c.version.is_rondb:
            # TOTAL_GLOBAL_MEMORY: the whole global memory manager, every region together
            reserved, used = (sum(r[i] for r in rows.values()) for i in range(2))
            rows[0] = (reserved, used, reserved)
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


def _rondb_regions(c: Cluster) -> dict[int, tuple[int, int, int]]:
    """RonDB's own regions of the global memory manager (record_types.hpp), sized once at
    start and capped there: SCHEMA_MEMORY for the dictionary's tables, BACKUP_SCHEMA_MEMORY,
    REPLICATION_MEMORY (48 MiB per LDM thread, RonDB's Configuration.cpp)."""
    tables = len(c.dictionary.dih)
    replication = 48 * (1 << 20) // 32768 * c.ldm
    return {
        10: (2048, min(2048, 64 + tables), 2048),
        11: (256, 4, 256),
        12: (replication, replication // 20, replication),
    }


def _fill_pool(c: Cluster, rows: dict[int, tuple[int, int, int]]) -> None:
    """resource-pool: the pool it names gets a fixed limit (its reservation, or
    MIN_POOL_LIMIT_PAGES) and uses the fault's share of it."""
    params = c.faults.get("resource-pool")
    if params is None or POOLS[params["resource"]] not in rows:
        return
    resource_id = POOLS[params["resource"]]
    reserved = rows[resource_id][0]
    limit = max(reserved, MIN_POOL_LIMIT_PAGES)
    rows[resource_id] = (reserved, int(limit * params["share"]), limit)


def _log_row(
    node: int, log_type: int, log_id: int, part: int, total: int, used: int, high: int
) -> dict:
    """A row of logspaces or logbuffers (log_type: 0 REDO, 1 DD-UNDO, 2 BACKUP-DATA,
    3 BACKUP-LOG)."""
    return {
        "node_id": node,
        "log_type": log_type,
        "log_id": log_id,
        "log_part": part,
        "total": total,
        "used": used,
        "high": high,
    }


def logspaces(c: Cluster) -> list[dict]:
    out = []
    lg = c.dictionary.logfile_group_id
    for n in c.started_ids():
        total = c.redo_part_bytes(n)
        for part in range(int(c.config[n]["NoOfFragmentLogParts"])):
            used = c.redo_used(n, part)
            out.append(_log_row(n, 0, 0, part, total, used, min(total, int(used * 1.15))))
        if lg is not None:
            undo_used = node_undo_used_bytes(c, n)
            out.append(_log_row(n, 1, lg, 0, UNDO_FILE_BYTES, undo_used, undo_used))
    return out


def logbuffers(c: Cluster) -> list[dict]:
    out = []
    lg = c.dictionary.logfile_group_id
    for n in c.started_ids():
        cfg = c.config[n]
        total = int(cfg["RedoBuffer"])
        util = thread_util(c, n, "ldm")
        redo_share = buffer_share(c, "redo")
        if redo_share is None and c.checkpoints.gcp_save_lagging:
            redo_share = REDO_BACKLOG_SHARE
        for part in range(int(cfg["NoOfFragmentLogParts"])):
            used = int(total * util * 0.05) + 32768 * (part % 2)
            if redo_share is not None:
                used = int(total * redo_share)
            out.append(_log_row(n, 0, 0, part, total, used, min(total, used * 4)))
        if lg is not None:
            undo_share = buffer_share(c, "undo")
            undo = 32768 if undo_share is None else int(UNDO_BUFFER_BYTES * undo_share)
            out.append(_log_row(n, 1, lg, 0, UNDO_BUFFER_BYTES, undo, max(undo, 262144)))
        if not c.version.is_7x:
            out.append(_log_row(n, 2, 0, 0, int(cfg["BackupDataBufferSize"]), 0, 0))
            out.append(_log_row(n, 3, 0, 0, int(cfg["BackupLogBufferSize"]), 0, 0))
    return out
