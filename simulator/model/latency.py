"""Latency histograms of the data nodes: ndb$tc_time_track_stats and ndb$pgman_time_track_stats.

The ranges are the data nodes' own:
- DBTC keeps TIME_TRACK_HISTOGRAM_RANGES (32) ranges per TC instance and communicating node,
  the first upper bound TIME_TRACK_INITIAL_RANGE_VALUE (50 us), each next one 1.5 times the
  previous (storage/ndb/src/kernel/blocks/dbtc/Dbtc.hpp in mysql/mysql-server: `#define
  TIME_TRACK_HISTOGRAM_RANGES 32`, `#define TIME_TRACK_INITIAL_RANGE_VALUE 50`).
- PGMAN keeps PGMAN_TIME_TRACK_NUM_RANGES (20) ranges: upper bounds 0 and 16 us, then doubling
  up to 2^21 us, the last one unbounded (`Uint64(~0)`, shown as 2^32 - 1 by the 32-bit
  upper_bound column) (the Pgman constructor in storage/ndb/src/kernel/blocks/pgman.cpp; the
  ndbinfo table's row estimate `data_nodes * instances.pgman * 20` in NdbinfoTables.cpp).

Each range counts the operations whose time fell in it since the node started. The model adds
the operations of every step to the ranges by a log-normal distribution whose median follows
the load of the LDM threads, the batching of the application (round trips per transaction)
and the share of pruned scans, and the active faults (latency-degradation, lock-contention,
slow-disk). Counts only grow while a node runs and restart from zero when it restarts.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ndbsim.model import workload
from ndbsim.model.disk_data import disk_share
from ndbsim.model.thread_load import thread_util

if TYPE_CHECKING:
    from ndbsim.model.cluster import Cluster


def _tc_bounds() -> tuple[int, ...]:
    bounds = [50]
    for _ in range(31):
        bounds.append(bounds[-1] * 3 // 2)
    return tuple(bounds)


TC_BOUNDS = _tc_bounds()  # 50, 75, 112, ... 14303454 us
PGMAN_BOUNDS = (0, *(16 << k for k in range(18)), 2**32 - 1)  # 0, 16, 32, ... 2^21, max
SIGMA = 0.7  # log-normal shape of every latency
_SPREAD = SIGMA * math.sqrt(2)
DEADLOCK_TIMEOUT_MS = 1200  # TransactionDeadlockDetectionTimeout default

# TC columns: (column, share of the node's operations, median microseconds at no load)
TC_MEASURES = (
    ("transactions", 1 / workload.OPS_PER_TRANSACTION, None),
    ("read_key_ops", workload.KEY_SHARE * workload.READ_SHARE_OF_KEY, 110.0),
    ("write_key_ops", workload.KEY_SHARE * (1 - workload.READ_SHARE_OF_KEY), 190.0),
    ("index_key_ops", workload.KEY_SHARE * workload.UNIQUE_SHARE_OF_KEY, 260.0),
    ("scans", 1 - workload.KEY_SHARE, None),
    ("scan_fragments", (1 - workload.KEY_SHARE) * 3, 320.0),
)
TC_ERRORS = {
    "transactions": "transaction_errors",
    "read_key_ops": "key_op_errors",
    "scans": "scan_errors",
    "scan_fragments": "scan_fragment_errors",
}
# PGMAN columns: (column, share of the node's disk-data operations, median microseconds)
PGMAN_MEASURES = (
    ("page_reads", 0.01, 280.0),
    ("page_writes", 0.05, 650.0),
    ("log_waits", 1e-4, 1800.0),
    ("get_page", 0.02, 40.0),
)


def fractions(bounds: tuple[int, ...], median_us: float) -> list[float]:
    """Share of a log-normal latency (median, SIGMA) in each range; the last takes the tail."""

    erf, log = math.erf, math.log
    cum = [0.0 if b <= 0 else 0.5 * (1 + erf(log(b / median_us) / _SPREAD)) for b in bounds[:-1]]
    cum.append(1.0)
    return [hi - lo for lo, hi in zip([0.0, *cum[:-1]], cum, strict=True)]


def _load(c: Cluster, node_id: int) -> float:
    """Queueing factor of the LDM threads: 1 when idle, growing as they saturate."""
    return 1 / (1 - min(0.9, thread_util(c, node_id, "ldm")))


def _factor(c: Cluster, fault: str) -> float:
    params = c.faults.get(fault)
    return 1.0 if params is None else params.get("factor", DEFAULT_FACTOR[fault])


DEFAULT_ERROR_SHARE = 0.2  # operation-errors: failed per successful operation
DEFAULT_FACTOR = {"latency-degradation": 20.0, "slow-disk": 20.0, "lock-contention": 4.0}


def tc_medians(c: Cluster, node_id: int) -> dict[str, float]:
    """Median microseconds of each TC measure on a data node right now."""
    return _tc_medians(c, _load(c, node_id))


def _tc_medians(c: Cluster, ldm_load: float) -> dict[str, float]:
    load = ldm_load * _factor(c, "latency-degradation")
    medians = {col: base * load for col, _, base in TC_MEASURES if base is not None}
    contention = _factor(c, "lock-contention")
    medians["read_key_ops"] *= contention
    medians["write_key_ops"] *= contention
    round_trips = max(1.0, workload.OPS_PER_TRANSACTION / c.workload.batching)
    medians["transactions"] = (150 + 260 * round_trips) * load * contention
    pruned = c.workload.pruned_scan_share
    # a pruned scan reads one fragment, a full scan all of them, one batch after another
    medians["scans"] = medians["scan_fragments"] * (pruned * 1.2 + (1 - pruned) * 6.0)
    return medians


def pgman_medians(c: Cluster, ldm_load: float) -> dict[str, float]:
    load = 1 + 0.3 * (ldm_load - 1)
    slow = _factor(c, "slow-disk")
    return {col: base * load * slow for col, _, base in PGMAN_MEASURES}


@dataclass
class NodeHistograms:
    started_at: float
    # TC: (api node id, column) -> counts per range; PGMAN: column -> counts per range
    tc: dict[tuple[int, str], list[float]] = field(default_factory=dict)
    pgman: dict[str, list[float]] = field(default_factory=dict)


def _add(counts: dict, key, amount: float, spread: list[float]) -> None:
    """Add `amount` operations to the ranges of `key` by their shares (`fractions`)."""
    row = counts.get(key) or [0.0] * len(spread)
    counts[key] = [count + amount * share for count, share in zip(row, spread, strict=True)]


def _api_weights(apis: list[int]) -> dict[int, float]:
    """The first SQL node takes most of the load, as an application's primary usually does."""
    weights = {api: 1.0 / (k + 1) ** 1.3 for k, api in enumerate(apis)}
    total = sum(weights.values())
    return {api: w / total for api, w in weights.items()}


