"""The three judges beside the alerts, read on every row of the matrix and on the healthy
clusters: the Overview's status (the recording rule `cluster:ndb_status:min`), the cluster
view's findings (/api/v1/findings of the exporters) and `ndbinfo-exporter check`.

Each reads the alerts' own verdict: the status from ALERTS, the view through
--view.alerts-url and `check` through --alerts-url. The runner counts a pending alert as
active (the `for` durations are the promtool tests'), so the judges are read the same way:
the status expression with `alertstate` widened to pending, and the view and `check` through
FiringProxy, which shows them Prometheus' pending alerts as firing.

What each judge must say of a row's alerts, by the worst severity among them (SEVERITY):
critical or warning, a status below HEALTHY (CRITICAL or worse for critical), a finding of
each alert at its severity, `check` WARNING or CRITICAL naming each alert; info (an alert
that pages no one), HEALTHY and `check` OK, the view and `check` still listing it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
from ndb_harness.simulator import MysqlAccount

from tests.rules.rules_model import alert_rules, recording_rules

STATUS_RECORD = "cluster:ndb_status:min"
HEALTHY, CRITICAL, DEGRADED = 5, 3, 4
STATUS_NAMES = {0: "NO DATA", 1: "DOWN", 2: "NO REDUNDANCY", 3: "CRITICAL", 4: "DEGRADED"}
STATUS_NAMES[HEALTHY] = "HEALTHY"
CHECK_STATES = {0: "OK", 1: "WARNING", 2: "CRITICAL", 3: "UNKNOWN"}
RANK = ("critical", "warning", "info")
# Worst severity each alert can carry (an alert of two severities counts its worst).
SEVERITY = {
    name: min(
        (r["labels"]["severity"] for r in alert_rules() if r["alert"] == name), key=RANK.index
    )
    for name in {r["alert"] for r in alert_rules()}
}
# The view refreshes its alerts every 10 s; `check` reads the SQL node afresh.
READ_SECONDS = 45.0
# check's own -t: a monitoring system gives a check its own timeout; rows that make ndbinfo
# slow (slow-ndbinfo) need more than the default 10 s on a busy machine.
CHECK_SECONDS = 30
CHECK_TIMEOUT = 60.0


def worst(alerts: frozenset[str]) -> str:
    return min((SEVERITY[a] for a in alerts), key=RANK.index)


def expected(alerts: frozenset[str]) -> tuple[str, str, str]:
    """What the Overview, the view and `check` say of a row whose alerts are active: the
    columns of the docs' matrix table."""
    if not alerts:
        return "HEALTHY", "no finding above info", "OK"
    severity = worst(alerts)
    status = {"critical": "CRITICAL or worse", "warning": "DEGRADED or worse"}
    check = {"critical": "CRITICAL", "warning": "WARNING or worse", "info": "OK, alerts listed"}
    view = "each alert at its severity" if severity != "info" else "each alert, info"
    return status.get(severity, "HEALTHY"), view, check[severity]


def status_expression() -> str:
    """The Overview status' expression with pending alerts counted as firing."""
    (rule,) = [r for r in recording_rules() if r["record"] == STATUS_RECORD]
    return rule["expr"].replace('alertstate="firing"', 'alertstate=~"firing|pending"')


class FiringProxy:
    """/api/v1/alerts of a Prometheus server, its pending alerts shown as firing."""

    def __init__(self) -> None:
        self.upstream: str | None = None  # set once Prometheus runs
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                if self.path.split("?")[0] != "/api/v1/alerts" or proxy.upstream is None:
                    self.send_error(404)
                    return
                body = httpx.get(f"{proxy.upstream}/api/v1/alerts", timeout=5.0).json()
                for alert in body["data"]["alerts"]:
                    alert["state"] = "firing"
                content = json.dumps(body).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(content)))
                self.end_headers()
                self.wfile.write(content)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)

    def url(self, cluster: str) -> str:
        """The alerts URL that keeps `cluster`'s alerts (the view's and check's filter)."""
        return f'http://127.0.0.1:{self.server.server_port}/?filter=cluster="{cluster}"'


@contextmanager
def running_proxy() -> Iterator[FiringProxy]:
    proxy = FiringProxy()
    thread = threading.Thread(target=proxy.server.serve_forever, daemon=True)
    thread.start()
    try:
        yield proxy
    finally:
        proxy.server.shutdown()
        proxy.server.server_close()


@dataclass(frozen=True)
class SqlNodeJudge:
    """One SQL node of a cluster as the view and `check` read it: its exporter's view, and
    `check` run with the exporter's own flags."""

    cluster: str
    view_url: str  # http://exporter
    account: MysqlAccount
    flags: tuple[str, ...]
    alerts_url: str

    def findings(self) -> list[dict] | None:
        """The view's findings; None while the exporter or its SQL node does not answer."""
        try:
            answer = httpx.get(f"{self.view_url}/api/v1/findings", timeout=10.0)
        except httpx.HTTPError:
            return None
        return answer.json()["findings"] if answer.status_code == 200 else None

    def check(self) -> tuple[int, str]:
        """`check`'s exit code and output."""
        argv = [
            sys.executable, "-m", "ndbinfo_exporter.cli", "check", f"-t{CHECK_SECONDS}",
            f"--mysqld.address={self.account.address}",
            f"--mysqld.username={self.account.user}",
            f"--alerts-url={self.alerts_url}", *self.flags,
        ]  # fmt: skip
        env = {**os.environ, "NDB_EXPORTER_PASSWORD": self.account.password}
        done = subprocess.run(
            argv, env=env, capture_output=True, text=True, timeout=CHECK_TIMEOUT, check=False
        )
        return done.returncode, done.stdout


