"""Data memory the fragment replicas of the dictionary's tables take on each data node."""

from __future__ import annotations

import math

from ndbsim.model.dictionary import ORDERED_INDEX, Dictionary
from ndbsim.model.topology import Topology

PAGE = 32768


def fragment_bytes(rows_: int, size: int) -> tuple[int, int]:
    """(allocated, free) bytes of `rows_` elements of `size` bytes in 32 KiB pages."""
    if size == 0 or rows_ == 0:
        return 0, 0
    alloc = max(1, math.ceil(rows_ * size / PAGE)) * PAGE
    return alloc, alloc - rows_ * size


def memory_by_node(dictionary: Dictionary, topology: Topology) -> dict[int, int]:
    """Bytes of Data memory the fragment replicas on each data node take."""
    groups = topology.nodegroups
    ng_count = len(groups)
    result: dict[int, int] = {n: 0 for n in topology.data_node_ids}
    for t in dictionary.dih:
        if t.type == ORDERED_INDEX:
            per_frag = max(1, math.ceil(16 * t.rows / t.partitions / PAGE)) * PAGE
            size_parts = [(per_frag, 0)]
        else:
            frag_rows = math.ceil(t.rows / t.partitions)
            fixed = fragment_bytes(frag_rows, t.row_bytes + 24)[0]
            var = fragment_bytes(frag_rows, t.var_bytes)[0]
            hash_index = max(1, math.ceil(frag_rows * 16 / 8192)) * 8192
            size_parts = [(fixed + var + hash_index, 0)]
        per_frag_bytes = size_parts[0][0]
        for g, members in groups.items():
            if t.fully_replicated:
                frags = t.partitions
            else:
                frags = t.fragments // ng_count + (1 if g < t.fragments % ng_count else 0)
            for n in members:
                result[n] += frags * per_frag_bytes
    return result
