"""``check``: the findings as a monitoring plugin sees them (monitoring-plugins guidelines):
one status line ``NDB STATUS - text | perfdata``, the selected problems on the lines after
it, and exit 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN.

By default only the families that say whether the cluster is healthy make the status
(``DEFAULT_FAMILIES``); the tuning advice (distribution, queries, performance) is left to
the report and to ``--only``. The thresholds of the performance data are those of
``view/thresholds.py``, the same numbers as the findings and the alert rules.
"""

from __future__ import annotations

from dataclasses import dataclass

from ndbinfo_exporter.errors import ConfigError
from ndbinfo_exporter.report.document import FAMILIES, FAMILY, Report, ReportFinding
from ndbinfo_exporter.view import thresholds

OK, WARNING, CRITICAL, UNKNOWN = 0, 1, 2, 3
STATUS = {OK: "OK", WARNING: "WARNING", CRITICAL: "CRITICAL", UNKNOWN: "UNKNOWN"}
DEFAULT_FAMILIES = ("availability", "storage", "network", "replication", "configuration")
SERVICE = "NDB"


@dataclass(frozen=True)
class Outcome:
    code: int
    output: str  # the status line, then one line per selected problem


def selection(only: tuple[str, ...]) -> set[str]:
    """The finding ids selected by --only (ids, families or 'all'); ConfigError for a name
    that is neither."""
    if not only:
        return {id for id, family in FAMILY.items() if family in DEFAULT_FAMILIES}
    chosen: set[str] = set()
    for name in only:
        if name == "all":
            chosen |= set(FAMILY)
        elif name in FAMILIES:
            chosen |= {id for id, family in FAMILY.items() if family == name}
        elif name in FAMILY:
            chosen.add(name)
        else:
            raise ConfigError(
                f"--only: {name!r} is neither a finding id nor a family ({', '.join(FAMILIES)})"
            )
    return chosen


def unknown(reason: str) -> Outcome:
    return Outcome(UNKNOWN, f"{SERVICE} UNKNOWN - {reason}")


def _code(finding: ReportFinding, warning_only: bool) -> int:
    if finding.severity == "critical" and not warning_only:
        return CRITICAL
    return WARNING if finding.severity in ("critical", "warning") else OK


def evaluate(report: Report, only: tuple[str, ...] = (), warning_only: bool = False) -> Outcome:
    chosen = selection(only)
    if not report.reachable:
        return unknown(f"SQL node {report.target} cannot be reached: {report.error}")
    if not report.ndb_visible:
        return unknown(
            f"NDB is not visible from the SQL node {report.target}: "
            f"{report.ndb_not_visible_reason or report.ndb_visibility}"
        )
    problems = [f for f in report.findings if f.status == "problem" and f.id in chosen]
    code = max((_code(f, warning_only) for f in problems), default=OK)
    judged = [f for f in report.findings if f.id in chosen and f.status != "unknown"]
    counted = [f for f in problems if _code(f, warning_only) != OK]
    if counted:
        text = " ".join(f"{f.title}: {f.summary}" for f in counted)
    else:
        name = report.cluster.name if report.cluster else None
        text = f"cluster {name or report.target}: {len(judged)} checks passed" + (
            f" ({len(problems)} informational)" if problems else ""
        )
    lines = [f"{SERVICE} {STATUS[code]} - {text} | {perfdata(report)}"]
    lines += [
        f"[{f.severity.upper()}] {f.title} ({f.id}): {f.summary}"
        + "".join(f" {e.label}: {e.value}." for e in f.evidence)
        for f in problems
    ]
    return Outcome(code, "\n".join(lines))


def _label(name: str) -> str:
    return "'" + name.replace("'", "") + "'"


def _percent(name: str, ratio: float, warn: float, crit: float) -> str:
    return f"{_label(name)}={ratio * 100:.2f}%;{warn * 100:g};{crit * 100:g};0;100"


def perfdata(report: Report) -> str:
    """DataMemory and redo log used per data node, fragments with dead replicas, data nodes
    ready and, on a replica, its lag: 'label'=value[UOM];warn;crit;min;max."""
    items: list[str] = []
    for r in report.resources:
        if r.data_memory_ratio is not None:
            items.append(
                _percent(
                    f"data_memory_node_{r.node_id}",
                    r.data_memory_ratio,
                    thresholds.DATA_MEMORY_WARNING,
                    thresholds.DATA_MEMORY_CRITICAL,
                )
            )
        if r.redo_ratio is not None:
            items.append(
                _percent(
                    f"redo_node_{r.node_id}",
                    r.redo_ratio,
                    thresholds.REDO_WARNING,
                    thresholds.REDO_CRITICAL,
                )
            )
    if report.fragments_with_dead_replicas is not None:
        items.append(f"'fragments_dead_replicas'={report.fragments_with_dead_replicas};;0;0")
    cluster = report.cluster
    if cluster is not None and cluster.data_nodes_ready is not None:
        total = _text(cluster.data_nodes_configured)
        items.append(f"'data_nodes_ready'={cluster.data_nodes_ready};;;0;{total}")
    for channel in report.replication.channels if report.replication else []:
        if channel.seconds_behind_source is not None:
            name = channel.channel or "default"
            items.append(
                f"{_label('replication_lag_' + name)}={channel.seconds_behind_source:g}s;"
                f"{thresholds.REPLICATION_LAG_SECONDS};;0"
            )
    return " ".join(items)


def _text(value: int | None) -> str:
    return "" if value is None else str(value)
