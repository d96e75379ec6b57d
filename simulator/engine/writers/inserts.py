"""Putting rows into DuckDB fast: one list per column for a few hundred rows, a CSV file for
more."""

from __future__ import annotations

import csv
import os
import tempfile
from typing import Any

LITERAL_ROWS = 400
CSV_ROWS = 500


def insert_columns(db: Any, target: str, values: list[tuple], columns: str = "") -> None:
    """Insert rows as one list parameter per column, unnested side by side: DuckDB binds a
    parameter per column instead of parsing a literal or binding a parameter per value (a
    multi-row VALUES or executemany), about 20 times faster for a few hundred rows.
    ``columns``: the target's column list, e.g. '("a", "b")', or all of them in order."""
    if not values:
        return
    lists = [list(column) for column in zip(*values, strict=True)]
    unnested = ", ".join("unnest(?)" for _ in lists)
    db.execute(f"INSERT INTO {target} {columns} SELECT {unnested}", lists)


def insert_values(db: Any, table: str, columns: list[str], values: list[tuple]) -> None:
    """Insert rows: one list per column for a few hundred, a CSV file DuckDB reads for more."""
    cols = ", ".join(f'"{c}"' for c in columns)
    if len(values) > CSV_ROWS:
        _insert_csv(db, table, cols, len(columns), values)
        return
    insert_columns(db, table, values, f"({cols})")


def _insert_csv(db: Any, table: str, cols: str, width: int, values: list[tuple]) -> None:
    tmpdir = "/dev/shm" if os.path.isdir("/dev/shm") else None
    fd, path = tempfile.mkstemp(suffix=".csv", dir=tmpdir)
    try:
        with os.fdopen(fd, "w", newline="") as f:
            csv.writer(f).writerows(["\\N" if v is None else v for v in row] for row in values)
        names = ", ".join(f"'c{i}': 'VARCHAR'" for i in range(width))
        db.execute(
            f"INSERT INTO {table} ({cols}) SELECT * FROM read_csv(?, header = false, "
            f"nullstr = '\\N', quote = '\"', escape = '\"', columns = {{{names}}})",
            [path],
        )
    finally:
        os.unlink(path)


def replace(engine: Any, name: str, columns: tuple[str, ...], values: list[tuple], db: Any) -> None:
    """Replace a small table's rows on ``db``; larger sets go through the engine's bulk path."""
    if len(values) > LITERAL_ROWS:
        engine.replace_rows(name, values, db)
        return
    db.execute(f'DELETE FROM ndbinfo."{name}"')
    if values:
        insert_values(db, f'ndbinfo."{name}"', list(columns), values)
