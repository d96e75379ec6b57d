"""The ndbinfo tables a statement reads, as ndbsim's SQL node writes them before running it
(model_tables.sync with the statement's reads), for the tests that query the engine
directly: each query then builds what it reads, not every table of the model."""

from __future__ import annotations

from ndbsim.engine.catalog import SCHEMA, referenced_tables
from ndbsim.engine.database import Engine


def statement_reads(engine: Engine, sql: str) -> set[str] | None:
    """What `sql` reads; None (every table) when it reads outside ndbinfo."""
    out: set[str] = set()
    for schema, table in referenced_tables(sql):
        if schema not in ("", SCHEMA) or table not in engine.catalog.objects:
            return None
        out |= engine.catalog.reads(table)
    return out
