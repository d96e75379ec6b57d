"""A bounded pool of MySQL connections to one SQL node, used from asyncio.

Blocking driver calls run on the pool's own worker threads. A slot is held from the moment a
job is submitted until its thread has finished with the connection, so the number of
connections open to the node never exceeds ``max_connections`` — not even while a query that
outlived its deadline is still being abandoned. Such a connection is closed, never reused.
The pool serves every credential set (/probe auth modules) for the node: an idle connection
of another credential set is closed to make room when the limit is reached.

``Pools`` keeps one pool per target name (names are normalised, see ``targets``) and at most
``MAX_POOLS`` of them, closing the least recently used idle one to make room, so the
connections the exporter holds stay bounded whatever ``/probe`` is asked for.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import math
import threading
import time
from collections.abc import Callable, Generator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, TypeVar

import mysql.connector
from mysql.connector import errorcode, errors
from ndbinfo_exporter.collectors.base import Row, TargetInfo
from ndbinfo_exporter.scrape.sql_node import detect
from ndbinfo_exporter.targets import TargetConfig

log = logging.getLogger(__name__)
T = TypeVar("T")

# Errors after which a reused (idle) connection is presumed stale and replaced once.
_CONNECTION_ERRORS = (errors.InterfaceError, errors.OperationalError)
# mysqld refusing a new connection: at max_connections, or the account at its own limit.
_REFUSED = frozenset(
    {
        errorcode.ER_CON_COUNT_ERROR,
        errorcode.ER_TOO_MANY_USER_CONNECTIONS,
        errorcode.ER_USER_LIMIT_REACHED,
    }
)
_CLOSE_WAIT_SECONDS = 1.0
MAX_POOLS = 32
# Rows read from the server at a time by ``PooledConnection.each``.
BATCH_ROWS = 1000


@dataclass
class PooledConnection:
    raw: Any  # mysql.connector connection
    info: TargetInfo  # detected once, when the connection was opened
    # One cursor for every statement on the connection: the connector's ``cursor()`` pings
    # the server (a round trip) each time it makes one.
    _cursor: Any = field(default=None, init=False, repr=False)

    def set_deadline(self, deadline: float) -> None:
        """Bound the next reads by a monotonic ``deadline`` (the driver wants whole seconds)."""
        self.raw.read_timeout = max(1, math.ceil(deadline - time.monotonic()))

    def cursor(self) -> Any:
        """The connection's plain cursor, made at its first statement."""
        if self._cursor is None:
            self._cursor = self.raw.cursor()
        return self._cursor

    def rows(self, sql: str, params: tuple[Any, ...] | None = None) -> list[Row]:
        """Every row of the statement as a dict. The plain cursor, zipped with the column
        names once: the connector's dictionary cursor works the names out again for every row."""
        cursor = self.cursor()
        cursor.execute(sql, params)
        names = cursor.column_names
        return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]

    def each(self, sql: str) -> Generator[Row, None, None]:
        """The statement's rows as dicts, read from the server a batch at a time: whoever
        folds them as they come holds one batch, never every row."""
        cursor = self.cursor()
        finished = False
        try:
            cursor.execute(sql)
            names = cursor.column_names
            while batch := cursor.fetchmany(BATCH_ROWS):
                for row in batch:
                    yield dict(zip(names, row, strict=True))
            finished = True
        finally:
            if not finished and self.raw.unread_result:
                with contextlib.suppress(errors.Error):  # back to the pool with nothing unread
                    cursor.fetchall()


