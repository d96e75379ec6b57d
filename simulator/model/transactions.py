"""Open transactions, their operations and their row locks: ndb$transactions (DBTC),
ndb$operations (DBLQH) and ndb$acc_operations (DBACC), behind the views cluster_transactions,
cluster_operations and cluster_locks.

A healthy cluster shows a snapshot of the short transactions in flight: their number follows
Little's law (transaction rate times the median transaction time), each with a few operations
and the locks they hold. Two faults add what a real cluster shows:
- long-transaction: one transaction on a data node that took row locks and then went idle at
  the client; its inactive_seconds and the locks' duration_millis grow until it is cleared.
- lock-contention: a hot row of a table; one transaction holds its exclusive lock while others
  queue for it (state W, waiting_for the holder), each giving up after
  TransactionDeadlockDetectionTimeout (1.2 s) and retrying.
"""

from __future__ import annotations

import math
import random
from itertools import accumulate
from typing import TYPE_CHECKING, NamedTuple

from ndbsim.model import workload
from ndbsim.model.blocks import DBACC, DBLQH, DBTC, block_instances
from ndbsim.model.latency import DEADLOCK_TIMEOUT_MS, SIGMA, tc_medians

if TYPE_CHECKING:
    from ndbsim.model.cluster import Cluster
    from ndbsim.model.dictionary import DihTable

LONG, CONTENTION = "long-transaction", "lock-contention"
API_BLOCK = 0x8002  # block number of an NDB API object as seen in apiref
# ndb$dbtc_apiconnect_state values
CS_STARTED, CS_RECEIVING, CS_COMPLETING, CS_COMMITTING = 2, 3, 9, 14
# ndb$dblqh_tcconnect_state values
WAIT_ACC, PREPARED = 1, 7
# ndb$operations.op values
OP_READ, OP_UPDATE = 1, 5
# ndb$acc_operations.op_flags bits (decoded by the cluster_locks view)
ACC_UPDATE, ACC_EXCLUSIVE, ACC_OWNER, ACC_HOLDING = 0x1, 0x10, 0x40, 0x80
DEFAULT_LOCKS, DEFAULT_WAITERS = 5, 6


class Activity:
    """When each transaction fault began, in cluster time (its transaction's age)."""

    def __init__(self) -> None:
        self.since: dict[str, float] = {}

    def observe(self, c: Cluster) -> None:
        for name in (LONG, CONTENTION):
            if c.faults.is_active(name):
                self.since.setdefault(name, c.now)
            else:
                self.since.pop(name, None)

    def age(self, c: Cluster, name: str) -> float | None:
        self.observe(c)
        since = self.since.get(name)
        return None if since is None else max(0.0, c.now - since)

    def snapshot(self, c: Cluster) -> Snapshot:
        return build(c)


class Transaction(NamedTuple):
    """A DBTC transaction record (ndb$transactions)."""

    node_id: int
    block_instance: int
    objid: int
    apiref: int
    transid0: int
    transid1: int
    state: int
    flags: int
    c_ops: int
    outstanding: int
    timer: int


class Operation(NamedTuple):
    """A DBLQH operation record (ndb$operations)."""

    node_id: int
    block_instance: int
    objid: int
    tcref: int
    apiref: int
    transid0: int
    transid1: int
    tableid: int
    fragmentid: int
    op: int
    state: int
    flags: int


class Lock(NamedTuple):
    """A DBACC lock of an operation (ndb$acc_operations)."""

    node_id: int
    block_instance: int
    tableid: int
    fragmentid: int
    rowid: int
    transid0: int
    transid1: int
    acc_op_id: int
    op_flags: int
    prev_serial_op_id: int
    next_serial_op_id: int
    prev_parallel_op_id: int
    next_parallel_op_id: int
    duration_millis: int
    user_ptr: int


