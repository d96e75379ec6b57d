"""The alert rules' verdict as findings. An alert firing in the Prometheus or Alertmanager named
by ``--view.alerts-url`` (the view) or ``--alerts-url`` (``check``, ``report``) is a problem
at its own severity, beside the checks' findings: the conditions the rules judge are judged
once, and the view and ``check`` say what the page said. Pending alerts are not findings (the
rule's ``for`` has not passed); the view lists them with the alerts."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import groupby

from ndbinfo_exporter.health.findings.evaluation import ordered
from ndbinfo_exporter.health.models import Alert, AlertsView, Evidence, Finding

FAMILY = "alerts"
PREFIX = "alert_"  # an alert's finding is named alert_ and the alert's name
UNREADABLE = "alerts_unreadable"
SEVERITIES = ("critical", "warning", "info")
# Labels every alert of a cluster carries alike: not what tells two alerts of one rule apart.
COMMON_LABELS = frozenset({"alertname", "severity", "cluster", "job", "alertstate"})


def with_alerts(findings: Sequence[Finding], alerts: AlertsView) -> list[Finding]:
    """The checks' findings and the firing alerts' (or why they could not be read), in the
    order of the findings: problems first, most severe first."""
    return ordered([*alert_findings(alerts), *findings])


def alert_findings(alerts: AlertsView) -> list[Finding]:
    """One finding per firing alert rule; none without an alert source."""
    if alerts.source is None:
        return []
    if alerts.error is not None:
        return [unreadable(alerts.error)]
    firing = sorted((a for a in alerts.alerts if a.state == "firing"), key=lambda a: a.name)
    return [_finding(name, list(group)) for name, group in groupby(firing, key=lambda a: a.name)]


def is_alert(finding: Finding) -> bool:
    """The finding is an alert's, or says that the alerts could not be read."""
    return finding.id == UNREADABLE or finding.id.startswith(PREFIX)


def unreadable(error: str) -> Finding:
    return Finding(
        id=UNREADABLE,
        title="Alerts",
        status="unknown",
        severity="critical",
        summary=f"{error.rstrip('.')}: the alert rules' verdict is unknown.",
        promql='ALERTS{alertstate="firing", alertname=~"Ndb.+"}',
        sql="",
        guide="",
        advice="Check that the Prometheus or Alertmanager URL is right and reachable.",
    )


def _finding(name: str, alerts: list[Alert]) -> Finding:
    severity = min((_severity(a) for a in alerts), key=SEVERITIES.index)
    first = alerts[0]
    more = f" ({len(alerts)} alerts)" if len(alerts) > 1 else ""
    return Finding(
        id=f"{PREFIX}{name}",
        title=name,
        status="problem",
        severity=severity,
        summary=(first.summary or f"{name} is firing.") + more,
        evidence=[Evidence(label=_subject(a), value=a.summary or "firing") for a in alerts],
        promql=f'ALERTS{{alertname="{name}", alertstate="firing"}}',
        sql="",
        guide="",
        advice=f"Runbook: {first.runbook_url}" if first.runbook_url else f"See {first.link}.",
    )


def _severity(alert: Alert) -> str:
    """The alert's severity label; one the findings do not know pages as a warning."""
    return alert.severity if alert.severity in SEVERITIES else "warning"


def _subject(alert: Alert) -> str:
    labels = sorted((k, v) for k, v in alert.labels.items() if k not in COMMON_LABELS)
    return ", ".join(f"{k}={v}" for k, v in labels) or alert.name
