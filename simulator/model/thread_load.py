"""The CPU each thread of an ndbmtd uses: an idle share and a cost per operation of its node,
split over the threads of its kind (model/blocks.thread_layout)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ndbsim.model.blocks import thread_layout

if TYPE_CHECKING:
    from ndbsim.model.cluster import Cluster

# (idle CPU share, CPU microseconds per operation of the node, signals per operation)
THREAD_LOAD = {
    "main": (0.02, 0.3, 0.5),
    "rep": (0.01, 0.6, 1.0),
    "ldm": (0.04, 11.0, 6.0),
    "tc": (0.03, 6.0, 4.0),
    "send": (0.02, 2.0, 1.0),
    "recv": (0.03, 3.0, 2.0),
}


def thread_counts(ldm: int) -> dict[str, int]:
    """How many threads of each kind an ndbmtd with `ldm` LDM threads runs."""
    counts: dict[str, int] = {}
    for _, name, _ in thread_layout(ldm):
        counts[name] = counts.get(name, 0) + 1
    return counts


def thread_util(c: Cluster, node_id: int, name: str) -> float:
    """Share of one CPU a thread of kind `name` uses right now."""
    idle, cost_us, _ = THREAD_LOAD[name]
    count = thread_counts(c.ldm)[name]
    ready = max(1, len(c.started_ids()))
    rate = c.workload.rate(c.now) / ready if c.is_up() else 0.0
    return min(0.97, idle + rate * cost_us / 1e6 / count)