class Snapshot:
    """The transactions, operations and locks a look at the data nodes catches, made together
    so that ids agree across them."""

    def __init__(self, c: Cluster) -> None:
        self.c = c
        self.transactions: list[Transaction] = []
        self.operations: list[Operation] = []
        self.locks: list[Lock] = []
        self._next_id = 1

    def _id(self) -> int:
        self._next_id += 1
        return self._next_id

    def transaction(
        self, node: int, api: int, state: int, ops: int, outstanding: int, timer: int
    ) -> tuple[int, int, int]:
        """A TC transaction record; returns (transid0, transid1, TC instance)."""
        tc = block_instances(self.c.ldm, DBTC)
        objid = self._id()
        inst = tc[objid % len(tc)]
        transid0, transid1 = (objid * 2654435761) & 0xFFFFFFFF, 0x10000 + api * 256 + node
        self.transactions.append(
            Transaction(
                node_id=node,
                block_instance=inst,
                objid=objid,
                apiref=(API_BLOCK << 16) | api,
                transid0=transid0,
                transid1=transid1,
                state=state,
                flags=0,
                c_ops=ops,
                outstanding=outstanding,
                timer=timer,
            )
        )
        return transid0, transid1, inst

    def operation(
        self,
        node: int,
        api: int,
        trans: tuple[int, int, int],
        table: DihTable,
        row: int,
        op: int,
        state: int,
        acc_flags: int,
        duration_ms: int,
        waiting_for: int = 0,
    ) -> int:
        """An LQH operation with its ACC lock; returns the lock's acc_op_id."""
        transid0, transid1, tc_inst = trans
        ldm = block_instances(self.c.ldm, DBLQH)
        fragment = row % max(1, table.fragments or 1)
        inst = ldm[fragment % len(ldm)]
        self.operations.append(
            Operation(
                node_id=node,
                block_instance=inst,
                objid=self._id(),
                tcref=(tc_inst << 25) | (DBTC << 16) | node,
                apiref=(API_BLOCK << 16) | api,
                transid0=transid0,
                transid1=transid1,
                tableid=table.table_id,
                fragmentid=fragment,
                op=op,
                state=state,
                flags=0,
            )
        )
        lock_id = self._id()
        self.locks.append(
            Lock(
                node_id=node,
                block_instance=block_instances(self.c.ldm, DBACC)[fragment % len(ldm)],
                tableid=table.table_id,
                fragmentid=fragment,
                rowid=row,
                transid0=transid0,
                transid1=transid1,
                acc_op_id=lock_id,
                op_flags=acc_flags,
                prev_serial_op_id=waiting_for,
                next_serial_op_id=0,
                prev_parallel_op_id=0,
                next_parallel_op_id=0,
                duration_millis=duration_ms,
                user_ptr=lock_id,
            )
        )
        return lock_id


def _user_tables(c: Cluster) -> list[DihTable]:
    return sorted(c.dictionary.user_tables, key=lambda t: (-t.weight, t.table_id))


def hot_table(tables: list[DihTable], name: str | None) -> DihTable | None:
    """The named user table (by table name) of `tables` (busiest first), else the busiest one."""
    for table in tables:
        if name and table.name.lower() == name:
            return table
    return tables[0] if tables else None


def _apis(c: Cluster) -> list[int]:
    return [n.node_id for n in c.topology.api_nodes if n.process_name and c.node_up(n.node_id)]


