"""A panel that names an alert draws that alert's thresholds, as the rule files define them."""

from __future__ import annotations

import re

import pytest
from ndb_dashboards.alerts import alert_expressions, constants, threshold

from tests.dashboards.dashboard_queries import load_dashboards, panels

ALERT_NAME = re.compile(r"\bNdb[A-Z][A-Za-z0-9]+\b")
RULES = alert_expressions()
ALERTS = {name for name, _ in RULES}
NAMING = [
    (uid, panel)
    for uid, dashboard in load_dashboards().items()
    for panel in panels(dashboard)
    if ALERT_NAME.search(panel.get("description", ""))
]


def _steps(panel: dict) -> set[float]:
    steps = panel["fieldConfig"]["defaults"].get("thresholds", {}).get("steps", [])
    return {step["value"] for step in steps if step["value"] is not None}


def test_constants_are_the_comparisons_with_a_number():
    assert constants("x / (y > 0) > 0.8") == [0.8]
    assert constants("min(z) - time() < 14 * 86400") == [14 * 86400]
    assert constants("a == 1 and b >= 3 or c != 2") == [3]
    assert constants("sum(x) > 0") == [0]


def test_a_rule_with_several_constants_needs_a_choice():
    with pytest.raises(LookupError):
        threshold("NdbReplicationLagHigh")
    assert threshold("NdbReplicationLagHigh", after="seconds_behind_source") > 0


def test_the_alerts_the_panels_name_exist():
    named = {name for _, panel in NAMING for name in ALERT_NAME.findall(panel["description"])}
    assert named, "no panel names an alert"
    assert named <= ALERTS, f"panels name alerts no rule defines: {sorted(named - ALERTS)}"


@pytest.mark.parametrize(
    ("uid", "panel"), NAMING, ids=lambda v: v if isinstance(v, str) else v["title"]
)
def test_panel_draws_the_thresholds_of_the_alerts_it_names(uid, panel):
    where = f"{uid} / {panel['title']!r}"
    drawn = _steps(panel)
    for alert in set(ALERT_NAME.findall(panel["description"])):
        for (name, severity), expr in RULES.items():
            judged = {value for value in constants(expr) if value}
            if name != alert or not judged:
                continue
            # a count compared with `> n` is coloured from n + 1
            judged |= {value + 1 for value in judged if value == int(value)}
            assert drawn & judged, (
                f"{where} names {alert} ({severity}), which compares with {sorted(judged)}, "
                f"but draws {sorted(drawn)}"
            )
            if panel["type"] == "timeseries":
                style = panel["fieldConfig"]["defaults"]["custom"].get("thresholdsStyle", {})
                assert style.get("mode") == "line", f"{where}: {alert}'s threshold not drawn"