class Latency:
    """The histograms of every data node. The cluster's steps only count each node's
    operations (`add`); they are spread over the ranges when the histograms are read, at the
    medians of that moment, so that a second of cluster time costs nothing here and only a
    statement reading ndb$tc_time_track_stats or ndb$pgman_time_track_stats pays for them."""

    def __init__(self) -> None:
        self.nodes: dict[int, NodeHistograms] = {}
        self._pending: dict[int, float] = {}  # operations per data node not yet spread

    def add(self, c: Cluster, ops_by_node: dict[int, float]) -> None:
        if self._pending and self._pending.keys() != ops_by_node.keys():
            self._spread(c)  # a node stopped or started: its operations so far are its own
        for node_id, ops in ops_by_node.items():
            self._pending[node_id] = self._pending.get(node_id, 0.0) + ops

    def _spread(self, c: Cluster) -> None:
        ops_by_node, self._pending = self._pending, {}
        for node_id in c.started_ids():
            if self._current(c, node_id) is None:
                # histograms count from the node's start: before the simulation, at the
                # configured load (as the links' byte counters do)
                before = max(0.0, -c.nodes[node_id].started_at)
                ops = before * c.spec.ops_per_second / max(1, len(c.nodes))
                ops_by_node[node_id] = ops_by_node.get(node_id, 0.0) + ops
        apis = [n.node_id for n in c.topology.api_nodes if n.process_name and c.node_up(n.node_id)]
        disk = disk_share(c)
        errors = workload.ABORT_RATIO * (10 if c.faults.is_active("lock-contention") else 1)
        operation_errors = c.faults.get("operation-errors")
        if operation_errors is not None:
            errors = operation_errors.get("share", DEFAULT_ERROR_SHARE)
        weights = _api_weights(apis)
        # the data nodes share the load, so their medians are mostly equal: one spread each
        spreads: dict[tuple[int, float], list[float]] = {}

        def spread(bounds: tuple[int, ...], median: float) -> list[float]:
            key = (len(bounds), median)
            found = spreads.get(key)
            if found is None:
                found = spreads[key] = fractions(bounds, median)
            return found

        for node_id, ops in ops_by_node.items():
            started_at = c.nodes[node_id].started_at
            h = self.nodes.get(node_id)
            if h is None or h.started_at != started_at:
                h = self.nodes[node_id] = NodeHistograms(started_at)
            ldm_load = _load(c, node_id)  # one thread_util per node and step
            tc = _tc_medians(c, ldm_load)
            for col, share, _ in TC_MEASURES:
                on_time = spread(TC_BOUNDS, tc[col])
                failed = spread(TC_BOUNDS, tc[col] * 2) if col in TC_ERRORS else None
                for api, weight in weights.items():
                    amount = ops * weight * share
                    _add(h.tc, (api, col), amount, on_time)
                    if failed is not None:
                        _add(h.tc, (api, TC_ERRORS[col]), amount * errors, failed)
            pg = pgman_medians(c, ldm_load)
            for col, share, _ in PGMAN_MEASURES:
                _add(h.pgman, col, ops * disk * share, spread(PGMAN_BOUNDS, pg[col]))

    def _current(self, c: Cluster, node_id: int) -> NodeHistograms | None:
        h = self.nodes.get(node_id)
        if h is None or h.started_at != c.nodes[node_id].started_at:
            return None
        return h

    def histograms(self, c: Cluster) -> dict[int, NodeHistograms | None]:
        """Each started data node's histograms since it started, with the operations counted
        so far spread over their ranges (None: a node without any yet)."""
        self._spread(c)
        return {node_id: self._current(c, node_id) for node_id in c.started_ids()}
