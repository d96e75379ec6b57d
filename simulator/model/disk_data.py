"""Disk data files of the simulated cluster: the log file group's undo file and the tablespace's
data file with their sizes and extents, as information_schema.FILES reports them (one row per
file in NDB 8.0+), and the tablespace-filling fault."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ndbsim.model.dictionary import DATAFILE, LOGFILE_GROUP, TABLESPACE, UNDOFILE

if TYPE_CHECKING:
    from ndbsim.model.cluster import Cluster

EXTENT_BYTES = 1024 * 1024  # CREATE TABLESPACE ... EXTENT_SIZE 1M
DATA_FILE_BYTES = 512 * 1024 * 1024  # ADD DATAFILE ... INITIAL_SIZE 512M
UNDO_FILE_BYTES = 128 * 1024 * 1024  # ADD UNDOFILE ... INITIAL_SIZE 128M (logspaces agrees)
UNDO_EXTENT_BYTES = 4  # an undo file reports its size in 4-byte words
HEALTHY_USE = 0.32  # share of the data file the disk-data tables take
GROWTH_BYTES_PER_OP = 0.02  # data file bytes taken per operation handled


def disk_share(c: Cluster) -> float:
    """Share of the workload's operations on disk data tables."""
    return sum(t.weight for t in c.dictionary.dih if t.disk)


def tablespace_used_share(c: Cluster) -> float:
    """Share of the tablespace's extents in use: the tablespace-full fault's share, else the
    healthy use growing slowly with the cluster's writes (capped below full), or the level
    tablespace-growth has brought it to when that is higher."""
    share = c.faults.share("tablespace-full")
    if share is not None:
        return share
    healthy = min(0.6, HEALTHY_USE + c.ops_total * GROWTH_BYTES_PER_OP / DATA_FILE_BYTES)
    grown = c.faults.grown_share("tablespace-growth", c.now)
    return healthy if grown is None else max(healthy, grown)


def node_undo_used_bytes(c: Cluster, node_id: int) -> int:
    """Undo log bytes a data node uses: a sawtooth that follows its writes, on top of the
    level undo-log-growth has brought the log to."""
    healthy = 2 * 1024 * 1024 + int(c.nodes[node_id].ops * 3) % (UNDO_FILE_BYTES // 4)
    grown = c.faults.grown_share("undo-log-growth", c.now)
    if grown is None:
        return healthy
    return min(UNDO_FILE_BYTES, int(UNDO_FILE_BYTES * grown) + healthy)


def undo_used_bytes(c: Cluster) -> int:
    """Undo log bytes in use: the most any running data node uses (ndbinfo.logspaces)."""
    return max((node_undo_used_bytes(c, n) for n in c.started_ids()), default=0)


def files(c: Cluster) -> list[dict]:
    """information_schema.FILES rows of ENGINE ndbcluster, keyed by column name."""
    objects = {o.id: o for o in c.dictionary.objects}
    out = []
    for o in c.dictionary.objects:
        if o.type not in (DATAFILE, UNDOFILE):
            continue
        group = objects[o.parent_id].fq_name
        if o.type == DATAFILE and o.parent_type == TABLESPACE:
            total = DATA_FILE_BYTES // EXTENT_BYTES
            free = total - round(total * tablespace_used_share(c))
            extent, size, kind = EXTENT_BYTES, DATA_FILE_BYTES, "DATAFILE"
            logfile_group = _logfile_group_name(c)
        elif o.parent_type == LOGFILE_GROUP:
            total = UNDO_FILE_BYTES // UNDO_EXTENT_BYTES
            free = total - undo_used_bytes(c) // UNDO_EXTENT_BYTES
            extent, size, kind = UNDO_EXTENT_BYTES, UNDO_FILE_BYTES, "UNDO LOG"
            logfile_group = group
        else:
            continue
        out.append(
            {
                "FILE_ID": o.id,
                "FILE_NAME": f"./{o.fq_name}",
                "FILE_TYPE": kind,
                "TABLESPACE_NAME": group,
                "TABLE_CATALOG": "",
                "LOGFILE_GROUP_NAME": logfile_group,
                "LOGFILE_GROUP_NUMBER": c.dictionary.logfile_group_id,
                "ENGINE": "ndbcluster",
                "FREE_EXTENTS": max(0, free),
                "TOTAL_EXTENTS": total,
                "EXTENT_SIZE": extent,
                "INITIAL_SIZE": size,
                "MAXIMUM_SIZE": size,
                "AUTOEXTEND_SIZE": None,
                "ROW_FORMAT": "FIXED",
                "STATUS": "NORMAL",
                "EXTRA": "UNDO_BUFFER_SIZE=67108864" if kind == "UNDO LOG" else None,
            }
        )
    return out


def _logfile_group_name(c: Cluster) -> str | None:
    lg = c.dictionary.logfile_group_id
    return next((o.fq_name for o in c.dictionary.objects if o.id == lg), None)