def _in_flight(
    c: Cluster,
    snapshot: Snapshot,
    node: int,
    apis: list[int],
    tables: list[DihTable],
    cum_weights: list[float],
) -> None:
    """The short transactions a snapshot catches on a healthy node (`cum_weights`: the
    tables' cumulative weights, for the draw of each operation's table)."""
    ready = max(1, len(c.started_ids()))
    rate = c.workload.rate(c.now) / ready / workload.OPS_PER_TRANSACTION
    mean_s = tc_medians(c, node)["transactions"] * math.exp(SIGMA**2 / 2) / 1e6
    rnd = random.Random(f"{c.spec.seed}-{node}-{int(c.now)}")
    # Poisson draw by inversion: small means, a handful of steps
    expected, count, p = rate * mean_s, 0, rnd.random()
    term = cumulative = math.exp(-expected)
    while p > cumulative and count < 50:
        count += 1
        term *= expected / count
        cumulative += term
    for _ in range(count):
        state = rnd.choice((CS_STARTED, CS_RECEIVING, CS_COMMITTING, CS_COMPLETING))
        ops = rnd.randint(1, 6)
        api = rnd.choice(apis)
        trans = snapshot.transaction(node, api, state, ops, rnd.randint(0, 2), 0)
        for _ in range(ops):
            table = rnd.choices(tables, cum_weights=cum_weights)[0]
            update = rnd.random() < 1 - workload.READ_SHARE_OF_KEY
            flags = ACC_OWNER | ACC_HOLDING | ((ACC_UPDATE | ACC_EXCLUSIVE) if update else 0)
            op = OP_UPDATE if update else OP_READ
            row = rnd.randint(0, max(1, table.rows))
            snapshot.operation(node, api, trans, table, row, op, PREPARED, flags, 0)


def _long_transaction(
    c: Cluster, snapshot: Snapshot, apis: list[int], tables: list[DihTable]
) -> None:
    age = c.activity.age(c, LONG)
    params = c.faults.get(LONG)
    if age is None or params is None:
        return
    node = params.get("node") or min(c.started_ids())
    table = hot_table(tables, None)
    if node not in c.started_ids() or table is None:
        return
    locks = params.get("locks", DEFAULT_LOCKS)
    trans = snapshot.transaction(node, apis[0], CS_STARTED, locks, 0, int(age))
    for k in range(locks):
        flags = ACC_UPDATE | ACC_EXCLUSIVE | ACC_OWNER | ACC_HOLDING
        snapshot.operation(
            node, apis[0], trans, table, 1000 + k, OP_UPDATE, PREPARED, flags, int(age * 1000)
        )


def _lock_contention(
    c: Cluster, snapshot: Snapshot, apis: list[int], tables: list[DihTable]
) -> None:
    if c.activity.age(c, CONTENTION) is None:
        return
    params = c.faults.get(CONTENTION) or {}
    table = hot_table(tables, params.get("table"))
    if table is None:
        return
    node = min(c.started_ids())
    now_ms = int(c.now * 1000)
    holder_trans = snapshot.transaction(node, apis[0], CS_RECEIVING, 1, 0, 0)
    flags = ACC_UPDATE | ACC_EXCLUSIVE | ACC_OWNER | ACC_HOLDING
    holder = snapshot.operation(
        node, apis[0], holder_trans, table, 7, OP_UPDATE, PREPARED, flags, now_ms % 900
    )
    previous = holder
    for k in range(params.get("waiters", DEFAULT_WAITERS)):
        api = apis[k % len(apis)]
        trans = snapshot.transaction(node, api, CS_RECEIVING, 1, 1, 0)
        waited = (now_ms + k * 137) % DEADLOCK_TIMEOUT_MS
        flags = ACC_UPDATE | ACC_EXCLUSIVE
        previous = snapshot.operation(
            node, api, trans, table, 7, OP_UPDATE, WAIT_ACC, flags, waited, previous
        )


def build(c: Cluster) -> Snapshot:
    snapshot = Snapshot(c)
    apis = _apis(c)
    if not c.is_up() or not apis:
        return snapshot
    tables = _user_tables(c)
    cum_weights = list(accumulate(t.weight for t in tables))
    for node in c.started_ids():
        _in_flight(c, snapshot, node, apis, tables, cum_weights)
    _long_transaction(c, snapshot, apis, tables)
    _lock_contention(c, snapshot, apis, tables)
    return snapshot
