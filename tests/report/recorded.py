"""Readings of recorded scrape results (tests/health/scrape_data.py, the health layer's
unit-test data), judged as ``check`` judges them: no process, no connection."""

from __future__ import annotations

from ndbinfo_exporter.collectors.registry import all_collectors
from ndbinfo_exporter.report import document, limits, nagios
from ndbinfo_exporter.report.nagios import Verdict
from ndbinfo_exporter.report.options import parse_options
from ndbinfo_exporter.report.reading import Reading, modelled

from tests.health import scrape_data

__all__ = ["judged", "reading", "reported", "scrape_data"]


def reading(result, *flags: str, management=None) -> Reading:
    options = parse_options("check", list(flags), all_collectors())
    selection = nagios.select(options.only)
    found = modelled(result, None, selection.evaluated(), (), management=management)
    rejudged = limits.rejudged(found.findings, found.inputs, options.thresholds)
    return Reading(
        found.result, found.cluster, found.inputs, rejudged, None, (), management=management
    )


def judged(result, *flags: str, management=None) -> Verdict:
    """What ``check FLAGS`` says of ``result`` (and of the management server's ``management``,
    a ManagementState, when one is read)."""
    options = parse_options("check", list(flags), all_collectors())
    found = reading(result, *flags, management=management)
    return nagios.judge(found, nagios.select(options.only), options)


def reported(result) -> document.Report:
    """What ``report`` (default flags) builds of ``result``."""
    found = reading(result)
    options = parse_options("report", [], all_collectors())
    return document.build(found, options, nagios.judge(found, nagios.select(()), options))
