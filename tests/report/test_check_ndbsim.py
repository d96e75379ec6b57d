"""``check`` and ``report`` against ndbsim: healthy clusters of 2 and 8 data nodes, a stopped
data node, DataMemory filling up, and a replica whose SQL thread stopped."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from ndb_harness import Ndbsim, running_ndbsim

from tests.report.report_cli import json_report, of, problems, run

pytestmark = pytest.mark.integration

PASSWORD = "report-check-pw-5k2"


@pytest.fixture(scope="module")
def shared_sim() -> Iterator[Ndbsim]:
    with running_ndbsim(password=PASSWORD) as sim:
        yield sim


@pytest.fixture
def sim(shared_sim: Ndbsim) -> Iterator[Ndbsim]:
    """The shared ndbsim, healthy at the start and at the end of each test."""
    shared_sim.reset()
    yield shared_sim
    shared_sim.reset()


@pytest.mark.parametrize("data_nodes", [2, 8])
def test_a_healthy_cluster_is_ok(data_nodes):
    with running_ndbsim(password=PASSWORD, data_nodes=data_nodes) as sim:
        done = run("check", *of(sim), password=PASSWORD)
        report = json_report(*of(sim), password=PASSWORD)
    first = done.stdout.splitlines()[0]
    assert done.returncode == 0, done.stdout
    assert first.startswith("NDB OK - ")
    assert problems(report, "critical") == []
    assert report["reachable"] and report["ndb_visible"]
    assert report["cluster"]["data_nodes_ready"] == data_nodes
    assert len(report["data_nodes"]) == len(report["resources"]) == data_nodes
    perfdata = first.split(" | ", 1)[1].split()
    for node in range(1, data_nodes + 1):
        assert any(p.startswith(f"'data_memory_node_{node}'=") for p in perfdata)
        assert any(p.startswith(f"'redo_node_{node}'=") for p in perfdata)
    assert "'fragments_dead_replicas'=0;;0;0" in perfdata
    assert PASSWORD not in done.stdout + done.stderr


def test_tuning_advice_is_reported_but_changes_the_status_only_when_selected():
    # NDB 7.6 creates most tables without READ_BACKUP: tuning advice, not a failure.
    with running_ndbsim(password=PASSWORD, ndb_version="7.6") as sim:
        report = json_report(*of(sim), password=PASSWORD)
        default = run("check", *of(sim), password=PASSWORD)
        selected = run("check", "--only", "distribution", *of(sim), password=PASSWORD)
        by_id = run("check", "--only", "read_backup_off", *of(sim), password=PASSWORD)
    assert "read_backup_off" in {f["id"] for f in problems(report, "warning")}
    assert default.returncode == 0, default.stdout
    assert default.stdout.startswith("NDB OK - ")
    assert selected.returncode == by_id.returncode == 1, selected.stdout
    assert selected.stdout.startswith("NDB WARNING - Tables without READ_BACKUP")


def test_a_stopped_data_node_is_critical_and_named(sim):
    sim.stop_node(2)
    done = run("check", *of(sim), password=PASSWORD)
    report = json_report(*of(sim), password=PASSWORD)
    text = run("report", *of(sim), password=PASSWORD)
    assert done.returncode == 2, done.stdout
    first = done.stdout.splitlines()[0]
    assert first.startswith("NDB CRITICAL - ")
    assert "data node 2" in first.split(" | ")[0]
    stopped = next(n for n in report["data_nodes"] if n["node_id"] == 2)
    assert stopped["state"] == "STOPPED" and not stopped["running"]
    assert report["fragments_with_dead_replicas"] > 0
    dead = next(f for f in problems(report, "critical") if f["id"] == "dead_replicas")
    assert dead["advice"] and dead["evidence"]
    assert "CRITICAL Fragments with dead replicas" in text.stdout
    assert "Advice: " in text.stdout


def test_data_memory_over_the_warning_threshold_is_a_warning(sim):
    sim.fault("data-memory", share=0.85)
    done = run("check", *of(sim), password=PASSWORD)
    assert done.returncode == 1, done.stdout
    first = done.stdout.splitlines()[0]
    assert first.startswith("NDB WARNING - ") and "DataMemory nearly full" in first
    assert "'data_memory_node_1'=85" in done.stdout or "'data_memory_node_1'=84.9" in done.stdout


def test_warning_only_never_pages(sim):
    sim.stop_node(2)
    done = run("check", "--warning-only", *of(sim), password=PASSWORD)
    assert done.returncode == 1, done.stdout
    assert done.stdout.startswith("NDB WARNING - Fragments with dead replicas")


def test_a_second_read_measures_the_rates(sim):
    report = json_report("--interval", "2", *of(sim), password=PASSWORD)
    once = json_report(*of(sim), password=PASSWORD)
    assert report["interval_seconds"] == 2
    rated = {f["id"]: f for f in report["findings"]}
    assert rated["many_round_trips"]["needs_history"] is None
    measured = {e["label"]: e["value"] for e in rated["many_round_trips"]["evidence"]}
    assert measured["measured"].startswith("between the last two scrapes")
    assert once["interval_seconds"] is None
    assert {f["id"]: f for f in once["findings"]}["many_round_trips"]["needs_history"]


def test_a_stopped_replica_sql_thread_is_critical_for_replication():
    with running_ndbsim(password=PASSWORD, replica=True) as pair:
        replica = of(pair, pair.replica_port)
        healthy = run("check", "--only", "replication", *replica, password=PASSWORD)
        pair.fault("replica-sql-error")
        stopped = run("check", "--only", "replication", *replica, password=PASSWORD)
        report = json_report(*replica, password=PASSWORD)
    assert healthy.returncode == 0, healthy.stdout
    assert stopped.returncode == 2, stopped.stdout
    assert stopped.stdout.startswith("NDB CRITICAL - Replication stopped")
    assert report["replication"]["channels"][0]["sql_thread"] == "no"
    assert report["replication"]["channels"][0]["last_sql_error_number"] == 1032
