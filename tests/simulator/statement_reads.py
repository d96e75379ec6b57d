"""The ndbinfo tables a statement reads, as ndbsim's SQL node writes them before running it
(model_tables.sync with the statement's reads), for the tests that query the engine
directly: each query then builds what it reads, not every table of the model."""

from __future__ import annotations

from ndbsim.engine.catalog import SCHEMA, referenced_tables
from ndbsim.engine.database import Engine


def object_reads(engine: Engine, name: str) -> set[str]:
    """The ndbinfo object and every ndbinfo object under it."""
    out, obj = {name}, engine.catalog.objects[name]
    if obj.kind != "view":
        return out
    for schema, table in referenced_tables(obj.sql or ""):
        if schema in ("", SCHEMA) and table in engine.catalog.objects and table != name:
            out |= object_reads(engine, table)
    return out


def statement_reads(engine: Engine, sql: str) -> set[str] | None:
    """What `sql` reads; None (every table) when it reads outside ndbinfo."""
    out: set[str] = set()
    for schema, table in referenced_tables(sql):
        if schema not in ("", SCHEMA) or table not in engine.catalog.objects:
            return None
        out |= object_reads(engine, table)
    return out
