"""The fault-to-alert matrix (alert_matrix.py): its table in the docs, and the matrix run end to
end on the deployment of matrix_stack.py at the shipped scrape and evaluation intervals.

While the lanes of faults run, one after another on their simulated clusters, the healthy
pair of clusters is watched for ten minutes: no alert pending or firing on it, and no rule
evaluation error on any server. The `for` durations are the promtool tests' (the runner
counts pending alerts as active). On every row and on the healthy pair, the Overview's
status, the cluster view's findings and `check` say what the alerts say
(matrix_judges.py)."""

from __future__ import annotations

import re
import threading
import time
from pathlib import Path

import pytest
from ndbsim.model.faults import FAULTS

from tests.rules.alert_matrix import BY_NAME, COMPRESSED, FAST, LIVE, ROWS, markdown_table
from tests.rules.matrix_judges import healthy_problems
from tests.rules.matrix_runner import HealthyWatch, Lane, Outcome
from tests.rules.matrix_stack import (
    LANES,
    SIMS,
    cluster_name,
    lane_rows,
    running_deployment,
    shipped_config,
)
from tests.rules.rules_model import alert_rules, recording_rules
from tests.rules.slow_alerts import SCENARIO
from tests.support.live_stack import wait_until

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "alert-matrix.md"
ALERTS = {rule["alert"] for rule in alert_rules()}
HEALTHY_SECONDS = 600.0  # ten minutes at the shipped intervals
# The lanes begin no row later than this (a row takes at most its wait for its alerts and
# for their resolution): the module lasts about the healthy window. The longest lane, the
# fast cluster's, needs about 530 s with its judges' reads on a busy 2-core machine.
LANE_SECONDS = HEALTHY_SECONDS - 60.0
JOIN_SECONDS = 420.0
# Alerts proven elsewhere: a SQL node without the NDB engine or the exporter's privilege
# (test_e2e_engine.py, a real MariaDB), backups started too long ago where no management
# server is read (test_e2e_slow_alerts.py's second exporter), an SQL node that sees fewer
# data nodes than another (no ndbsim fault: every SQL node of a cluster sees the same), a
# replication pair one of whose sites is not seen (test_thanos_sites.py: one Prometheus sees
# every target's `up`).
ELSEWHERE = {
    "NdbEngineUnavailable",
    "NdbBackupTooOld",
    "NdbSqlNodeDisconnected",
    "NdbReplicationLagUnknown",
}
HEALTHY_CLUSTERS = 'cluster=~"healthy|healthy-dr"'
TABLE = re.compile(r"<!-- matrix -->\n(.*?)<!-- /matrix -->", re.S)


def test_docs_table_is_the_matrix():
    (table,) = TABLE.findall(DOC.read_text())
    assert table == markdown_table(), "docs/alert-matrix.md: paste markdown_table()"


def test_every_fault_and_alert_is_in_the_matrix():
    faults = {step.name for row in ROWS for step in row.steps if step.action == "fault"}
    assert set(FAULTS) - faults == {"refuse-connections", "drop-connections"} - faults
    fired = {alert for row in ROWS for alert in row.alerts}
    assert fired <= ALERTS
    assert ALERTS - fired == ELSEWHERE


def test_every_live_row_runs_in_one_lane_and_the_compressed_ones_in_the_slow_module():
    laned = [name for plan in LANES.values() for name in plan.rows]
    assert sorted(laned) == sorted(row.name for row in ROWS if row.proof in (LIVE, FAST))
    for plan in LANES.values():
        assert {BY_NAME[name].proof for name in plan.rows} == {
            FAST if SIMS[plan.sim][0] > 1 else LIVE
        }
    slow = {(alert, case.fault) for alert, case in SCENARIO.items()}
    compressed = {
        (alert, step.name)
        for row in ROWS
        if row.proof == COMPRESSED
        for alert in row.alerts
        for step in row.steps
        if step.action == "fault"
    }
    assert compressed <= slow


