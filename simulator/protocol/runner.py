"""Statements run off the event loop, on threads with room for deeply nested SQL.

Parsing and translating a statement is CPU work in Python; on the event loop a 1 MB statement
held every other client for seconds. Such a statement's coroutine runs to completion on a worker
thread with its own event loop, so the protocol loop keeps accepting, logging in and answering
(the server keeps short statements on the loop: the hop costs more than their parsing).
The workers get a large stack and the interpreter a high recursion limit: the SQL parser
recurses about 25 frames per nesting level, and mysqld answers 100 nested parentheses.
"""

from __future__ import annotations

import asyncio
import sys
import threading
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")

# deepest parenthesis nesting a statement may have (deeper: mysqld's 1436, see depth.py)
MAX_NESTING = 500
_WORKER_STACK = 256 * 1024 * 1024
_RECURSION_LIMIT = 40 * MAX_NESTING + 5000


class _BigStackPool(ThreadPoolExecutor):
    """A thread pool whose threads are created with a large stack."""

    def _adjust_thread_count(self) -> None:
        previous = threading.stack_size(_WORKER_STACK)
        try:
            super()._adjust_thread_count()  # type: ignore[misc]
        finally:
            threading.stack_size(previous)


class StatementRunner:
    def __init__(self, workers: int):
        if sys.getrecursionlimit() < _RECURSION_LIMIT:
            sys.setrecursionlimit(_RECURSION_LIMIT)
        self._local = threading.local()
        self._pool = _BigStackPool(max_workers=workers, thread_name_prefix="statement")

    def _run(self, coro: Coroutine[Any, Any, T]) -> T:
        loop = getattr(self._local, "loop", None)
        if loop is None:
            loop = self._local.loop = asyncio.new_event_loop()
        return loop.run_until_complete(coro)

    async def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run `coro` on a worker thread and wait for its result without blocking the loop."""
        return await asyncio.wrap_future(self._pool.submit(self._run, coro))

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
