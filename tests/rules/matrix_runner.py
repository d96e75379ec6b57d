"""Runs the rows of the fault-to-alert matrix (alert_matrix.py) against rule evaluators that
scrape simulated clusters, and watches a healthy cluster meanwhile.

The runner knows a rule evaluator only by three calls (RuleEvaluator): `query(expr)`,
`alerts()` (the labels of every pending or firing alert) and `rule_groups()` (the rule groups
with each rule's `health` and `lastError`), so that any server of the Prometheus HTTP API
shape (Prometheus, or vmalert in front of VictoriaMetrics) can be checked.

A lane is one simulated cluster (its `cluster` label, and its replica cluster's for the
replication rows) and the rows run on it one after another: each row's steps, then every
expected alert active on every evaluator and none other, with the labels its scope gives,
and the Overview, the cluster view and `check` saying what the alerts say (its target's
`judge`); then the row's undo steps, and every alert resolved but those its rule keeps for a window
(`lingers`), which later rows of the lane may find still active.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

from tests.rules.alert_matrix import PER_SQL_NODE, Row, Step
from tests.support import binlog_failover

POLL_SECONDS = 10.0  # rules are evaluated every 15 s
# At the shipped intervals a fault reaches the rules within a cluster-wide scrape (30 s),
# its scrape time and an evaluation (15 s): twice that, and room for a busy machine.
FAULT_SECONDS = 150.0
RESOLVE_SECONDS = 150.0
# Rows whose signal needs longer: an idle transaction past 60 s; a GCI unchanged for 1 m;
# 5-minute averages of 30-second samples.
SLOW_ROWS = {
    "long-transaction": 240.0,
    "gcp-save-lag": 240.0,
    "gcp-save-lag-subscriber": 240.0,
    "gcp-stall": 240.0,
}
QUIET_SECONDS = 45.0  # a row that must make no alert active: a cluster scrape and evaluations
# A data node (re)started by a row is down for a moment: the alerts of a stopped node may be
# pending meanwhile (their `for` keeps them from firing), its fragments' primaries are not yet
# back on it; and the restart counts: a restart alert and, with other restarts of the last 15
# minutes, one of the links reconnecting (RESTART_LINGERS) stay for their window.
RESTART_LINGERS = frozenset({"NdbDataNodeRestarted", "NdbTransporterFlapping"})
RESTART_PENDING = RESTART_LINGERS | {
    "NdbDataNodeDown",
    "NdbDataNodeNotStarted",
    "NdbNodeGroupDegraded",
    "NdbDeadFragmentReplicas",
    "NdbPrimariesNotOnPreferredNode",
}


class RuleEvaluator(Protocol):
    def query(self, expr: str) -> list[dict]: ...

    def alerts(self) -> list[dict[str, str]]: ...

    def rule_groups(self) -> list[dict]: ...


@dataclass
class Target:
    """What a lane acts on: ndbsim's control (NdbsimControl), the cluster labels its alerts
    carry, which of ndbsim's clusters takes the steps, how to stop an SQL node's exporter,
    and what is wrong with the other judges' verdicts (the Overview, the view, `check`:
    matrix_judges.py) while a row's alerts are active."""

    sim: Any
    clusters: frozenset[str]
    sim_cluster: str | None = None  # "replica": the replica cluster of ndbsim --replica
    stop_exporter: Callable[[int], None] = lambda node: None
    judge: Callable[[frozenset[str]], list[str]] = lambda alerts: []
    # what is wrong with the judges' verdicts on a cluster that must be healthy throughout the
    # window given (a PromQL range)
    judge_healthy: Callable[[str], list[str]] = lambda window: []


@dataclass
class Outcome:
    row: str
    problems: list[str] = field(default_factory=list)
    seconds_to_active: float | None = None
    seconds_to_resolve: float | None = None

    def line(self) -> str:
        def seconds(value: float | None) -> str:
            return "-" if value is None else f"{value:.0f} s"

        text = (
            f"{self.row}: active after {seconds(self.seconds_to_active)}, "
            f"resolved after {seconds(self.seconds_to_resolve)}"
        )
        return "; ".join([text, *self.problems])


