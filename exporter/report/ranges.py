"""Threshold ranges as the Monitoring Plugins Development Guidelines define them.

``10`` alerts outside 0..10, ``10:`` below 10, ``~:10`` above 10, ``10:20`` outside 10..20,
``@10:20`` inside 10..20 (ends included).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ndbinfo_exporter.errors import ConfigError


@dataclass(frozen=True)
class Range:
    start: float  # -inf for ~
    end: float  # inf when no end is given
    inside: bool  # @: alert inside the range instead of outside
    text: str  # as given, for the performance data

    def alerts(self, value: float) -> bool:
        within = self.start <= value <= self.end
        return within if self.inside else not within


def _number(text: str, whole: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ConfigError(
            f"{whole!r} is not a threshold range (10, 10:, ~:10, 10:20, @10:20)"
        ) from None
    if not math.isfinite(value):
        raise ConfigError(f"{whole!r}: a range's ends are finite numbers")
    return value


def parse(text: str) -> Range:
    """A range; ConfigError with one line for anything else."""
    body = text.strip()
    inside = body.startswith("@")
    body = body.removeprefix("@")
    if not body:
        raise ConfigError(f"{text!r} is not a threshold range (10, 10:, ~:10, 10:20, @10:20)")
    if ":" in body:
        low, _, high = body.partition(":")
        start = -math.inf if low == "~" else _number(low, text) if low else 0.0
        end = _number(high, text) if high else math.inf
    else:
        start, end = 0.0, _number(body, text)
    if start > end:
        raise ConfigError(f"{text!r}: the start of a range is above its end")
    return Range(start, end, inside, text.strip())


def above(limit: float) -> Range:
    """The range that alerts above ``limit`` (and below 0), as a plain number says it."""
    return Range(0.0, limit, False, f"{limit:g}")
