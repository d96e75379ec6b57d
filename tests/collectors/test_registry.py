"""Collector discovery and the flags built from it."""

from __future__ import annotations

import ast
from pathlib import Path

from ndbinfo_exporter import collectors
from ndbinfo_exporter.collectors import log_usage
from ndbinfo_exporter.collectors.base import Collector
from ndbinfo_exporter.collectors.registry import all_collectors
from ndbinfo_exporter.settings import parse


def test_every_collector_module_is_found():
    collectors = all_collectors()
    names = [c.name for c in collectors]
    assert names == sorted(set(names))
    assert all(isinstance(c, Collector) for c in collectors)
    assert all_collectors() is not all_collectors()  # callers get their own list


def test_a_module_may_declare_several_collectors():
    """log_usage declares logspaces and logbuffers in its ``COLLECTORS``; both are found, each
    reading its own view into its own metric names."""
    found = {c.name: c for c in all_collectors()}
    assert (found["logspaces"], found["logbuffers"]) == log_usage.COLLECTORS
    for collector in log_usage.COLLECTORS:
        assert list(collector.reads) == [collector.name]
    names = [spec.name for c in log_usage.COLLECTORS for spec in c.metrics]
    assert len(names) == len(set(names)) == 4


def test_flags_for_every_collector():
    collectors = all_collectors()
    for collector in collectors:
        enabled = parse([f"--collector.{collector.name}"], collectors).enabled(collectors)
        disabled = parse([f"--no-collector.{collector.name}"], collectors).enabled(collectors)
        assert collector in enabled
        assert collector not in disabled
        for option in collector.options:
            assert (
                settings_help(collectors).count(f"--collector.{collector.name}.{option.name}") == 1
            )
            assert parse([], collectors).options_for(collector)[option.name] == option.default


def settings_help(collectors) -> str:
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):
        parse(["--help"], collectors)
    return out.getvalue()


def test_collector_modules_import_helpers_not_other_collectors():
    """Shared code lives in the ``_`` helper modules, which the registry never takes for
    collectors; a collector module importing another would make it a library too."""
    package = Path(collectors.__file__).parent
    names = {path.stem for path in package.glob("*.py")}
    collector_modules = (
        names - {"__init__", "base", "registry"} - {name for name in names if name.startswith("_")}
    )
    for name in sorted(collector_modules):
        tree = ast.parse((package / f"{name}.py").read_text())
        imported = {
            node.module.rsplit(".", 1)[-1]
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module
        }
        assert not imported & collector_modules, f"{name} imports {imported & collector_modules}"
    helpers = {name for name in names if name.startswith("_") and name != "__init__"}
    assert {c.name for c in all_collectors()}.isdisjoint(helpers)
