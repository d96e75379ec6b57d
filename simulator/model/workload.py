"""The simulated application workload: how many NDB API operations happen over cluster time and
how they split into transactions, key operations, scans, rows and bytes.

The rate follows a slow, seeded wave around --ops-per-second, so counters integrate it exactly
(`ops_between`) and do not depend on how often the model is looked at.
"""

from __future__ import annotations

import functools
import math
import random
from dataclasses import dataclass

PERIOD = 600.0  # seconds of cluster time per wave
AMPLITUDE = 0.25

OPS_PER_TRANSACTION = 5.0
KEY_SHARE = 0.85  # of operations; the rest are scans
UNIQUE_SHARE_OF_KEY = 0.06
READ_SHARE_OF_KEY = 0.7
INSERT_SHARE, UPDATE_SHARE, DELETE_SHARE = 0.1, 0.15, 0.05  # of key operations
ABORT_RATIO = 0.004
RANGE_SHARE_OF_SCANS = 0.8
ROWS_PER_PRUNED_SCAN = 4.0
ROWS_PER_FULL_SCAN = 60.0
BYTES_SENT_PER_OP = 140.0
BYTES_PER_ROW = 96.0
REDO_BYTES_PER_WRITE = 260.0


@dataclass(frozen=True)
class Workload:
    ops_per_second: float
    pruned_scan_share: float
    batching: float
    seed: int

    @functools.cached_property
    def phase(self) -> float:
        return random.Random(self.seed).uniform(0, 2 * math.pi)

    def rate(self, t: float) -> float:
        return self.ops_per_second * (
            1 + AMPLITUDE * math.sin(2 * math.pi * t / PERIOD + self.phase)
        )

    def _integral(self, t: float) -> float:
        w = 2 * math.pi / PERIOD
        return self.ops_per_second * (
            t - AMPLITUDE / w * (math.cos(w * t + self.phase) - math.cos(self.phase))
        )

    def ops_between(self, t0: float, t1: float) -> float:
        """Operations done between two cluster times (t1 >= t0)."""
        return max(0.0, self._integral(t1) - self._integral(t0))

    def api_counters(self, ops: float, extra_aborts: float = 0.0) -> dict[str, int]:
        """Server-wide Ndb_api_* values of an SQL node that has done `ops` operations, of
        whose transactions `extra_aborts` aborted beyond the usual ABORT_RATIO."""
        key = ops * KEY_SHARE
        scans = ops - key
        pruned = scans * self.pruned_scan_share
        rows = (
            key * READ_SHARE_OF_KEY
            + pruned * ROWS_PER_PRUNED_SCAN
            + (scans - pruned) * ROWS_PER_FULL_SCAN
        )
        trans = ops / OPS_PER_TRANSACTION
        round_trips = ops / self.batching
        batches = scans * 1.6
        return {
            "Ndb_api_wait_exec_complete_count": int(round_trips),
            "Ndb_api_wait_scan_result_count": int(batches),
            "Ndb_api_wait_meta_request_count": int(trans * 0.01) + 12,
            "Ndb_api_wait_nanos_count": int((round_trips + batches) * 310_000),
            "Ndb_api_bytes_sent_count": int(ops * BYTES_SENT_PER_OP),
            "Ndb_api_bytes_received_count": int(rows * BYTES_PER_ROW + round_trips * 48),
            "Ndb_api_trans_start_count": int(trans),
            "Ndb_api_trans_commit_count": int(trans * (1 - ABORT_RATIO) - extra_aborts),
            "Ndb_api_trans_abort_count": int(trans * ABORT_RATIO + extra_aborts),
            "Ndb_api_trans_close_count": int(trans),
            "Ndb_api_pk_op_count": int(key * (1 - UNIQUE_SHARE_OF_KEY)),
            "Ndb_api_uk_op_count": int(key * UNIQUE_SHARE_OF_KEY),
            "Ndb_api_table_scan_count": int(scans * (1 - RANGE_SHARE_OF_SCANS)),
            "Ndb_api_range_scan_count": int(scans * RANGE_SHARE_OF_SCANS),
            "Ndb_api_pruned_scan_count": int(pruned),
            "Ndb_api_scan_batch_count": int(batches),
            "Ndb_api_read_row_count": int(rows),
            "Ndb_api_trans_local_read_row_count": int(rows * 0.55),
            "Ndb_api_adaptive_send_forced_count": int(round_trips * 0.05),
            "Ndb_api_adaptive_send_unforced_count": int(round_trips * 0.9),
            "Ndb_api_adaptive_send_deferred_count": int(round_trips * 0.05),
            "Ndb_api_event_data_count": int(writes(ops)),
            "Ndb_api_event_nondata_count": int(trans * 0.02),
            "Ndb_api_event_bytes_count": int(writes(ops) * 180),
        }

    def read_only_counters(self, ops: float) -> dict[str, int]:
        """What `ops` operations of read-only transactions (primary key reads, each
        transaction committed) add to an SQL node's Ndb_api_* and Com_* counters."""
        trans = ops / OPS_PER_TRANSACTION
        counts = {
            "Ndb_api_wait_exec_complete_count": ops / self.batching,
            "Ndb_api_bytes_sent_count": ops * BYTES_SENT_PER_OP,
            "Ndb_api_bytes_received_count": ops * BYTES_PER_ROW,
            "Ndb_api_pk_op_count": ops,
            "Ndb_api_read_row_count": ops,
            "Com_select": trans,
            "Com_commit": trans,
            "Questions": 2 * trans,
        }
        for name in ("start", "commit", "close"):
            counts[f"Ndb_api_trans_{name}_count"] = trans
        return {name: int(value) for name, value in counts.items()}

    def sql_counters(self, ops: float, extra_aborts: float = 0.0) -> dict[str, int]:
        """Questions and Com_* of the application statements behind `ops` operations
        (`extra_aborts` as for api_counters)."""
        trans = ops / OPS_PER_TRANSACTION
        com = {
            "Com_select": int(trans * 2.2),
            "Com_insert": int(trans * 0.5),
            "Com_update": int(trans * 0.75),
            "Com_delete": int(trans * 0.25),
            "Com_commit": int(trans * (1 - ABORT_RATIO) - extra_aborts),
            "Com_rollback": int(trans * ABORT_RATIO + extra_aborts),
        }
        com["Questions"] = sum(com.values()) + int(trans * 0.3)
        return com


def extra_aborts(ops: float, share: float) -> float:
    """Transactions of `ops` operations that abort beyond ABORT_RATIO when `share` of them
    abort (transaction-aborts)."""
    return ops / OPS_PER_TRANSACTION * max(0.0, share - ABORT_RATIO)


def writes(ops: float) -> float:
    return ops * KEY_SHARE * (INSERT_SHARE + UPDATE_SHARE + DELETE_SHARE)


def reads(ops: float) -> float:
    return ops * KEY_SHARE * READ_SHARE_OF_KEY
