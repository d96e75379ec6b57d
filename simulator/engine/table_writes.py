"""The order of the engine's table writes, so that statements read while others write.

A write of the model into DuckDB is planned under the model's lock and run after it is
released, on the statement's own cursor, in one transaction: a reader on another cursor sees
the table before or after it, never half written. Each planned write of a table takes the next
ticket of that table; writes of a table are applied in ticket order, and a statement reads a
table once every write planned for it before its own plan is applied. So a statement waits for
the writes of the tables it reads (and of those they are built from), never for another table's.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from typing import Any

Apply = Callable[[Any], None]  # runs the write on a DuckDB cursor


@dataclass(frozen=True)
class TableWrite:
    table: str
    ticket: int
    apply: Apply
    after: dict[str, int]  # tickets of the tables it reads, applied before it runs


class TableWrites:
    """Tickets of the planned writes of each table, and the last one applied."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._planned: dict[str, int] = {}
        self._applied: dict[str, int] = {}

    def plan(self, table: str, apply: Apply, after: Collection[str] = ()) -> TableWrite:
        """Under the model's lock: the next write of ``table``, to run after the writes
        planned so far of the tables in ``after``."""
        with self._changed:
            ticket = self._planned.get(table, 0) + 1
            self._planned[table] = ticket
            return TableWrite(table, ticket, apply, self._latest(after))

    def planned(self, tables: Iterable[str] | None) -> dict[str, int]:
        """Under the model's lock: what a reader of ``tables`` (None: all) waits for."""
        with self._changed:
            return self._latest(self._planned if tables is None else tables)

    def _latest(self, tables: Iterable[str]) -> dict[str, int]:
        return {t: self._planned[t] for t in tables if t in self._planned}

    def wait(self, tickets: dict[str, int]) -> None:
        """Until the writes up to ``tickets`` are applied. Every such write was planned
        before the caller's plan by a statement that applies it (or gives it up), in plan
        order, so the wait always ends."""
        with self._changed:
            self._changed.wait_for(
                lambda: all(self._applied.get(t, 0) >= n for t, n in tickets.items())
            )

    def run(self, writes: list[TableWrite], db: Any) -> None:
        """Apply ``writes`` (one statement's plan, in order) on ``db``, each in a transaction.
        After a failure the rest are given up, so that no reader waits for them, and the
        error is raised."""
        failure: BaseException | None = None
        for write in writes:
            self.wait({**write.after, write.table: write.ticket - 1})
            try:
                if failure is None:
                    _in_transaction(db, write.apply)
            except BaseException as e:
                failure = e
            finally:
                with self._changed:
                    self._applied[write.table] = write.ticket
                    self._changed.notify_all()
        if failure is not None:
            raise failure


def _in_transaction(db: Any, apply: Apply) -> None:
    db.execute("BEGIN TRANSACTION")
    try:
        apply(db)
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")
