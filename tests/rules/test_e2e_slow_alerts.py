"""End to end on a compressed clock: the alerts that need hours of Prometheus time, made true by
ndbsim faults as Prometheus evaluates them over the scraped series.

ndbsim runs SPEED times faster than wall time, and the Prometheus servers (one of each build)
and vmalert over VictoriaMetrics (when its programs are built) evaluate a copy of the rules
whose durations are divided by SPEED (`compress_rules`): an hour of the rules is an hour of
the simulated cluster, while the expressions and thresholds are those of the rule files. The
`for` durations are covered by the promtool tests; here each alert's expression is checked on
every server (on VictoriaMetrics, as MetricsQL reads it), and vmalert's alerts too (the rows
"compressed clock" of the fault-to-alert matrix, alert_matrix.py): quiet on a healthy
cluster, true under its fault, quiet again after a reset.

To keep the module short, every fault is set at once on one simulated cluster and each alert
is checked for the labels its own fault gives: the four growth faults, backups-stopped,
old-version on data node 3, old-config-generation on data node 2 and a start of data node 4
held in a start phase by stuck-start. The growth faults start at 55%, so that the alerts'
"at least half used" holds at once and the rise of the troughs shows after the hour of their
lower envelope. An alert is true only while its resource rises: from then until some hours
after the resource is full (the trend then flat), a few wall seconds on this clock, which
every backend must catch under load. The redo and undo logs (predicted full within 4 hours)
rise by 10% a cluster hour, full in 4.5 hours; DataMemory (within 24 hours) by 5%, full in
9 hours; the tablespace (within 24 hours, its trend over 6 hours) by 3%, full in 15 hours.
The longest is NdbBackupNotCompleted,
26 cluster hours after the last backup completed. The exporter reads the management server,
which reports completions: there NdbBackupTooOld (backups started) stays quiet, its place
taken by NdbBackupNotCompleted, even once the last backup started is 26 hours old. A second
exporter of the same cluster, reading only the backup id and no management server, is a
cluster of its own to the rules (STARTED_ONLY), where NdbBackupTooOld fires. Every alert clears after the reset: the resources are
back below half, the stuck node starts, the nodes agree again, and the next scheduled backup
(within 4 cluster hours) makes the backup young.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml
from ndb_harness import Ndbsim, running_exporter, running_ndbsim
from ndbinfo_exporter.collectors.registry import all_collectors

from tests.rules.slow_alerts import CLUSTER, SCENARIO, STARTED_ONLY, STUCK_NODE
from tests.support.compressed_clock import (
    alert_expressions,
    compress_expr,
    compress_rules,
    duration_seconds,
)
from tests.support.live_stack import (
    RULE_FILES,
    VICTORIAMETRICS,
    Prometheus,
    running_prometheus_builds,
    wait_until,
)
from tests.support.markdown import table_rows

# A scrape of ndbsim takes one to two seconds on a busy 2-core machine (ndbsim answers one
# statement at a time); at 900 cluster seconds per wall second an hour of the rules' windows is
# 4 s, more than a scrape interval, and the 26 hours of NdbBackupNotCompleted are 104 s.
SPEED = 900
SCRAPE_INTERVAL = "3s"
# 8 tables: one of them is a disk data table (tablespace ts_1, an undo log); few writes, so
# that the healthy DataMemory hardly grows over the cluster hours of the test.
SIM_ARGS = ("--data-nodes", "4", "--tables", "8", "--ops-per-second", "50")
COLLECTORS = ("memoryusage", "logspaces", "disk_data", "backup", "nodes", "processes")
BACKUP_AGE_HOURS = 26  # the threshold of NdbBackupNotCompleted and NdbBackupTooOld
# NdbBackupTooOld's comparison without its `unless` (completion reported)
BACKUP_STARTED_AGE = "(time() - cluster:ndb_backup_last_id_change:timestamp_seconds) / 3600 > 26"
BACKUP_SEEN = "changes(ndb_backup_last_id[1m]) > 0"
CLUSTER_HOUR = 3600 / SPEED  # wall seconds
STARTUP_SECONDS = 60.0
MARGIN_SECONDS = 60.0  # scrapes and evaluations on a busy machine

# Not required on VictoriaMetrics (docs/scaling.md's table says why, as here).
NOT_ON_VICTORIAMETRICS = frozenset(
    {
        # Compressed to one second, its 15-minute windows are shorter than the 3 seconds
        # between samples and hold one only now and then, at evaluation times that differ
        # between the backends (vmalert evaluates 2 s in the past, -rule.evalDelay); at its
        # real windows it is no such case, and its promtool test runs under vmalert-tool too.
        "NdbRestartPhaseStuck",
        # Predicted full within 4 hours, a log's trend is true from 4 hours before it is full
        # until an hour or so after: about 20 wall seconds here, however slowly it grows, and
        # VictoriaMetrics' view of the trends trails Prometheus' by up to 8 cluster hours (32
        # wall seconds) in a loaded suite on 2 cores. At their real windows it is no such
        # case; their unit tests (a rising and a flat redo log) pass under vmalert-tool.
        "NdbRedoLogExhaustionPredicted",
        "NdbUndoLogExhaustionPredicted",
    }
)
VMALERT = "vmalert"  # the check of vmalert's alerts
SCALING_DOC = Path(__file__).parents[2] / "docs" / "scaling.md"


def test_compress_expr_rewrites_ranges_offsets_and_time_units_only():
    sample = (
        "(1 - x:ratio_max1h) / (deriv(x:ratio_min1h[6h]) * 3600 > 0) and y > y offset 1h30m\n"
        'and changes(z[15m]) == 0 and max_over_time(w[1h:5m]) > 300 and u{le="3600"} < 86400\n'
        "and (time() - t) / 3600 > 26 and rate(ndb_x_total[5m]) > 0.5 and v36000 > 13600"
    )
    assert compress_expr(sample, 1200) == (
        "(1 - x:ratio_max1h) / (deriv(x:ratio_min1h[18000ms]) * 3 > 0) and y > y offset 4500ms\n"
        'and changes(z[750ms]) == 0 and max_over_time(w[3000ms:250ms]) > 300 and u{le="3600"} '
        "< 72\nand (time() - t) / 3 > 26 and rate(ndb_x_total[250ms]) > 0.5 and v36000 > 13600"
    )
    assert compress_expr("a[1w] / 3600", 7) == "a[86400000ms] / 514.2857142857143"


def test_compress_rules_keeps_everything_but_the_clock(tmp_path):
    (copy,) = compress_rules((RULE_FILES[0],), 60, tmp_path)
    original, compressed = (yaml.safe_load(p.read_text()) for p in (RULE_FILES[0], copy))
    pairs = [
        (rule, twin)
        for group, twin_group in zip(original["groups"], compressed["groups"], strict=True)
        for rule, twin in zip(group["rules"], twin_group["rules"], strict=True)
    ]
    for rule, twin in pairs:
        assert twin["expr"] == compress_expr(rule["expr"], 60)
        assert {k: v for k, v in twin.items() if k not in ("expr", "for")} == {
            k: v for k, v in rule.items() if k not in ("expr", "for")
        }
        if "for" in rule:
            assert duration_seconds(twin["for"]) == pytest.approx(
                duration_seconds(rule["for"]) / 60, abs=0.001
            )


def _labelled(series: dict[str, str], labels: dict[str, str]) -> bool:
    return all(series.get(k) == v for k, v in labels.items())


@dataclass
class Stack:
    servers: dict[str, Prometheus]
    sim: Ndbsim
    expressions: dict[str, list[str]]

    def matches_on(self, prometheus: Prometheus, alert: str, **labels: str) -> list[dict]:
        """Series for which one of the alert's (compressed) expressions is true with
        `labels`."""
        return [
            sample["metric"]
            for expr in self.expressions[alert]
            for sample in prometheus.query(expr)
            if _labelled(sample["metric"], labels)
        ]

    @property
    def checks(self) -> list[str]:
        """Each server's expressions, and vmalert's alerts beside VictoriaMetrics' expressions
        (looked at apart: under load its evaluations lag the queries)."""
        return [*self.servers, *([VMALERT] if VICTORIAMETRICS in self.servers else [])]

    def active_on(self, check: str, alert: str, **labels: str) -> bool:
        """Whether `alert` is true with `labels`: one of its expressions on a server, or
        vmalert's alert (pending or firing)."""
        if check == VMALERT:
            return any(
                a["alertname"] == alert and _labelled(a, labels)
                for a in self.servers[VICTORIAMETRICS].alerts()
            )
        return bool(self.matches_on(self.servers[check], alert, **labels))

    def true_alerts(self) -> set[str]:
        """The alerts of SCENARIO with a true expression on any server, or active in
        vmalert."""
        true = {
            alert
            for alert in SCENARIO
            for prometheus in self.servers.values()
            if any(prometheus.query(expr) for expr in self.expressions[alert])
        }
        if VICTORIAMETRICS in self.servers:
            true |= {a["alertname"] for a in self.servers[VICTORIAMETRICS].alerts()} & set(SCENARIO)
        return true


