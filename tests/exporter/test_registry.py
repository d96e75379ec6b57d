"""Collector discovery and the flags built from it."""

from __future__ import annotations

from ndbinfo_exporter.collectors.base import Collector
from ndbinfo_exporter.collectors.registry import all_collectors
from ndbinfo_exporter.settings import parse


def test_every_collector_module_is_found():
    collectors = all_collectors()
    names = [c.name for c in collectors]
    assert names == sorted(set(names))
    assert all(isinstance(c, Collector) for c in collectors)
    assert all_collectors() is not all_collectors()  # callers get their own list


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
