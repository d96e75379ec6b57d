"""Conventions every NDB alert and recording rule keeps: names, labels, annotations, runbook
links, metric names from the contract, and promtool cases on both sides of each alert."""

import re
from pathlib import Path

import pytest

from tests.rules.alert_matrix import ROWS
from tests.rules.rules_model import (
    PROMETHEUS_METRICS,
    RUNBOOK_URL,
    alert_names,
    alert_rules,
    by_clauses,
    contract_metric_names,
    metric_names,
    recording_rules,
    runbook_anchors,
    unit_test_cases,
)
from tests.rules.slow_alerts import SCENARIO

SEVERITIES = {"critical", "warning", "info"}
# Alerts about something being down must keep firing for as long as it is down.
DOWN_ALERTS = {"NdbDataNodeDown", "NdbClusterDown", "NdbNodeGroupDegraded", "NdbManagementNodeDown"}
WITHOUT_INSTANCE_JOB = re.compile(r"\bwithout\s*\(\s*instance\s*,\s*job\b")
PAST_VALUE_FUNCTIONS = re.compile(
    r"\boffset\b|\bchanges\s*\(|_over_time\s*\(|\bdelta\s*\(|\bresets\s*\("
)


def alert_ids():
    return [f"{rule['alert']}-{rule['labels']['severity']}" for rule in alert_rules()]


@pytest.mark.parametrize("rule", alert_rules(), ids=alert_ids())
def test_alert_name_is_camel_case_with_ndb_prefix(rule):
    assert re.fullmatch(r"Ndb(?:[A-Z][a-z0-9]+)+", rule["alert"])


@pytest.mark.parametrize("rule", alert_rules(), ids=alert_ids())
def test_alert_has_severity_summary_description_and_runbook(rule):
    assert rule["labels"]["severity"] in SEVERITIES
    annotations = rule["annotations"]
    assert annotations["summary"].strip()
    assert annotations["description"].strip()
    assert "$labels." in annotations["description"], "the description names what is affected"
    assert annotations["runbook_url"] == RUNBOOK_URL + rule["alert"].lower()


@pytest.mark.parametrize("rule", alert_rules(), ids=alert_ids())
def test_runbook_url_points_to_an_existing_section(rule):
    anchor = rule["annotations"]["runbook_url"].rsplit("#", 1)[1]
    assert anchor in runbook_anchors(), f"docs/runbook.md has no section #{anchor}"


def test_every_runbook_alert_section_has_an_alert():
    sections = {anchor for anchor in runbook_anchors() if anchor.startswith("ndb")}
    assert sections == {name.lower() for name in alert_names()}


@pytest.mark.parametrize(
    "rule",
    alert_rules() + recording_rules(),
    ids=[*alert_ids(), *(rule["record"] for rule in recording_rules())],
)
def test_rule_uses_only_contract_or_recorded_metrics(rule):
    known = contract_metric_names() | PROMETHEUS_METRICS | {r["record"] for r in recording_rules()}
    unknown = metric_names(rule["expr"]) - known
    assert not unknown, f"not in docs/metric-names.md nor recorded: {sorted(unknown)}"


def test_metric_name_extraction():
    expr = 'sum by (cluster, node_id) (rate(ndb_x_total{a="b(c)"}[5m])) / on (cluster) group_left () ndb_y > 0 and up'
    assert metric_names(expr) == {"ndb_x_total", "ndb_y", "up"}


@pytest.mark.parametrize(
    "rule", recording_rules(), ids=[rule["record"] for rule in recording_rules()]
)
def test_recording_rule_is_named_level_metric_operation_and_keeps_cluster(rule):
    """SQL-node rules (level instance) keep the instance; data-node rules count a data node
    once whichever SQL nodes report it: their outer aggregation drops the instance, either
    `by` labels without it or, as the alerts do (keeping every other label of the target),
    `without (instance, job)`; a rule without aggregation reads only such recorded series."""
    assert re.fullmatch(r"[a-z]+:ndb_[a-z0-9_]+:[a-z0-9_]+", rule["record"])
    clauses = by_clauses(rule["expr"])
    for labels in clauses:
        assert "cluster" in labels, labels
    if rule["record"].startswith("instance:"):
        assert all("instance" in labels for labels in clauses)
    elif clauses:
        assert "instance" not in clauses[0], clauses[0]
    else:
        data_node_rules = {
            r["record"] for r in recording_rules() if not r["record"].startswith("instance:")
        }
        read = metric_names(rule["expr"])
        assert WITHOUT_INSTANCE_JOB.search(rule["expr"]) or (read and read <= data_node_rules), (
            "no `by` aggregation: aggregate `without (instance, job)` or read recorded series"
        )


@pytest.mark.parametrize("name", sorted(DOWN_ALERTS))
def test_down_alerts_do_not_compare_with_past_values(name):
    for rule in alert_rules():
        if rule["alert"] == name:
            assert not PAST_VALUE_FUNCTIONS.search(rule["expr"]), rule["expr"]


@pytest.mark.parametrize("name", alert_names())
def test_every_alert_has_a_firing_and_a_quiet_promtool_case(name):
    cases = [case for case in unit_test_cases() if case["alertname"] == name]
    assert any(case.get("exp_alerts") for case in cases), f"no promtool case where {name} fires"
    assert any(not case.get("exp_alerts") for case in cases), (
        f"no promtool case where {name} is quiet"
    )
    for case in cases:
        for alert in case.get("exp_alerts") or []:
            assert alert.get("exp_labels") and alert.get("exp_annotations")


def test_every_severity_of_an_alert_fires_in_a_promtool_case():
    fired = {
        (case["alertname"], alert["exp_labels"]["severity"])
        for case in unit_test_cases()
        for alert in case.get("exp_alerts") or []
    }
    declared = {(rule["alert"], rule["labels"]["severity"]) for rule in alert_rules()}
    assert declared <= fired, sorted(declared - fired)


def test_every_alert_has_an_end_to_end_case():
    """Each alert is made active by its fault in the fault-to-alert matrix (alert_matrix.py,
    run by test_alert_matrix.py), by its fault on the compressed clock of
    test_e2e_slow_alerts.py (slow_alerts.SCENARIO), for a SQL node without NDB by a MariaDB
    server in test_e2e_engine.py, or, for a site missing from a two-site pair, by Thanos in
    test_thanos_sites.py. NdbSqlNodeDisconnected has its promtool cases only: every SQL node
    of an ndbsim cluster sees the same data nodes."""
    matrix = {alert for row in ROWS for alert in row.alerts}
    slow = set(SCENARIO)
    elsewhere = "".join(
        (Path(__file__).parent / name).read_text()
        for name in ("test_e2e_engine.py", "test_thanos_sites.py")
    )
    assert [
        name for name in alert_names() if name not in matrix | slow and f'"{name}"' not in elsewhere
    ] == ["NdbSqlNodeDisconnected"]