class ConnectionPool:
    def __init__(self, name: str, max_connections: int, query_timeout: float):
        self.name = name
        self.max_connections = max_connections
        self._query_timeout = query_timeout
        self._slots = asyncio.Semaphore(max_connections)
        self._idle: dict[TargetConfig, list[PooledConnection]] = {}
        self._lock = threading.Lock()
        self._given_back = threading.Condition(self._lock)  # a connection idle again, or closed
        self._open = 0
        self._active = 0  # batches running or waiting for a slot
        self._closed = False
        self._executor = ThreadPoolExecutor(
            max_workers=max_connections, thread_name_prefix=f"pool {name}"
        )

    @property
    def open_connections(self) -> int:
        with self._lock:
            return self._open

    @property
    def busy(self) -> bool:
        return self._active > 0 or self.open_connections > self._idle_count()

    def _idle_count(self) -> int:
        with self._lock:
            return self._idle_total()

    def _idle_total(self) -> int:
        """Idle connections of every credential set; the caller holds the lock."""
        return sum(len(conns) for conns in self._idle.values())

    async def run(
        self, target: TargetConfig, job: Callable[[PooledConnection], T], timeout: float
    ) -> T:
        """Run ``job`` on a connection for ``target`` in a worker thread; TimeoutError after
        ``timeout`` seconds, counting the wait for a free slot."""
        [(outcome, _)] = await self.run_each(target, [job], timeout)
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    async def run_each(
        self,
        target: TargetConfig,
        jobs: Sequence[Callable[[PooledConnection], T]],
        timeout: float,
    ) -> list[tuple[T | Exception, float]]:
        """Run every job on a connection for ``target``; each job's result (or the exception it
        raised) and the seconds it took. Up to ``max_connections`` worker threads take the jobs
        in order from one shared list, so a batch costs a few hand-offs between the event loop
        and the threads rather than one per job, and a slow job holds up only its own thread.
        A job not finished ``timeout`` seconds after the call gets TimeoutError; one still
        running then has its connection closed when it returns."""
        loop = asyncio.get_running_loop()
        started = time.perf_counter()
        deadline = time.monotonic() + timeout
        queue = collections.deque(enumerate(jobs))
        outcomes: list[tuple[T | Exception, float] | None] = [None] * len(jobs)
        abandoned = threading.Event()

        def take_jobs() -> None:
            while not abandoned.is_set():
                try:
                    index, job = queue.popleft()
                except IndexError:
                    return
                job_started = time.perf_counter()
                try:
                    outcome: T | Exception = self._work(target, job, deadline, abandoned)
                except Exception as exc:
                    outcome = exc
                outcomes[index] = (outcome, time.perf_counter() - job_started)

        async def worker() -> None:
            await self._slots.acquire()
            try:
                future = self._executor.submit(take_jobs)
            except RuntimeError:  # the pool was closed at shutdown
                self._slots.release()
                raise
            future.add_done_callback(lambda _: self._release(loop))
            await asyncio.wrap_future(future)

        workers = [
            asyncio.ensure_future(worker()) for _ in range(min(len(jobs), self.max_connections))
        ]
        self._active += 1
        try:
            if workers:
                await asyncio.wait(workers, timeout=max(0.0, timeout))
        finally:  # also when the caller is cancelled
            self._active -= 1
            late = [task for task in workers if not task.done()]
            if late:
                abandoned.set()
                for task in late:
                    task.cancel()
        failed = [task.exception() for task in workers if task.done() and not task.cancelled()]
        unfinished: Exception = next((exc for exc in failed if exc is not None), TimeoutError())
        gave_up = time.perf_counter() - started
        return [
            outcome if outcome is not None else (unfinished, gave_up) for outcome in list(outcomes)
        ]

    def _release(self, loop: asyncio.AbstractEventLoop) -> None:
        if not loop.is_closed():
            loop.call_soon_threadsafe(self._slots.release)

    def _work(
        self,
        target: TargetConfig,
        job: Callable[[PooledConnection], T],
        deadline: float,
        abandoned: threading.Event,
    ) -> T:
        connection = self._take_idle(target)
        reused = connection is not None
        if connection is None:
            connection, reused = self._open_or_wait(target, deadline)
        try:
            result = self._attempt(connection, job, deadline)
        except errors.Error as exc:
            if not (reused and isinstance(exc, _CONNECTION_ERRORS) and time.monotonic() < deadline):
                raise
            log.debug("replacing a stale pooled connection to %s", self.name)
            self._reserve()
            connection = self._connect(target, deadline)
            result = self._attempt(connection, job, deadline)
        with self._lock:
            keep = not (abandoned.is_set() or self._closed)
            if keep:
                self._idle.setdefault(target, []).append(connection)
                self._given_back.notify_all()
        if not keep:
            self._close(connection)
        return result

    def _attempt(
        self, connection: PooledConnection, job: Callable[[PooledConnection], T], deadline: float
    ) -> T:
        """The job on ``connection``, which is closed when the job raises."""
        try:
            connection.set_deadline(deadline)
            return job(connection)
        except BaseException:
            self._close(connection)
            raise

    def _take_idle(self, target: TargetConfig) -> PooledConnection | None:
        """An idle connection for ``target``, or None after reserving room for a new one."""
        with self._lock:
            idle = self._idle.get(target)
            if idle:
                return idle.pop()
        self._reserve()
        return None

    def _open_or_wait(self, target: TargetConfig, deadline: float) -> tuple[PooledConnection, bool]:
        """A new connection (and False), or, when mysqld refuses one while the pool holds
        others in use, the first of those given back (and True): a full SQL node is one to
        keep reading on the connections already held, not a collector failing."""
        try:
            return self._connect(target, deadline), False
        except errors.Error as exc:
            if exc.errno not in _REFUSED:
                raise
            return self._wait_for_idle(target, deadline, exc), True

    def _wait_for_idle(
        self, target: TargetConfig, deadline: float, refused: errors.Error
    ) -> PooledConnection:
        """An idle connection for ``target`` as soon as one is given back; ``refused`` when
        none is in use any more, or at the deadline."""
        with self._given_back:
            while True:
                idle = self._idle.get(target)
                if idle:
                    return idle.pop()
                in_use = self._open - self._idle_total()
                left = deadline - time.monotonic()
                if in_use == 0 or left <= 0 or self._closed:
                    raise refused
                self._given_back.wait(left)

    def _reserve(self) -> None:
        """Count a connection about to be opened; at the limit, first close an idle connection
        of another credential set (there is one: every other open connection is either idle
        or holds one of the other slots)."""
        with self._lock:
            evict = None
            if self._open >= self.max_connections:
                evict = next((conns.pop() for conns in self._idle.values() if conns), None)
            self._open += 1
        if evict is not None:
            self._close(evict)

    def _connect(self, target: TargetConfig, deadline: float) -> PooledConnection:
        """Open a connection counted by ``_reserve`` (uncounted again if it fails)."""
        seconds = max(1, math.ceil(min(self._query_timeout, deadline - time.monotonic())))
        kwargs: dict[str, Any] = {
            "user": target.user,
            "password": target.password,
            "connection_timeout": seconds,
            "use_pure": True,
            "autocommit": True,
        }
        if target.socket:
            kwargs["unix_socket"] = target.socket
        else:
            kwargs["host"], kwargs["port"] = target.host, target.port
        for key in ("ssl_ca", "ssl_cert", "ssl_key"):
            if getattr(target, key):
                kwargs[key] = getattr(target, key)
        raw = None
        try:
            raw = mysql.connector.connect(**kwargs)
            raw.read_timeout = max(1, math.ceil(deadline - time.monotonic()))
            info = detect(raw)
            self._limit_execution_time(raw)
            return PooledConnection(raw=raw, info=info)
        except BaseException:
            with self._lock:
                self._open -= 1
            if raw is not None:
                _quietly_close(raw)
            raise

    def _limit_execution_time(self, raw: Any) -> None:
        """Have the server itself stop a SELECT that outlives the query timeout, so that a query
        abandoned by the exporter does not keep running there. Servers without the variable
        (not MySQL 5.7.8+) are left alone."""
        cursor = raw.cursor()
        try:
            cursor.execute(
                f"SET SESSION max_execution_time = {math.ceil(self._query_timeout * 1000)}"
            )
        except errors.DatabaseError as exc:
            log.debug("max_execution_time not set on %s: %s", self.name, exc.msg)
        finally:
            cursor.close()

    def _close(self, connection: PooledConnection) -> None:
        with self._lock:
            self._open -= 1
            self._given_back.notify_all()
        _quietly_close(connection.raw)

    def close(self) -> None:
        """Close idle connections and stop the worker threads (at shutdown)."""
        with self._lock:
            self._closed = True
            idle = [c for conns in self._idle.values() for c in conns]
            self._idle.clear()
        for connection in idle:
            self._close(connection)
        self._executor.shutdown(wait=False, cancel_futures=True)


