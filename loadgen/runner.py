"""Runs workloads on their own connections and measures them.

Each workload gets `threads` connections of its own, so the NDB session counters read
with SHOW SESSION STATUS on a connection before and after belong to that workload alone.
"""

from __future__ import annotations

import random
import threading
import time
from dataclasses import dataclass, field

import mysql.connector

from .target import ConnectionSpec, connect, session_status
from .workloads import Worker, Workload

# Per-session NDB counters (SHOW SESSION STATUS): exact for the connection that reads them.
SESSION_COUNTERS = (
    "Ndb_execute_count",
    "Ndb_scan_count",
    "Ndb_pruned_scan_count",
    "Ndb_api_read_row_count_session",
    "Ndb_api_trans_local_read_row_count_session",
)


@dataclass
class Plan:
    workloads: list[Workload]
    threads: int
    rates: dict[str, float]  # statements per second per workload; 0 = unpaced
    duration: float | None  # seconds
    count: int | None  # statements per workload
    customers: int


@dataclass
class Result:
    workload: Workload
    statements: int = 0
    rows: int = 0
    errors: int = 0
    first_error: str | None = None
    seconds: float = 0.0
    counters: dict[str, int] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add(self, statements, rows, errors, first_error, seconds, counters) -> None:
        with self.lock:
            self.statements += statements
            self.rows += rows
            self.errors += errors
            self.first_error = self.first_error or first_error
            self.seconds = max(self.seconds, seconds)
            for name, value in counters.items():
                self.counters[name] = self.counters.get(name, 0) + value


def _share(total: int, parts: int, index: int) -> int:
    return total // parts + (1 if index < total % parts else 0)


def _work(spec, plan, workload, index, result, stop, measure_ndb, writer) -> None:
    conn = connect(spec)
    cursor = conn.cursor()
    worker = Worker(cursor, random.Random(writer), plan.customers, writer)
    limit = _share(plan.count, plan.threads, index) if plan.count is not None else None
    rate = plan.rates.get(workload.name, 0.0) / plan.threads
    before = session_status(conn, SESSION_COUNTERS) if measure_ndb else {}
    statements = rows = errors = 0
    first_error = None
    started = time.monotonic()
    while not stop.is_set() and (limit is None or statements + errors < limit):
        if rate:
            delay = started + (statements + errors) / rate - time.monotonic()
            if delay > 0 and stop.wait(delay):
                break
        try:
            rows += workload.run(worker)
            statements += 1
        except mysql.connector.Error as exc:
            errors += 1
            first_error = first_error or f"{exc.errno}: {exc.msg}"
            if exc.errno in (2006, 2013, 2055):  # the connection is gone
                break
    seconds = time.monotonic() - started
    after = (
        session_status(conn, SESSION_COUNTERS) if measure_ndb and conn.is_connected() else before
    )
    cursor.close()
    conn.close()
    deltas = {name: after[name] - before[name] for name in before}
    result.add(statements, rows, errors, first_error, seconds, deltas)


def run(spec: ConnectionSpec, plan: Plan, measure_ndb: bool) -> list[Result]:
    results = {wl.name: Result(wl) for wl in plan.workloads}
    stop = threading.Event()
    threads = []
    failures: list[BaseException] = []

    def guarded(*args):
        try:
            _work(*args)
        except Exception as exc:  # reported once by the caller
            failures.append(exc)
            stop.set()

    writer = random.getrandbits(40) << 12  # distinct (writer, seq) keys across runs
    for workload in plan.workloads:
        for index in range(plan.threads):
            writer += 1
            args = (spec, plan, workload, index, results[workload.name], stop, measure_ndb)
            threads.append(threading.Thread(target=guarded, args=(*args, writer), daemon=True))
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + plan.duration if plan.duration else None
    try:
        for thread in threads:
            while thread.is_alive():
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    stop.set()
                thread.join(timeout=0.2 if remaining is None else min(0.2, max(remaining, 0)))
    except KeyboardInterrupt:
        stop.set()
        for thread in threads:
            thread.join()
    if failures:
        raise failures[0]
    return list(results.values())
