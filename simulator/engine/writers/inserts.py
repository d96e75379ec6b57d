"""Putting rows into DuckDB fast: literal VALUES for a few hundred, a CSV file for more."""

from __future__ import annotations

import csv
import os
import tempfile
from typing import Any

LITERAL_ROWS = 400
CSV_ROWS = 500


def _quote(value: Any) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int | float):
        return repr(value)
    return "'" + str(value).replace("'", "''") + "'"


def insert_values(db: Any, table: str, columns: list[str], values: list[tuple]) -> None:
    """Insert rows: literal VALUES for a few hundred, a CSV file DuckDB reads for more."""
    cols = ", ".join(f'"{c}"' for c in columns)
    if len(values) > CSV_ROWS:
        _insert_csv(db, table, cols, len(columns), values)
        return
    for start in range(0, len(values), 2000):
        chunk = values[start : start + 2000]
        body = ", ".join("(" + ", ".join(_quote(v) for v in row) + ")" for row in chunk)
        db.execute(f"INSERT INTO {table} ({cols}) VALUES {body}")


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
    """Replace a small table's rows on ``db``; literal VALUES beat executemany by far for a
    few hundred rows, larger sets go through the engine's bulk path."""
    if len(values) > LITERAL_ROWS:
        engine.replace_rows(name, values, db)
        return
    db.execute(f'DELETE FROM ndbinfo."{name}"')
    if values:
        insert_values(db, f'ndbinfo."{name}"', list(columns), values)
