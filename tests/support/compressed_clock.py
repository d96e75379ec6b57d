"""A rule evaluator's clock made faster: copies of the rule files whose windows, offsets and
`for` durations are divided by a factor, so that an hour of the rules is an hour of a
simulated cluster that runs that much faster than wall time (ndbsim --speed)."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

_DURATION = re.compile(r"(\d+)(ms|s|m|h|d|w|y)")
_UNIT_SECONDS = {"ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800, "y": 31536000}
_RANGE = re.compile(r"\[((?:\d+(?:ms|[smhdwy]))+)(?::((?:\d+(?:ms|[smhdwy]))*))?\]")
_OFFSET = re.compile(r"\boffset\s+((?:\d+(?:ms|[smhdwy]))+)")
_TIME_UNIT = re.compile(r'(?<![\w."])(3600|86400)(?![\w."])')


def duration_seconds(duration: str) -> float:
    return sum(int(n) * _UNIT_SECONDS[unit] for n, unit in _DURATION.findall(duration))


def _compressed(duration: str, factor: float) -> str:
    return f"{max(1, round(duration_seconds(duration) * 1000 / factor))}ms"


def _number(value: float) -> str:
    return str(int(value)) if value == int(value) else repr(value)


def compress_expr(expr: str, factor: float) -> str:
    """`expr` on a clock `factor` times faster. Rewrites, and nothing else:
    - every range `[d]` and subquery range `[d:s]` or `[d:]`: d (and s) divided by `factor`;
    - every `offset d`: d divided by `factor`;
    - the literals 3600 and 86400 (not part of a name, number or string): the seconds of an
      hour and of a day by which the rules turn Prometheus time (time(), per-second slopes)
      into hours or days, divided by `factor`, so that the values compared with the hour
      thresholds (26 h since the last backup, 24 h or 4 h to full) are cluster hours.
    Every other number stays: thresholds in hours (26, 24, 4), shares, and the amounts the
    cluster itself reports in cluster time (GCIs, seconds of uptime or of idle time).
    Durations become whole milliseconds (at least 1)."""
    expr = _RANGE.sub(
        lambda m: (
            "["
            + _compressed(m[1], factor)
            + (":" + _compressed(m[2], factor) if m[2] else ":" if m[2] == "" else "")
            + "]"
        ),
        expr,
    )
    expr = _OFFSET.sub(lambda m: "offset " + _compressed(m[1], factor), expr)
    return _TIME_UNIT.sub(lambda m: _number(int(m[1]) / factor), expr)


def compress_rules(rule_files: tuple[Path, ...], factor: float, into: Path) -> tuple[Path, ...]:
    """Copies of `rule_files` in directory `into` on a clock `factor` times faster: each rule's
    `expr` through compress_expr and its `for` divided by `factor`; names, labels and
    annotations unchanged."""
    into.mkdir(parents=True, exist_ok=True)
    copies = []
    for path in rule_files:
        document = yaml.safe_load(path.read_text())
        for group in document["groups"]:
            for rule in group["rules"]:
                rule["expr"] = compress_expr(rule["expr"], factor)
                if "for" in rule:
                    rule["for"] = _compressed(rule["for"], factor)
        copy = into / path.name
        copy.write_text(yaml.safe_dump(document, sort_keys=False))
        copies.append(copy)
    return tuple(copies)


def alert_expressions(rule_files: tuple[Path, ...]) -> dict[str, list[str]]:
    """Each alert's expressions in `rule_files` (a copy or the originals)."""
    found: dict[str, list[str]] = {}
    for path in rule_files:
        for group in yaml.safe_load(path.read_text())["groups"]:
            for rule in group["rules"]:
                if "alert" in rule:
                    found.setdefault(rule["alert"], []).append(rule["expr"])
    return found