def active(evaluator: RuleEvaluator, clusters: frozenset[str]) -> list[dict[str, str]]:
    return [a for a in evaluator.alerts() if a.get("cluster") in clusters]


def names(alerts: Iterable[dict[str, str]]) -> set[str]:
    return {a["alertname"] for a in alerts}


def scope_problems(alerts: list[dict[str, str]], expected: frozenset[str]) -> list[str]:
    """An alert of a cluster-wide signal names no SQL node: were it to carry `instance` or
    `job`, each exporter reporting the signal would make one more."""
    return [
        f"{a['alertname']} names an SQL node or job: {a}"
        for a in alerts
        if a["alertname"] in expected
        and a["alertname"] not in PER_SQL_NODE
        and ({"instance", "job"} & set(a))
    ]


def apply(step: Step, target: Target) -> None:
    sim, cluster = target.sim, step.cluster or target.sim_cluster
    if step.action == "fault":
        sim.fault(step.name, cluster=cluster, **step.params)
    elif step.action == "clear":
        sim.clear(step.name, cluster=cluster)
    elif step.action == "stop":
        sim.stop_node(step.node, cluster=cluster)
    elif step.action == "start":
        sim.start_node(step.node, cluster=cluster)
    elif step.action == "restart":
        sim.stop_node(step.node, cluster=cluster)
        sim.start_node(step.node, cluster=cluster)
        wait_started(sim, step.node, cluster)
    elif step.action == "backup":
        sim.start_backup()
    elif step.action == "wait":
        time.sleep(step.params["seconds"])
    elif step.action == "stop-exporter":
        target.stop_exporter(step.node)
    elif step.action == "purge-binlogs":
        binlog_failover.purge_binary_logs(sim.account(f"sql{step.node}"))
    elif step.action == "failover":
        applier = min(sim.sql_node_ports("replica"))
        binlog_failover.fail_over(
            sim.account(f"replica_sql{applier}"), sim.account(f"sql{step.node}")
        )
    else:
        raise ValueError(f"unknown step {step.action}")


def wait_started(sim: Any, node: int, cluster: str | None) -> None:
    deadline = time.monotonic() + 60.0
    while time.monotonic() < deadline:
        states = {n["node_id"]: n["state"] for n in sim.status(cluster)["nodes"]}
        if states.get(node) in ("STARTED", "CONNECTED"):
            return
        time.sleep(0.5)


