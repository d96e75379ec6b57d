"""Firing alerts as findings (health.findings.alerting): one per rule at the rule's severity,
ordered with the checks' findings; pending alerts are none; an unreadable source is unknown."""

from __future__ import annotations

from ndbinfo_exporter.health.findings.alerting import UNREADABLE, alert_findings, with_alerts
from ndbinfo_exporter.health.models import Alert, AlertsView, Finding

SOURCE = "http://prom:9090"


def alert(name: str, state: str = "firing", severity: str | None = "warning", **labels) -> Alert:
    return Alert(
        name=name,
        state=state,
        severity=severity,
        summary=f"{name} summary",
        labels={"alertname": name, "cluster": "demo", **labels},
        link=f"{SOURCE}/alerts",
    )


def ok(id_: str) -> Finding:
    return Finding(
        id=id_, title=id_, status="ok", severity="warning", summary="fine", promql="", sql="",
        guide="", advice="",
    )  # fmt: skip


def test_one_finding_per_firing_rule_at_its_worst_severity():
    view = AlertsView(
        source=SOURCE,
        alerts=[
            alert("NdbDataNodeDown", severity="critical", node_id="2"),
            alert("NdbDataNodeDown", severity="critical", node_id="3"),
            alert("NdbLcpStalled", state="pending"),
            alert("NdbOdd", severity="page"),
        ],
    )
    found = {f.id: f for f in alert_findings(view)}
    assert set(found) == {"alert_NdbDataNodeDown", "alert_NdbOdd"}
    down = found["alert_NdbDataNodeDown"]
    assert (down.status, down.severity) == ("problem", "critical")
    assert [e.label for e in down.evidence] == ["node_id=2", "node_id=3"]
    assert down.summary == "NdbDataNodeDown summary (2 alerts)"
    assert found["alert_NdbOdd"].severity == "warning"  # an unknown severity pages as warning


def test_alerts_come_first_among_problems_of_their_severity_and_none_without_a_source():
    checks = [ok("dead_replicas")]
    merged = with_alerts(checks, AlertsView(source=SOURCE, alerts=[alert("NdbNoArbitrator")]))
    assert [f.id for f in merged] == ["alert_NdbNoArbitrator", "dead_replicas"]
    assert with_alerts(checks, AlertsView(source=None, alerts=[])) == checks


def test_an_unreadable_source_leaves_the_verdict_unknown():
    view = AlertsView(source=SOURCE, alerts=[], error=f"cannot read alerts from {SOURCE}: HTTP 404")
    (finding,) = alert_findings(view)
    assert (finding.id, finding.status) == (UNREADABLE, "unknown")
    assert finding.summary.startswith("cannot read alerts from http://prom:9090: HTTP 404")