def read_status(evaluator, clusters: frozenset[str]) -> dict[str, int]:
    return {
        s["metric"]["cluster"]: int(float(s["value"][1]))
        for s in evaluator.query(status_expression())
        if s["metric"].get("cluster") in clusters
    }


def judge_row(
    alerts: frozenset[str], evaluator, judges: list[SqlNodeJudge], clusters: frozenset[str]
) -> list[str]:
    """What is wrong with the three judges' verdicts on a row whose `alerts` are active, at
    the severities the active alerts carry (an alert of two severities, at the one it has)."""
    severities = active_severities(evaluator, alerts, clusters)
    severity = min(severities.values(), key=RANK.index)
    with ThreadPoolExecutor(2) as pool:  # the lane's time is the matrix's: read them at once
        view = pool.submit(view_problems, severities, judges)
        check = pool.submit(check_problems, alerts, severity, judges)
        problems = status_problems(read_status(evaluator, clusters), severity)
        return problems + view.result() + check.result()


def active_severities(evaluator, alerts: frozenset[str], clusters: frozenset[str]) -> dict:
    """alertname -> the worst severity its active alerts of `clusters` carry."""
    found: dict[str, str] = {}
    for labels in evaluator.alerts():
        name = labels["alertname"]
        if name in alerts and labels.get("cluster") in clusters:
            worst_yet = found.get(name, "info")
            found[name] = min(worst_yet, labels.get("severity", "warning"), key=RANK.index)
    return {name: found.get(name, SEVERITY[name]) for name in alerts}


def status_problems(status: dict[str, int], severity: str) -> list[str]:
    best = min(status.values(), default=None)
    if best is None:
        return ["Overview status: no value"]
    allowed = {"critical": CRITICAL, "warning": DEGRADED, "info": HEALTHY}[severity]
    if best > allowed or (severity == "info" and best != HEALTHY):
        return [f"Overview status {STATUS_NAMES[best]} where the alerts are {severity}"]
    return []


def view_problems(severities: dict[str, str], judges: list[SqlNodeJudge]) -> list[str]:
    """Every alert a problem finding at its severity in the view of an SQL node of its
    cluster (each view keeps its own cluster's alerts; the view refreshes its alerts every
    10 s: read again until then)."""
    wanted = {f"alert_{a}": s for a, s in severities.items()}
    deadline = time.monotonic() + READ_SECONDS
    while True:
        seen: dict[str, str] = {}
        for judge in judges:
            for f in judge.findings() or []:
                if f["status"] == "problem":
                    seen[f["id"]] = f["severity"]
        missing = {i: s for i, s in wanted.items() if seen.get(i) != s}
        if not missing:
            return []
        if time.monotonic() > deadline:
            return [f"view: no finding {missing} (seen: {sorted(seen.items())})"]
        time.sleep(3.0)


def check_problems(alerts: frozenset[str], severity: str, judges: list[SqlNodeJudge]) -> list[str]:
    """`check` on the cluster's SQL nodes names every alert, and its worst state (an SQL node
    that cannot be reached left out) is the alerts': CRITICAL for a critical one, at least
    WARNING for a warning (its own checks may judge worse), OK for an info alert."""
    named: set[str] = set()
    codes: list[int] = []
    lines: list[str] = []
    with ThreadPoolExecutor(len(judges)) as pool:
        answers = list(pool.map(SqlNodeJudge.check, judges))
    for code, output in answers:
        named |= {a for a in alerts if f"(alert_{a})" in output}
        codes += [code] if code != 3 else []
        lines.append(f"{CHECK_STATES.get(code, code)}: {output.splitlines()[0] if output else ''}")
    worst_code = max(codes, default=None)
    fits = {
        "critical": worst_code == 2,
        "warning": worst_code in (1, 2),
        "info": worst_code == 0,
    }[severity]
    if named == alerts and fits:
        return []
    return [f"check: {severity} naming {sorted(alerts)} expected; got {lines}"]


def healthy_problems(
    evaluator, judges: list[SqlNodeJudge], clusters: frozenset[str], window: str
) -> list[str]:
    """On the healthy clusters: HEALTHY at every evaluation of the window, no finding above
    info on any view, `check` OK on every SQL node."""
    problems = []
    lowest = evaluator.query(
        f'min by (cluster) (min_over_time({STATUS_RECORD}{{cluster=~"{"|".join(clusters)}"}}'
        f"[{window}]))"
    )
    statuses = {s["metric"]["cluster"]: int(float(s["value"][1])) for s in lowest}
    if set(statuses) != set(clusters) or any(v != HEALTHY for v in statuses.values()):
        problems.append(f"Overview status on the healthy clusters: {statuses}")
    for judge in judges:
        found = judge.findings()
        raised = [
            f"{f['id']} ({f['severity']}): {f['summary']}"
            for f in found or []
            if f["status"] == "problem" and f["severity"] != "info"
        ]
        if found is None or raised:
            problems.append(f"view of {judge.cluster}: {raised if found else 'no answer'}")
        code, output = judge.check()
        if code != 0:
            problems.append(f"check on {judge.account.address}: {output}")
    return problems
