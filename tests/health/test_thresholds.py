"""The view's thresholds are the alert rules' thresholds."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from ndbinfo_exporter.health import thresholds

RULES = Path(__file__).parents[2] / "provisioning" / "prometheus" / "rules"
# "> 0.8", "> 300": the comparisons of an expression; "> 0" only filters (rate > 0, total > 0).
COMPARISON = re.compile(r">\s*([0-9]+(?:\.[0-9]+)?)\b")
# "< 0.1": an alert on the free share, where the view compares the used share.
BELOW = re.compile(r"<\s*([0-9]+(?:\.[0-9]+)?)\b")
# "== 1590": an alert on one value; "== 1" only selects the current state of an enum.
EQUALS = re.compile(r"==\s*([0-9]+)\b")
# "[15m]": the window of a range selector.
WINDOW = re.compile(r"\[([0-9]+)([smh])\]")


def alert_expressions() -> dict[str, str]:
    groups = [g for path in RULES.glob("*.yml") for g in yaml.safe_load(path.read_text())["groups"]]
    return {r["alert"]: r["expr"] for g in groups for r in g["rules"] if "alert" in r}


@pytest.mark.parametrize(("alert", "threshold"), sorted(thresholds.ALERTS.items()))
def test_alert_compares_with_the_views_threshold(alert, threshold):
    expr = alert_expressions()[alert]
    compared = {float(n) for n in COMPARISON.findall(expr)} - {0.0}
    expected = set(threshold) if isinstance(threshold, tuple) else {threshold}
    assert compared == expected, f"{alert}: {expr}"


@pytest.mark.parametrize(("alert", "seconds"), sorted(thresholds.WINDOW_ALERTS.items()))
def test_alert_looks_back_over_the_views_window(alert, seconds):
    expr = alert_expressions()[alert]
    unit = {"s": 1, "m": 60, "h": 3600}
    windows = {int(n) * unit[u] for n, u in WINDOW.findall(expr)}
    assert windows == {seconds}, f"{alert}: {expr}"


@pytest.mark.parametrize(("alert", "value"), sorted(thresholds.EQUALITY_ALERTS.items()))
def test_equality_alert_tests_the_views_value(alert, value):
    expr = alert_expressions()[alert]
    assert {int(n) for n in EQUALS.findall(expr)} - {1} == {value}, f"{alert}: {expr}"


@pytest.mark.parametrize(("alert", "used"), sorted(thresholds.FREE_SHARE_ALERTS.items()))
def test_free_share_alert_compares_with_the_complement_of_the_views_threshold(alert, used):
    expr = alert_expressions()[alert]
    assert [float(n) for n in BELOW.findall(expr)] == [pytest.approx(1 - used)], f"{alert}: {expr}"


@pytest.mark.parametrize(("alert", "threshold"), sorted(thresholds.BELOW_ALERTS.items()))
def test_alert_fires_below_the_views_threshold(alert, threshold):
    expr = alert_expressions()[alert]
    assert {float(n) for n in BELOW.findall(expr)} == {threshold}, f"{alert}: {expr}"
