"""The per-fragment-replica views: ndb$frag_mem_use, ndb$frag_operations and ndb$frag_locks,
over the replicas the alive data nodes host, so that they follow the node states and operation
counts without rewriting a row."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ndbsim.engine.writers.registry import Select, fragment_view
from ndbsim.model import workload as w
from ndbsim.model.dictionary import ORDERED_INDEX
from ndbsim.model.memory import PAGE

if TYPE_CHECKING:
    from ndbsim.model.cluster import Cluster


def _count(expr: str) -> str:
    """A per-fragment counter column from a floating-point expression."""
    return f"coalesce(floor({expr}), 0)::UBIGINT"


_HOSTED = f"""FROM sim.replica r JOIN sim.node_state s ON s.node_id = r.node_id AND s.alive
             JOIN sim.dih d ON d.table_id = r.table_id AND d.type <> {ORDERED_INDEX}"""
# the share of its node's operations one hosted fragment replica gets
_SHARE = "(d.weight / d.fragments) / sum(d.weight / d.fragments) OVER (PARTITION BY r.node_id)"


# The rows of one fragment: an equal share of the table's, except while a reorganization moves
# a share of them from its old fragments to the new ones (fragment ids from old_fragments on).
_FRAGMENT_ROWS = """CASE WHEN d.old_fragments = d.fragments THEN d.rows_ / d.partitions
    WHEN r.fragment_id >= d.old_fragments THEN d.moved * d.rows_ / d.fragments
    ELSE d.rows_ * (1 - d.moved * (d.fragments - d.old_fragments) / d.fragments)
         / d.old_fragments END"""


def _instance(c: Cluster) -> str:
    return f"(r.log_part_id % {c.ldm}) + 1"


def _fragment_key(c: Cluster) -> dict[str, str]:
    """The leading columns of the per-fragment-replica tables."""
    return {
        "node_id": "r.node_id",
        "block_instance": _instance(c),
        "table_id": "r.table_id",
        "fragment_num": "r.fragment_id",
    }


_FRAG_ROWS = f"ceil({_FRAGMENT_ROWS})::UBIGINT"
_FIXED = "(d.row_bytes + 24)"  # a row's fixed part and its header
_HASH_INDEX = f"greatest(1, ceil({_FRAG_ROWS} * 16 / 8192)) * 8192"


def _alloc(size: str) -> str:
    """Bytes of whole pages a fragment's rows of `size` bytes each take."""
    return (
        f"CASE WHEN {size} = 0 THEN 0 ELSE "
        f"greatest(1, ceil({_FRAG_ROWS} * {size} / {PAGE})) * {PAGE} END"
    )


@fragment_view("ndb$frag_mem_use")
def frag_mem_use(c: Cluster) -> Select:
    frag_rows, fixed, alloc = _FRAG_ROWS, _FIXED, _alloc
    return Select(
        {
            **_fragment_key(c),
            "rows": frag_rows,
            "fixed_elem_alloc_bytes": alloc(fixed),
            "fixed_elem_free_bytes": f"{alloc(fixed)} - {frag_rows} * {fixed}",
            "fixed_elem_count": frag_rows,
            "fixed_elem_size_bytes": fixed,
            "var_elem_alloc_bytes": alloc("d.var_bytes"),
            "var_elem_free_bytes": f"{alloc('d.var_bytes')} - {frag_rows} * d.var_bytes",
            "var_elem_count": f"CASE WHEN d.var_bytes > 0 THEN {frag_rows} ELSE 0 END",
            "tuple_l2pmap_alloc_bytes": f"(ceil({frag_rows} * {fixed} / {PAGE}) + 1) * 8",
            "hash_index_l2pmap_alloc_bytes": f"(ceil({frag_rows} * 16 / 8192) + 1) * 8",
            "hash_index_alloc_bytes": _HASH_INDEX,
        },
        _HOSTED + " ORDER BY r.node_id, r.table_id, r.fragment_id",
    )