@dataclass
class Lane:
    """Rows run one after another on one target, against every evaluator."""

    name: str
    target: Target
    rows: tuple[Row, ...]
    evaluators: dict[str, RuleEvaluator]
    lingering: set[str] = field(default_factory=set)
    outcomes: list[Outcome] = field(default_factory=list)

    def run(self, deadline: float = float("inf")) -> list[Outcome]:
        """Every row, while time.monotonic() is before `deadline`: a row not begun by then is
        reported as not run."""
        for row in self.rows:
            outcome = Outcome(row.name)
            self.outcomes.append(outcome)
            if time.monotonic() > deadline:
                outcome.problems.append("not run: the lane is out of time")
                continue
            try:
                self.run_row(row, outcome)
            except Exception as exc:  # one row's error is reported with the others'
                outcome.problems.append(f"{type(exc).__name__}: {exc}")
            print(f"{self.name}: {outcome.line()}", flush=True)
        return self.outcomes

    def snapshot(self) -> dict[str, list[dict[str, str]]]:
        return {name: active(e, self.target.clusters) for name, e in self.evaluators.items()}

    def run_row(self, row: Row, outcome: Outcome) -> None:
        for step in row.steps:
            apply(step, self.target)
        began = time.monotonic()  # the row's alerts are waited for from its last step
        starts = {"restart", "start"} & {s.action for s in (*row.steps, *row.undo_steps())}
        allowed = (
            row.alerts | self.lingering | row.settling | (RESTART_PENDING if starts else set())
        )
        extra: set[str] = set()
        timeout = max(SLOW_ROWS.get(row.name, FAULT_SECONDS), row.quiet_seconds or 0.0)
        last: dict[str, list[dict[str, str]]] = {}
        while True:
            last = self.snapshot()
            for alerts in last.values():
                extra |= names(alerts) - allowed
            if row.alerts and all(row.alerts <= names(a) for a in last.values()):
                outcome.seconds_to_active = time.monotonic() - began
                break
            if not row.alerts and time.monotonic() - began > (row.quiet_seconds or QUIET_SECONDS):
                break
            if time.monotonic() - began > timeout:
                missing = {n: sorted(row.alerts - names(a)) for n, a in last.items()}
                outcome.problems.append(f"not active within {timeout:.0f} s: {missing}")
                break
            time.sleep(POLL_SECONDS)
        for alerts in last.values():
            outcome.problems += scope_problems(alerts, row.alerts)
        if outcome.seconds_to_active is not None:
            outcome.problems += self.target.judge(row.alerts)
        if row.healthy:
            outcome.problems += self.target.judge_healthy(f"{int(time.monotonic() - began)}s")
        outcome.problems += self.missing_evidence(row.evidence, row.evidence_seconds)
        if extra:
            outcome.problems.append(f"active though not expected: {sorted(extra)}")
        if starts:
            self.lingering |= RESTART_LINGERS
        if not row.final:
            self.resolve(row, outcome)

    def missing_evidence(self, evidence: tuple[str, ...], seconds: float | None) -> list[str]:
        """The evidence expressions that return no series of the lane's clusters, waited for
        `seconds` or as long as a fault's alerts (the exporters read the cluster log as it
        comes)."""
        matcher = f'cluster=~"{"|".join(sorted(self.target.clusters))}"'
        missing = [expr.replace("CLUSTER", matcher) for expr in evidence]
        deadline = time.monotonic() + (seconds or FAULT_SECONDS)
        while missing and time.monotonic() < deadline:
            missing = [
                expr for expr in missing if not all(e.query(expr) for e in self.evaluators.values())
            ]
            if missing:
                time.sleep(POLL_SECONDS)
        return [f"no evidence: {expr}" for expr in missing]

    def resolve(self, row: Row, outcome: Outcome) -> None:
        """The row's undo steps, then every alert resolved but those that stay."""
        for step in row.undo_steps():
            apply(step, self.target)
        began = time.monotonic()
        stays = self.lingering | row.lingers | row.after_clear
        while True:
            left = {n: names(a) - stays for n, a in self.snapshot().items()}
            if not any(left.values()):
                outcome.seconds_to_resolve = time.monotonic() - began
                break
            if time.monotonic() - began > RESOLVE_SECONDS:
                outcome.problems.append(f"not resolved within {RESOLVE_SECONDS:.0f} s: {left}")
                break
            time.sleep(POLL_SECONDS)
        outcome.problems += self.missing_evidence(row.evidence_after_clear, None)
        self.lingering |= row.lingers | row.after_clear


def rule_errors(evaluator: RuleEvaluator) -> list[tuple[str, str]]:
    """(rule, error) of every rule whose last evaluation failed."""
    return [
        (rule["name"], rule.get("lastError", ""))
        for group in evaluator.rule_groups()
        for rule in group["rules"]
        if rule.get("health") != "ok" or rule.get("lastError")
    ]


@dataclass
class HealthyWatch:
    """Polls the healthy clusters for `seconds`: every alert ever active on them, and every
    rule evaluation error (of any cluster's series)."""

    evaluators: dict[str, RuleEvaluator]
    clusters: frozenset[str]
    seconds: float
    interval: float = 30.0  # the test also reads the ALERTS series of every evaluation
    seen: dict[str, set[str]] = field(default_factory=dict)
    errors: set[tuple[str, str, str]] = field(default_factory=set)
    polls: int = 0

    def run(self) -> None:
        end = time.monotonic() + self.seconds
        while True:
            self.poll()
            if time.monotonic() >= end:
                return
            time.sleep(min(self.interval, max(0.0, end - time.monotonic())))

    def poll(self) -> None:
        self.polls += 1
        for name, evaluator in self.evaluators.items():
            for alert in active(evaluator, self.clusters):
                self.seen.setdefault(name, set()).add(
                    f"{alert['alertname']}{{cluster={alert.get('cluster')}}}"
                )
            self.errors |= {(name, rule, error) for rule, error in rule_errors(evaluator)}