@pytest.fixture(scope="module")
def stack(tmp_path_factory) -> Iterator[Stack]:
    workdir = tmp_path_factory.mktemp("e2e-slow-alerts")
    rule_files = compress_rules(RULE_FILES, SPEED, workdir / "rules")
    disabled = [f"--no-collector.{c.name}" for c in all_collectors() if c.name not in COLLECTORS]
    with ExitStack() as running:
        sim = running.enter_context(running_ndbsim(*SIM_ARGS, speed=SPEED))
        exporter = running.enter_context(
            running_exporter(
                [*disabled, f"--mgmd.address=127.0.0.1:{sim.mgm_port}"],
                mysqld=sim.account(),
                log_dir=workdir,
            )
        )
        started_only = running.enter_context(
            running_exporter(
                [f"--no-collector.{c.name}" for c in all_collectors() if c.name != "backup"],
                mysqld=sim.account(),
                name="ndbinfo-exporter-started-only",
                log_dir=workdir,
            )
        )
        servers = running.enter_context(
            running_prometheus_builds(
                {
                    exporter.address: {"cluster": CLUSTER},
                    started_only.address: {"cluster": STARTED_ONLY},
                },
                workdir,
                SCRAPE_INTERVAL,
                rule_files,
                victoriametrics=True,
            )
        )
        # a scheduled backup seen, and its completion reported by the management server
        for name, prometheus in servers.items():
            for seen in (BACKUP_SEEN, "ndb_mgmd_backup_last_completed_timestamp_seconds"):
                wait_until(
                    lambda p=prometheus, q=seen: p.query(q),
                    STARTUP_SECONDS,
                    f"{seen} on {name}",
                )
        yield Stack(servers, sim, alert_expressions(rule_files))


