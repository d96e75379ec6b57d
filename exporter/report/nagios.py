"""The findings as a monitoring plugin judges them (Monitoring Plugins Development Guidelines):
a status, one status line ``NDB STATUS - text | perfdata``, long output after it, and exit
0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN. ``check`` prints it; ``report`` carries the same
status and exit code.

By default only the families that say whether the cluster is healthy make the status
(``DEFAULT_FAMILIES``); the tuning advice (distribution, queries, performance) is left to
the report and to ``--only``. A selected check that could not judge (its collector off or
failed) makes the status UNKNOWN; one with nothing to judge (not a replica, no tablespace)
does too when it was named with ``--only``, by id or as a family none of whose checks had
anything to judge.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ndbinfo_exporter.errors import ConfigError
from ndbinfo_exporter.health import rolling
from ndbinfo_exporter.health.findings import alerting, availability, evaluation, management
from ndbinfo_exporter.health.findings import replication as replication_checks
from ndbinfo_exporter.health.findings.check import Check
from ndbinfo_exporter.health.models import Finding
from ndbinfo_exporter.health.rolling_nodes import UnknownNode, binlog_servers
from ndbinfo_exporter.report import limits
from ndbinfo_exporter.report.options import FAMILIES, Options
from ndbinfo_exporter.report.reading import Reading
from ndbinfo_exporter.scrape.ndb_visibility import CAUSES
from ndbinfo_exporter.scrape.ndb_visibility import OK as VISIBLE

OK, WARNING, CRITICAL, UNKNOWN = 0, 1, 2, 3
STATUS = {OK: "OK", WARNING: "WARNING", CRITICAL: "CRITICAL", UNKNOWN: "UNKNOWN"}
CODE = {"unknown": UNKNOWN, "critical": CRITICAL, "warning": WARNING}
# Which status wins: CRITICAL over WARNING over UNKNOWN over OK.
RANK = {OK: 0, UNKNOWN: 1, WARNING: 2, CRITICAL: 3}
DEFAULT_FAMILIES = (
    "availability",
    "backup",
    "storage",
    "network",
    "replication",
    "configuration",
)
SERVICE = "NDB"
CHECKS = {check.id: check for check in evaluation.CHECKS}
# Passed, but with nothing to judge: this SQL node does not play the part the check is about.
NOTHING_TO_JUDGE = (
    replication_checks.NOT_A_REPLICA,
    replication_checks.NO_BINLOG,
    management.NO_MANAGEMENT_SERVER,
)
# Always evaluated: under them nothing else is judged healthy (evaluation.BLINDING).
BLINDING = (availability.NDB_NOT_VISIBLE, availability.CLUSTER_NOT_VISIBLE)


@dataclass(frozen=True)
class CheckSelection:
    """The checks ``--only`` selects, and the ids and families it named."""

    checks: tuple[Check, ...]
    named_ids: frozenset[str] = frozenset()  # checks named by id with --only
    named_families: tuple[str, ...] = ()  # families named with --only

    def evaluated(self) -> tuple[Check, ...]:
        """The checks to evaluate: the selected ones and those that blind the others."""
        ids = {c.id for c in self.checks} | {c.id for c in BLINDING}
        return tuple(c for c in evaluation.CHECKS if c.id in ids)


def select(only: tuple[str, ...]) -> CheckSelection:
    """The checks --only selects (ids, families or 'all'); ConfigError for a name that is
    neither."""
    if not only:
        return CheckSelection(tuple(c for c in evaluation.CHECKS if c.family in DEFAULT_FAMILIES))
    ids: set[str] = set()
    named_ids, families = set(), []
    for name in only:
        if name == "all":
            ids |= set(CHECKS)
        elif name in FAMILIES:
            families.append(name)
            ids |= {c.id for c in evaluation.CHECKS if c.family == name}
        elif name in CHECKS:
            named_ids.add(name)
            ids.add(name)
        else:
            raise ConfigError(
                f"--only: {name!r} is neither a check id nor a family ({', '.join(FAMILIES)})"
            )
    checks = tuple(c for c in evaluation.CHECKS if c.id in ids)
    return CheckSelection(checks, frozenset(named_ids), tuple(families))


@dataclass(frozen=True)
class Verdict:
    code: int
    text: str
    perfdata: str = ""
    details: tuple[str, ...] = ()  # long output: one line each
    verbose: tuple[str, ...] = ()  # shown with -v

    @property
    def status(self) -> str:
        return STATUS[self.code]

    def output(self, verbosity: int = 0) -> str:
        line = f"{SERVICE} {self.status} - {self.text}"
        lines = [f"{line} | {self.perfdata}" if self.perfdata else line, *self.details]
        if verbosity:
            lines += self.verbose
        return "\n".join(lines)


def unknown(reason: str) -> Verdict:
    return Verdict(UNKNOWN, reason)


def _one_line(text: str) -> str:
    return " ".join(text.split())


def unreadable(reading: Reading, options: Options) -> Verdict | None:
    """The verdict when the cluster cannot be read through this SQL node: out of time
    (UNKNOWN), not reached, login refused or NDB not visible (--unreachable-state)."""
    result = reading.result
    if reading.timed_out is not None:
        return unknown(f"timed out after {options.timeout:g} s waiting for {reading.timed_out}")
    state = CODE[options.unreachable_state]
    if not result.up:
        error = _one_line(result.error or "no answer")
        if "1045" in error or "access denied" in error.lower():
            return Verdict(state, f"access denied by the SQL node {result.target}: {error}")
        return Verdict(state, f"SQL node {result.target} cannot be reached: {error}")
    visibility = reading.cluster.sql_node.ndb_visibility
    if visibility not in (None, VISIBLE):
        reason = CAUSES.get(visibility, visibility)
        return Verdict(state, f"NDB is not visible from the SQL node {result.target}: {reason}")
    return None


def _read(reading: Reading, check: Check) -> bool:
    """Every collector the check reads succeeded, or has nothing to read in this NDB version
    (skipped: the SQL node lacks its ndbinfo objects or version)."""
    samples = reading.inputs.samples if reading.inputs is not None else None
    return samples is not None and all(
        samples.value("ndb_exporter_collector_success", collector=name) == 1
        or samples.value("ndb_exporter_collector_skipped", collector=name) == 1
        for name in check.reads
    )


def _nothing_to_judge(reading: Reading, finding: Finding) -> bool:
    if finding.status == "ok":
        return finding.summary in NOTHING_TO_JUDGE
    return (
        finding.status == "unknown" and finding.id in CHECKS and _read(reading, CHECKS[finding.id])
    )


def _code(finding: Finding, warning_only: bool) -> int:
    if finding.severity == "critical" and not warning_only:
        return CRITICAL
    return WARNING if finding.severity in ("critical", "warning") else OK


def _not_judged(
    reading: Reading, selection: CheckSelection, chosen: list[Finding]
) -> list[Finding]:
    """The selected findings that make the status UNKNOWN."""
    idle = {f.id for f in chosen if _nothing_to_judge(reading, f)}
    named_idle: set[str] = set()
    for family in selection.named_families:
        members = {c.id for c in selection.checks if c.family == family}
        if members <= idle:  # a family named with --only that had nothing to judge
            named_idle |= members
    return [
        f
        for f in chosen
        if (f.status == "unknown" and f.id not in idle)
        or (f.id in idle and (f.id in selection.named_ids or f.id in named_idle))
    ]


def perfdata(reading: Reading, selection: CheckSelection, options: Options) -> str:
    """'label'=value[UOM];warn;crit;min;max of the selected checks, from their own limits."""
    if reading.inputs is None:
        return ""
    items: list[str] = []
    ids = {c.id for c in selection.checks}
    if availability.NODES_GONE.id in ids:
        items += limits.node_counts(reading.inputs)
    if availability.DEAD_REPLICAS.id in ids:
        dead = reading.inputs.samples.value("ndb_fragments_with_dead_replicas")
        if dead is not None:
            items.append(f"'fragments_dead_replicas'={limits.number(dead)};;0;0")
    for check in selection.checks:
        limit = limits.BY_CHECK.get(check.id)
        if limit is not None:
            measured = limits.measure(limit, reading.inputs, options.thresholds)
            if any(m.value is not None for m in measured):  # else nothing is measured here
                items += [m.perfdata() for m in measured]
    return " ".join(items)


def _line(finding: Finding, status: str) -> str:
    evidence = "".join(f" {e.label}: {e.value}." for e in finding.evidence)
    return f"[{status}] {finding.title} ({finding.id}): {finding.summary}{evidence}"


def _reasons(findings: list[Finding]) -> str:
    """The checks grouped by why they could not judge: 'a, b: why; c: why'."""
    by_reason: dict[str, list[str]] = {}
    for finding in findings:
        by_reason.setdefault(finding.summary.rstrip("."), []).append(finding.id)
    return "; ".join(f"{', '.join(ids)}: {reason}" for reason, ids in by_reason.items())


def beside_alerts(blocked: Verdict, findings: Sequence[Finding], options: Options) -> Verdict:
    """The verdict when the cluster cannot be read through this SQL node, and the firing
    alerts (--alerts-url) among ``findings``, which still say what paged: the worse of the
    two."""
    alerts = [f for f in findings if alerting.is_alert(f) and f.status == "problem"]
    counted = [f for f in alerts if _code(f, options.warning_only) != OK]
    if not counted:
        return blocked
    code = max([blocked.code, *(_code(f, options.warning_only) for f in counted)], key=RANK.get)
    text = " ".join([f"{blocked.text}.", *(f"{f.title}: {f.summary}" for f in counted)])
    return Verdict(
        code, _one_line(text), details=tuple(_line(f, f.severity.upper()) for f in alerts)
    )


def judge(reading: Reading, selection: CheckSelection, options: Options) -> Verdict:
    blocked = unreadable(reading, options)
    if blocked is not None:
        return beside_alerts(blocked, reading.findings, options)
    ids = {c.id for c in selection.checks}
    chosen = [f for f in reading.findings if f.id in ids or alerting.is_alert(f)]
    problems = [f for f in chosen if f.status == "problem"]
    counted = [f for f in problems if _code(f, options.warning_only) != OK]
    not_judged = _not_judged(reading, selection, chosen)
    codes = [_code(f, options.warning_only) for f in counted] + [UNKNOWN] * bool(not_judged)
    code = max(codes, key=RANK.__getitem__, default=OK)
    why = _reasons(not_judged)
    if counted:
        text = " ".join(f"{f.title}: {f.summary}" for f in counted)
        text += f" ({len(not_judged)} not judged: {why})" if not_judged else ""
    elif not_judged:
        text = f"not judged: {why}"
    else:
        judged = [f for f in chosen if f.status != "unknown" and not _nothing_to_judge(reading, f)]
        name = reading.cluster.sql_node.system_name or reading.result.target
        text = f"cluster {name}: {len(judged)} checks passed" + (
            f" ({len(problems)} informational)" if problems else ""
        )
    shown = {f.id for f in problems} | {f.id for f in not_judged}
    return Verdict(
        code,
        _one_line(text),
        perfdata(reading, selection, options),
        tuple(_line(f, f.severity.upper()) for f in problems)
        + tuple(_line(f, "UNKNOWN") for f in not_judged),
        tuple(_line(f, f.status.upper()) for f in chosen if f.id not in shown),
    )


# The performance data of the rolling restart answers: the nodes, the dead replicas and the
# limits of the checks they judge by.
ROLLING_PERFDATA = CheckSelection(
    (availability.NODES_GONE, availability.DEAD_REPLICAS, *rolling.CHECKS)
)
ANSWER_CODE = {"OK": OK, "CRITICAL": CRITICAL}


def answered(reading: Reading, options: Options) -> Verdict:
    """check --safe-to-stop N / --restart-done N: the health layer's answer (the view's
    /api/v1/nodes/N/... answers the same) as a status line, a reason a line. UNKNOWN when
    the cluster cannot be read or N names no node of it."""
    blocked = unreadable(reading, options)
    if blocked is not None:
        return beside_alerts(blocked, reading.findings, options)
    assert reading.inputs is not None and options.question is not None
    question, node_id = options.question
    servers = binlog_servers([reading.cluster], reading.cluster.sql_node.system_name)
    try:
        answer = rolling.ask(question, node_id, reading.inputs, reading.findings, servers)
    except UnknownNode as exc:
        return unknown(str(exc))
    code = ANSWER_CODE[answer.state]
    if options.warning_only and code == CRITICAL:
        code = WARNING
    return Verdict(
        code,
        _one_line(answer.summary),
        perfdata(reading, ROLLING_PERFDATA, options),
        tuple(_one_line(reason) for reason in answer.reasons),
    )