def test_config_is_the_shipped_one_with_targets_replaced():
    targets = {"ndb": {"a:1": {"cluster": "c"}}, "ndb-cluster": {"a:2": {"cluster": "c"}}}
    config = shipped_config(targets, (Path("/r.yml"),))
    assert config["global"]["scrape_interval"] == "15s"
    assert config["global"]["evaluation_interval"] == "15s"
    jobs = {job["job_name"]: job for job in config["scrape_configs"]}
    assert set(jobs) == {"ndb", "ndb-cluster"}
    assert jobs["ndb-cluster"]["scrape_interval"] == "30s"
    assert "lcp" in jobs["ndb-cluster"]["params"]["collect[]"]
    assert jobs["ndb"]["static_configs"] == [{"targets": ["a:1"], "labels": {"cluster": "c"}}]
    assert config["rule_files"] == ["/r.yml"]


def _report(outcomes: dict[str, list[Outcome]]) -> str:
    return "\n".join(f"{lane}: {o.line()}" for lane, results in outcomes.items() for o in results)


@pytest.mark.integration
@pytest.mark.long(minutes=11)
def test_matrix_end_to_end(tmp_path):
    with running_deployment(tmp_path) as deployment:
        evaluators = deployment.evaluators
        targets = 2 * len(deployment.exporters)  # one per job
        for name, evaluator in evaluators.items():
            wait_until(
                lambda e=evaluator: (
                    e.query("count(up == 1)")
                    and int(e.query("count(up == 1)")[0]["value"][1]) == targets
                ),
                120.0,
                f"every target up on {name}",
                interval=2.0,
            )
            rules = [r for g in evaluator.rule_groups() for r in g["rules"]]
            assert {r["name"] for r in rules if r["type"] == "alerting"} == ALERTS
        lanes = {
            name: Lane(name, deployment.target(plan), lane_rows(plan), evaluators)
            for name, plan in LANES.items()
        }
        deadline = time.monotonic() + LANE_SECONDS
        threads = [
            threading.Thread(target=lane.run, args=(deadline,), daemon=True)
            for lane in lanes.values()
        ]
        healthy_clusters = frozenset(
            {cluster_name("healthy", "source"), cluster_name("healthy", "replica")}
        )
        healthy = HealthyWatch(evaluators, healthy_clusters, HEALTHY_SECONDS)
        began = time.monotonic()
        for thread in threads:
            thread.start()
        healthy.run()
        watched = time.monotonic() - began
        for thread in threads:
            thread.join(timeout=JOIN_SECONDS)
        outcomes = {name: lane.outcomes for name, lane in lanes.items()}
        print(f"healthy watch {watched:.0f} s, {healthy.polls} polls")
        print(_report(outcomes))
        assert not any(thread.is_alive() for thread in threads)
        assert healthy.seen == {}, healthy.seen
        # and at no evaluation in between the polls: the ALERTS series of every evaluation
        window = f"{int(watched) + 60}s"
        for evaluator in evaluators.values():
            assert evaluator.query(f"count_over_time(ALERTS{{{HEALTHY_CLUSTERS}}}[{window}])") == []
        assert healthy.errors == set(), healthy.errors
        judges = [j for cluster in sorted(healthy_clusters) for j in deployment.judges[cluster]]
        for evaluator in evaluators.values():
            assert healthy_problems(evaluator, judges, healthy_clusters, window) == []
        assert [o for r in outcomes.values() for o in r if o.problems] == [], _report(outcomes)
        assert {o.row for r in outcomes.values() for o in r} == {
            row.name for row in ROWS if row.proof in (LIVE, FAST)
        }
        for evaluator in evaluators.values():
            assert_recorded_series_name_one_cluster(evaluator)


def assert_recorded_series_name_one_cluster(evaluator) -> None:
    """Every recording rule's series names the one cluster it belongs to: the pairs' binlog
    servers all have server_id 1, their replicas' lags stay apart."""
    clusters = {
        cluster_name(name, side)
        for name, (_, replica, _) in SIMS.items()
        for side in (("source", "replica") if replica else ("source",))
    }
    for rule in recording_rules():
        for sample in evaluator.query(rule["record"]):
            assert sample["metric"].get("cluster") in clusters, (rule["record"], sample)