@fragment_view("ndb$table_memory_usage")
def table_memory_usage(c: Cluster) -> Select:
    """RonDB: the memory of each fragment replica of a table (its rows, variable parts and
    hash index in memory; the rows of a disk data table on disk), with its node group."""
    return Select(
        {
            "table_id": "r.table_id",
            "fragment_num": "r.fragment_id",
            "nodegroup_id": "m.ng",
            "in_memory_bytes": f"{_alloc(_FIXED)} + {_HASH_INDEX}"
            f" + CASE WHEN d.disk THEN 0 ELSE {_alloc('d.var_bytes')} END",
            "free_in_memory_bytes": f"{_alloc(_FIXED)} - {_FRAG_ROWS} * {_FIXED}",
            "disk_memory_bytes": f"CASE WHEN d.disk THEN {_alloc('d.var_bytes')} ELSE 0 END",
            "free_disk_memory_bytes": "0",
        },
        _HOSTED + " JOIN sim.members m ON m.node_id = r.node_id"
        " ORDER BY r.node_id, r.table_id, r.fragment_id",
    )


@fragment_view("ndb$frag_operations")
def frag_operations(c: Cluster) -> Select:
    ops = f"(s.ops * {_SHARE})"
    reads = f"({ops} * {w.KEY_SHARE * w.READ_SHARE_OF_KEY})"
    scans = f"({ops} * {1 - w.KEY_SHARE})"
    key = f"({ops} * {w.KEY_SHARE})"

    return Select(
        {
            **_fragment_key(c),
            "tot_key_reads": _count(reads),
            "tot_key_inserts": _count(f"{key} * {w.INSERT_SHARE}"),
            "tot_key_updates": _count(f"{key} * {w.UPDATE_SHARE}"),
            "tot_key_writes": _count(f"{key} * 0.01"),
            "tot_key_deletes": _count(f"{key} * {w.DELETE_SHARE}"),
            "tot_key_refs": _count(f"{reads} * 0.01"),
            "tot_key_attrinfo_bytes": _count(f"{key} * 64"),
            "tot_key_keyinfo_bytes": _count(f"{key} * 12"),
            "tot_key_prog_bytes": "0",
            "tot_key_inst_exec": "0",
            "tot_key_bytes_returned": _count(f"{reads} * 96"),
            "tot_frag_scans": _count(scans),
            "tot_scan_rows_examined": _count(f"{scans} * 40"),
            "tot_scan_rows_returned": _count(f"{scans} * 12"),
            "tot_scan_bytes_returned": _count(f"{scans} * 12 * 96"),
            "tot_scan_prog_bytes": _count(f"{scans} * 40"),
            "tot_scan_bound_bytes": _count(f"{scans} * 16"),
            "tot_scan_inst_exec": _count(f"{scans} * 120"),
            "tot_qd_frag_scans": _count(f"{scans} * 0.001"),
            "conc_frag_scans": "0",
            "conc_qd_plain_frag_scans": "0",
            "conc_qd_tup_frag_scans": "0",
            "conc_qd_acc_frag_scans": "0",
            "tot_commits": _count(f"{key} * 0.3"),
        },
        _HOSTED + " ORDER BY r.node_id, r.table_id, r.fragment_id",
    )


@fragment_view("ndb$frag_locks")
def frag_locks(c: Cluster) -> Select:
    ops = f"(s.ops * {_SHARE})"

    return Select(
        {
            **_fragment_key(c),
            "ex_req": _count(f"{ops} * 0.26"),
            "ex_imm_ok": _count(f"{ops} * 0.2595"),
            "ex_wait_ok": _count(f"{ops} * 0.0005"),
            "ex_wait_fail": "0",
            "sh_req": _count(f"{ops} * 0.1"),
            "sh_imm_ok": _count(f"{ops} * 0.0999"),
            "sh_wait_ok": _count(f"{ops} * 0.0001"),
            "sh_wait_fail": "0",
            "wait_ok_millis": _count(f"{ops} * 0.0003"),
            "wait_fail_millis": "0",
        },
        _HOSTED + " ORDER BY r.node_id, r.table_id, r.fragment_id",
    )
