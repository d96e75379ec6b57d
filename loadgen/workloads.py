"""The workloads: access patterns from the NDB performance tuning guide (MySQL Cluster
whitepaper, sections 4.1 to 4.5). Each one runs one kind of statement over and over."""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable
from dataclasses import dataclass, field

from .schema import PLACED_AT_RANGE, REGIONS

BATCH_ROWS = 16  # the whitepaper's batch: 16 rows per INSERT


@dataclass
class Worker:
    """State of one connection running one workload."""

    cursor: object
    rng: random.Random
    customers: int
    writer: int
    seq: itertools.count = field(default_factory=itertools.count)

    def customer(self) -> int:
        return self.rng.randrange(self.customers)


@dataclass(frozen=True)
class Workload:
    name: str
    statement: str  # the SQL, for the report and the docs
    summary: str
    run: Callable[[Worker], int]  # executes one statement, returns rows read or written


def _read(w: Worker, sql: str, params: tuple) -> int:
    w.cursor.execute(sql, params)
    return len(w.cursor.fetchall())


def _write(w: Worker, sql: str, params: tuple) -> int:
    w.cursor.execute(sql, params)
    return max(w.cursor.rowcount, 0)


PK_READ = "SELECT name, balance FROM customers WHERE id = %s"
PK_READ_RB = "SELECT name, balance FROM customers_rb WHERE id = %s"
PK_WRITE = "UPDATE customers SET balance = balance + %s WHERE id = %s"
INSERT = "INSERT INTO events (writer, seq, customer_id, payload) VALUES "
INSERT_ROW = "(%s, %s, %s, %s)"
SCAN_PRUNED = "SELECT order_id, amount_cents FROM orders WHERE customer_id = %s"
SCAN_UNPRUNED = "SELECT customer_id, order_id FROM orders WHERE placed_at BETWEEN %s AND %s"
FULL_SCAN = "SELECT COUNT(*) FROM orders WHERE MOD(amount_cents, 97) = %s"
JOIN = (
    "SELECT c.name, o.order_id, o.amount_cents FROM customers c"
    " JOIN orders o ON o.customer_id = c.id"
    " WHERE c.region = %s AND c.id BETWEEN %s AND %s"
)


def _insert(w: Worker, rows: int) -> int:
    values = []
    for _ in range(rows):
        values += [w.writer, next(w.seq), w.customer(), "event payload"]
    return _write(w, INSERT + ", ".join([INSERT_ROW] * rows), tuple(values))


def _unpruned(w: Worker) -> int:
    # About as many rows as the pruned scan returns, spread over every partition.
    width = max(1, PLACED_AT_RANGE // w.customers)
    start = w.rng.randrange(PLACED_AT_RANGE)
    return _read(w, SCAN_UNPRUNED, (start, start + width))


def _join(w: Worker) -> int:
    # A few customers of one region, then their orders: one lookup per customer row.
    region = w.rng.randrange(REGIONS)
    start = w.customer()
    return _read(w, JOIN, (region, start, start + 4 * REGIONS))


WORKLOADS: dict[str, Workload] = {
    wl.name: wl
    for wl in (
        Workload(
            "pk-read",
            PK_READ,
            "primary-key read (4.1): one round trip, constant cost",
            lambda w: _read(w, PK_READ, (w.customer(),)),
        ),
        Workload(
            "pk-read-backup",
            PK_READ_RB,
            "primary-key read of a READ_BACKUP=1 table (4.1): may read a local backup replica",
            lambda w: _read(w, PK_READ_RB, (w.customer(),)),
        ),
        Workload(
            "pk-write",
            PK_WRITE,
            "primary-key update (4.1): two-phase commit over the replicas",
            lambda w: _write(w, PK_WRITE, (w.rng.randrange(1, 100), w.customer())),
        ),
        Workload(
            "insert-single",
            INSERT + INSERT_ROW,
            "one row per INSERT (4.3): a round trip per row",
            lambda w: _insert(w, 1),
        ),
        Workload(
            "insert-batch",
            INSERT + ", ".join([INSERT_ROW] * BATCH_ROWS),
            f"{BATCH_ROWS} rows per INSERT (4.3): one round trip for the batch",
            lambda w: _insert(w, BATCH_ROWS),
        ),
        Workload(
            "scan-pruned",
            SCAN_PRUNED,
            "range scan on the partition key (4.2): pruned to one partition",
            lambda w: _read(w, SCAN_PRUNED, (w.customer(),)),
        ),
        Workload(
            "scan-unpruned",
            SCAN_UNPRUNED,
            "range scan on another index (4.2): visits every partition",
            _unpruned,
        ),
        Workload(
            "full-scan",
            FULL_SCAN,
            "full table scan (4.1): every row of every partition",
            lambda w: _read(w, FULL_SCAN, (w.rng.randrange(97),)),
        ),
        Workload(
            "join",
            JOIN,
            "two-table join (4.1, 4.5): a lookup into orders per customer row",
            _join,
        ),
    )
}
