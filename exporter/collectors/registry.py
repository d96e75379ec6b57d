"""Every collector module in this package that defines ``COLLECTOR``.

The rule: a module whose name starts with ``_`` holds helpers that several collectors share
(``_one_copy``, ``_logs``, ``_per_table``, ``_histograms``, ...) and is never taken for a
collector; a collector module imports from ``base`` and those helpers, never from another
collector (tests/collectors/test_registry.py checks it)."""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache

from ndbinfo_exporter import collectors
from ndbinfo_exporter.collectors.base import Collector

_NOT_COLLECTORS = {"base", "registry"}


def all_collectors() -> list[Collector]:
    """Sorted by name; a module without ``COLLECTOR`` is a helper module and is skipped."""
    return list(_discover())


@cache
def _discover() -> tuple[Collector, ...]:
    found: dict[str, Collector] = {}
    for module_info in pkgutil.iter_modules(collectors.__path__):
        if module_info.name in _NOT_COLLECTORS or module_info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{collectors.__name__}.{module_info.name}")
        collector = getattr(module, "COLLECTOR", None)
        if isinstance(collector, Collector):
            if collector.name in found:
                raise RuntimeError(f"two collectors named {collector.name!r}")
            found[collector.name] = collector
    return tuple(found[name] for name in sorted(found))
