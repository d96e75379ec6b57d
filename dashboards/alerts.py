"""The alert rules' thresholds, read from the rule files the alerts are evaluated from.

A panel that shows what an alert judges draws that alert's thresholds. They are taken from
provisioning/prometheus/rules/*.yml when the dashboards are generated, so a threshold is
written once, in the rule, and a changed rule changes the dashboards at their next
generation (the generated-dashboards test fails until they are regenerated).
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import yaml

RULES = Path(__file__).resolve().parents[1] / "provisioning" / "prometheus" / "rules"

# `> 0.8`, `>= 3`, `< 14 * 86400`: a comparison with a constant (not `==`/`!=`).
_COMPARISON = re.compile(
    r"(?<![=!<>])[<>]=?\s*(\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)(?:\s*\*\s*(\d+(?:\.\d+)?))?"
)


@cache
def alert_expressions() -> dict[tuple[str, str], str]:
    """(alert name, severity) -> the rule's expression, for every alerting rule."""
    found: dict[tuple[str, str], str] = {}
    for path in sorted(RULES.glob("*.y*ml")):
        document = yaml.safe_load(path.read_text()) or {}
        for group in document.get("groups", []):
            for rule in group.get("rules", []):
                if "alert" in rule:
                    severity = rule.get("labels", {}).get("severity", "")
                    found[(rule["alert"], severity)] = " ".join(rule["expr"].split())
    return found


def constants(expr: str) -> list[float]:
    """The constants ``expr`` compares with (``> 0`` guards left out when others exist)."""
    values = []
    for match in _COMPARISON.finditer(expr):
        value = float(match.group(1))
        if match.group(2):
            value *= float(match.group(2))
        values.append(value)
    nonzero = [value for value in values if value]
    return nonzero or values


def threshold(alert: str, severity: str | None = None, after: str | None = None) -> float:
    """The constant an alert compares with; ``after`` picks the first comparison that follows
    that text of the expression, when the rule compares several signals."""
    exprs = [
        expr
        for (name, rule_severity), expr in alert_expressions().items()
        if name == alert and severity in (None, rule_severity)
    ]
    if len(exprs) != 1:
        raise LookupError(f"{alert} (severity {severity}): {len(exprs)} rules, expected one")
    expr = exprs[0]
    if after is not None:
        if after not in expr:
            raise LookupError(f"{alert}: {after!r} is not in its expression")
        expr = expr[expr.index(after) :]
        values = constants(expr)[:1]
    else:
        values = sorted(set(constants(expr)))
    if len(values) != 1:
        raise LookupError(f"{alert}: compares with {values}, expected one constant")
    return values[0]
