"""Rows of the latency histograms: tc_time_track_stats (per DBTC instance and communicating
node) and pgman_time_track_stats (per PGMAN instance), from each data node's histograms in
the model (model/latency.py), split over the block instances."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from ndbsim.model.blocks import DBTC, PGMAN, block_instances
from ndbsim.model.latency import PGMAN_BOUNDS, PGMAN_MEASURES, TC_BOUNDS, TC_ERRORS, TC_MEASURES

if TYPE_CHECKING:
    from ndbsim.model.cluster import Cluster


def _instance_shares(instances: list[int], node_id: int) -> dict[int, float]:
    """Uneven split over block instances: fragments are not spread perfectly evenly."""
    weights = {i: 1 + 0.18 * math.sin(1.9 * i + node_id) for i in instances}
    total = sum(weights.values())
    return {i: w / total for i, w in weights.items()}


def tc_time_track_stats(c: Cluster) -> list[dict]:
    columns = (*(col for col, _, _ in TC_MEASURES), *TC_ERRORS.values())
    out = []
    for node_id, h in c.latency.histograms(c).items():
        if h is None:
            continue
        shares = _instance_shares(block_instances(c.ldm, DBTC), node_id)
        apis = sorted({api for api, _ in h.tc})
        for inst, share in shares.items():
            for api in apis:
                series = [(col, h.tc.get((api, col))) for col in columns]
                for i, bound in enumerate(TC_BOUNDS):
                    row = {
                        "node_id": node_id,
                        "block_number": DBTC,
                        "block_instance": inst,
                        "comm_node_id": api,
                        "upper_bound": bound,
                    }
                    row.update(
                        (col, int(counts[i] * share) if counts else 0) for col, counts in series
                    )
                    out.append(row)
    return out


def pgman_time_track_stats(c: Cluster) -> list[dict]:
    out = []
    for node_id, h in c.latency.histograms(c).items():
        shares = _instance_shares(block_instances(c.ldm, PGMAN), node_id)
        for inst, share in shares.items():
            for i, bound in enumerate(PGMAN_BOUNDS):
                row = {
                    "node_id": node_id,
                    "block_number": PGMAN,
                    "block_instance": inst,
                    "upper_bound": bound,
                }
                for col, _, _ in PGMAN_MEASURES:
                    counts = h.pgman.get(col) if h else None
                    row[col] = int(counts[i] * share) if counts else 0
                out.append(row)
    return out