class PoolsBusy(Exception):
    """Every one of the ``MAX_POOLS`` pools is in use: a new target must wait for a later
    scrape."""


class Pools:
    """Connection pools by target name, least recently used first; at most ``limit``."""

    def __init__(self, max_connections: int, query_timeout: float, limit: int = MAX_POOLS):
        self._max_connections = max_connections
        self._query_timeout = query_timeout
        self._limit = limit
        self._pools: collections.OrderedDict[str, ConnectionPool] = collections.OrderedDict()

    def get(self, name: str) -> tuple[ConnectionPool, str | None]:
        """The pool for ``name`` and the name of a pool closed to make room for it (if any).
        PoolsBusy when the limit is reached and every pool is in use."""
        pool = self._pools.get(name)
        if pool is not None:
            self._pools.move_to_end(name)
            return pool, None
        evicted = None
        if len(self._pools) >= self._limit:
            evicted = next((key for key, p in self._pools.items() if not p.busy), None)
            if evicted is None:
                raise PoolsBusy(f"all {self._limit} connection pools are in use")
            self._pools.pop(evicted).close()
            log.info("closed the least recently used connection pool of %s", evicted)
        pool = ConnectionPool(name, self._max_connections, self._query_timeout)
        self._pools[name] = pool
        return pool, evicted

    def __len__(self) -> int:
        return len(self._pools)

    def open_connections(self) -> int:
        return sum(pool.open_connections for pool in self._pools.values())

    def close(self) -> None:
        for pool in self._pools.values():
            pool.close()
        self._pools.clear()


def _quietly_close(raw: Any) -> None:
    """Say goodbye and wait (briefly) for the server to close its end, so that the server
    has let go of the connection before its slot is reused. Errors from a dead socket do
    not matter: the connection is being dropped anyway."""
    with contextlib.suppress(errors.Error, OSError, AttributeError):
        raw.cmd_quit()
        sock = raw._socket.sock
        sock.settimeout(_CLOSE_WAIT_SECONDS)
        while sock.recv(4096):
            pass
    with contextlib.suppress(errors.Error, OSError, AttributeError):
        raw.close()