@pytest.mark.integration
@pytest.mark.long(minutes=3)
def test_healthy_cluster_leaves_slow_alerts_quiet(stack: Stack):
    """After a few cluster hours and a scheduled backup seen by every server, with the 1- and
    2-hour windows of the trends filled."""
    stack.sim.wait_for(lambda s: s["cluster_time"] > 3 * 3600, timeout=STARTUP_SECONDS)
    for _ in range(3):
        assert stack.true_alerts() == set()
        time.sleep(CLUSTER_HOUR / 2)


@pytest.mark.integration
@pytest.mark.long(minutes=3)
def test_faults_make_slow_alerts_true_and_reset_clears_them(stack: Stack):
    """The expression of each alert becomes true for the labels of its fault, within the
    cluster hours its rules need (about one hour for the trends, at most 26 hours and a
    backup interval for the backup age), then is quiet again after a reset, within the 4
    cluster hours to the next scheduled backup."""
    sim = stack.sim
    begin = time.monotonic()
    sim.stop_node(STUCK_NODE)
    for case in SCENARIO.values():
        sim.fault(case.fault, **case.params)
    sim.start_node(STUCK_NODE)
    # (alert, server) -> wall seconds after the faults when the expression was first true.
    # Each server is looked at on its own: NdbRestartPhaseStuck's 15-minute windows are one
    # second long here, and hold a sample of the 3-second scrapes only now and then.
    seen: dict[tuple[str, str], float] = {}

    expected = {
        (alert, check)
        for alert, check in itertools.product(SCENARIO, stack.checks)
        if not (check in (VICTORIAMETRICS, VMALERT) and alert in NOT_ON_VICTORIAMETRICS)
    }

    def all_true() -> bool:
        for alert, name in expected - seen.keys():
            if stack.active_on(name, alert, **SCENARIO[alert].labels):
                seen[alert, name] = time.monotonic() - begin
        return seen.keys() == expected

    timeout = (BACKUP_AGE_HOURS + 4) * CLUSTER_HOUR + MARGIN_SECONDS
    try:
        wait_until(all_true, timeout, "every slow alert to be true", interval=0.5)
    finally:
        print("true after (wall s, cluster h):")
        for (alert, name), after in sorted(seen.items()):
            print(f"  {alert} on {name}: {after:.1f} s, {after / CLUSTER_HOUR:.1f} h")
    assert_completion_silences_started_age(stack)
    sim.reset()
    cleared = time.monotonic()
    wait_until(
        lambda: not stack.true_alerts(),
        4 * CLUSTER_HOUR + MARGIN_SECONDS,
        "every slow alert to be quiet after the reset",
        interval=0.5,
    )
    print(f"quiet {time.monotonic() - cleared:.1f} s after the reset")


def assert_completion_silences_started_age(stack: Stack) -> None:
    """On the cluster whose management server is read the last backup started is 26 hours
    old too, yet NdbBackupTooOld is quiet there: the management server reports completions,
    which NdbBackupNotCompleted follows."""
    started_age = compress_expr(BACKUP_STARTED_AGE, SPEED)
    for name, prometheus in stack.servers.items():
        wait_until(
            lambda p=prometheus: [
                s for s in p.query(started_age) if s["metric"].get("cluster") == CLUSTER
            ],
            CLUSTER_HOUR + MARGIN_SECONDS,
            f"the last backup started 26 hours ago on {name}",
        )
        assert stack.matches_on(prometheus, "NdbBackupTooOld", cluster=CLUSTER) == []


def test_scaling_doc_table_is_the_scenario():
    """docs/scaling.md's table of the alerts on a compressed clock: each alert of SCENARIO with
    its fault, true under Prometheus, and under vmalert but NOT_ON_VICTORIAMETRICS."""
    rows = {
        cells[0].strip("`"): (cells[1], cells[2], cells[3].startswith("yes"))
        for cells in table_rows(SCALING_DOC.read_text())
        if len(cells) == 4 and cells[0].strip("`") in SCENARIO
    }
    assert rows.keys() == SCENARIO.keys()
    for alert, (fault, prometheus, vmalert) in rows.items():
        assert f"`ndbsim fault {SCENARIO[alert].fault}" in fault, alert
        assert prometheus == "yes", alert
        assert vmalert == (alert not in NOT_ON_VICTORIAMETRICS), alert
