"""The writers of the ndbinfo tables the model fills inside DuckDB, each registered for its
table by a decorator next to it; engine/model_tables runs them. Per-fragment tables are
INSERT ... SELECT from the one-copy model tables of schema `sim` (sim_schema), rewritten when
what they follow changes; per-fragment views are created once and follow schema `sim` by
themselves; tables written once come from the model as it starts. The small tables come from
the row builders of engine/rows (BUILDERS)."""

from ndbsim.engine.writers import (  # noqa: F401 (registers their writers)
    dictionary,
    fragment_tables,
    fragment_views,
)
from ndbsim.engine.writers.registry import FRAGMENT_TABLES, FRAGMENT_VIEWS, WRITTEN_ONCE

__all__ = ["FRAGMENT_TABLES", "FRAGMENT_VIEWS", "WRITTEN_ONCE"]
