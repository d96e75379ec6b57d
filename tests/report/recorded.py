"""Readings of recorded scrape results (tests/view/scrape_data.py, the view's unit-test data),
judged as ``check`` judges them: no process, no connection."""

from __future__ import annotations

from ndbinfo_exporter.collectors.registry import all_collectors
from ndbinfo_exporter.report import limits, nagios
from ndbinfo_exporter.report.nagios import Verdict
from ndbinfo_exporter.report.options import parse_options
from ndbinfo_exporter.report.reading import Reading, modelled

from tests.view import scrape_data

__all__ = ["judged", "reading", "scrape_data"]


def reading(result, *flags: str) -> Reading:
    options = parse_options("check", list(flags), all_collectors())
    selection = nagios.select(options.only)
    found = modelled(result, None, selection.evaluated(), ())
    rejudged = limits.rejudged(found.findings, found.inputs, options.thresholds)
    return Reading(found.result, found.cluster, found.inputs, rejudged, None, ())


def judged(result, *flags: str) -> Verdict:
    """What ``check FLAGS`` says of ``result``."""
    options = parse_options("check", list(flags), all_collectors())
    return nagios.judge(reading(result, *flags), nagios.select(options.only), options)
