"""Every collector the modules of this package declare: ``COLLECTOR``, or ``COLLECTORS`` for
a module declaring several that share their code (``log_usage``).

The rule: a module whose name starts with ``_`` holds helpers that several collectors share
(``_one_copy``, ``_per_table``, ``_histograms``, ...) and is never taken for a
collector; a collector module imports from ``base`` and those helpers, never from another
collector (tests/collectors/test_registry.py checks it)."""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache
from types import ModuleType

from ndbinfo_exporter import collectors
from ndbinfo_exporter.collectors.base import Collector

_NOT_COLLECTORS = {"base", "registry"}


def all_collectors() -> list[Collector]:
    """Sorted by name; a module declaring none is a helper module and is skipped."""
    return list(_discover())


@cache
def _discover() -> tuple[Collector, ...]:
    found: dict[str, Collector] = {}
    for module_info in pkgutil.iter_modules(collectors.__path__):
        if module_info.name in _NOT_COLLECTORS or module_info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{collectors.__name__}.{module_info.name}")
        for collector in _declared(module):
            if collector.name in found:
                raise RuntimeError(f"two collectors named {collector.name!r}")
            found[collector.name] = collector
    return tuple(found[name] for name in sorted(found))


def _declared(module: ModuleType) -> tuple[Collector, ...]:
    """The module's ``COLLECTORS``, or its one ``COLLECTOR``; none for a helper module."""
    declared = getattr(module, "COLLECTORS", None) or (getattr(module, "COLLECTOR", None),)
    return tuple(c for c in declared if isinstance(c, Collector))
