"""``check`` and ``report`` against ndbsim as a monitoring system runs them: thresholds, the
timeout, what cannot be judged, the management and SQL nodes, a stopped data node, access
denied, and the report's status equal to the check's. One ndbsim for the module."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator

import pytest
from ndb_harness import Ndbsim, running_ndbsim

from tests.report.report_cli import json_report, of, problems, run
from tests.support.app_server import serving_app
from tests.support.planted_alerts import alert, prometheus_with_alerts

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


def perfdata(done: subprocess.CompletedProcess) -> list[str]:
    return done.stdout.splitlines()[0].split(" | ", 1)[1].split()


def test_a_healthy_cluster_is_ok_and_the_report_says_what_check_says(sim):
    done = run("check", *of(sim), password=PASSWORD)
    report = json_report(*of(sim), password=PASSWORD)
    assert done.returncode == 0, done.stdout
    assert done.stdout.startswith("NDB OK - ")
    assert (report["status"], report["exit_code"]) == ("OK", done.returncode)
    assert report["reachable"] and report["ndb_visible"] and report["spare_api_slots"] == 3
    items = perfdata(done)
    for counted in ("'ndbd_nodes'=2;;;0;2", "'ndb_mgmd_nodes'=1;;;0;1", "'mysqld_nodes'=2;;;0;2"):
        assert counted in items
    for node in (1, 2):
        assert any(p.startswith(f"'data_memory_node_{node}'=") for p in items)
        assert any(p.startswith(f"'redo_fullest_part_node_{node}'=") for p in items)
    assert PASSWORD not in done.stdout + done.stderr


@pytest.mark.parametrize(
    "share, thresholds, code, ranges",
    [
        (0.55, ("-w", "data_memory=50", "-c", "data_memory=60"), 1, ";50;60;0;100"),
        (0.65, ("-w", "data_memory=50", "-c", "data_memory=60"), 2, ";50;60;0;100"),
        (0.55, ("-w", "data_memory=@40:60"), 1, ";@40:60;95;0;100"),
        (0.65, ("-w", "data_memory=@40:60"), 0, ";@40:60;95;0;100"),
    ],
)
def test_data_memory_thresholds(sim, share, thresholds, code, ranges):
    sim.fault("data-memory", share=share)
    done = run("check", *thresholds, *of(sim), password=PASSWORD)
    assert done.returncode == code, done.stdout
    node_1 = next(p for p in perfdata(done) if p.startswith("'data_memory_node_1'="))
    assert node_1.endswith("%" + ranges), node_1
    assert abs(float(node_1.split("=")[1].split("%")[0]) - share * 100) < 1


def test_a_timeout_is_unknown_and_names_what_it_waited_for_beside_the_alerts_read(sim):
    """-t running out is UNKNOWN, unless an alert read by then says worse: what paged is
    not lost to a slow SQL node."""
    sim.fault("slow-ndbinfo", seconds=30)
    planted = prometheus_with_alerts([alert("NdbDataNodeDown", cluster="demo", node_id="2")])
    # Bounded well below the 30 s the statements wait: the start of a process under CPU
    # contention is not what this measures.
    done = run("check", "-t", "2", *of(sim), password=PASSWORD, timeout=20)
    with serving_app(planted) as url:
        paged = run("check", "-t", "2", *of(sim), f"--alerts-url={url}/", password=PASSWORD)
    assert done.returncode == 3, done.stdout
    assert done.stdout.startswith("NDB UNKNOWN - timed out after 2 s waiting for ")
    assert "to read ndbinfo" in done.stdout or "(collectors " in done.stdout
    assert paged.returncode == 2, paged.stdout
    first = paged.stdout.splitlines()[0]
    assert first.startswith("NDB CRITICAL - timed out after 2 s waiting for ")
    assert "NdbDataNodeDown: NdbDataNodeDown fires" in first


def test_replication_on_a_sql_node_without_a_channel_is_unknown_and_says_why(sim):
    done = run("check", "--only", "replication", *of(sim), password=PASSWORD)
    assert done.returncode == 3, done.stdout
    assert "has no replica channel: it is not a replica" in done.stdout.splitlines()[0]


def test_a_wrong_password_is_access_denied(sim):
    done = run("check", *of(sim), password="not-the-password")
    assert done.returncode == 3, done.stdout
    assert done.stdout.startswith("NDB UNKNOWN - access denied by the SQL node")
    assert "not-the-password" not in done.stdout


def test_the_management_node_stopped_is_critical(sim):
    sim.stop_node(49)
    done = run("check", *of(sim), password=PASSWORD)
    assert done.returncode == 2, done.stdout
    assert "Management node 49 not connected: no management node is left" in done.stdout
    assert "'ndb_mgmd_nodes'=0;;;0;1" in perfdata(done)


def test_a_sql_node_that_went_away_is_a_warning_and_spare_slots_do_not_count(sim):
    sim.stop_node(51)
    done = run("check", *of(sim), password=PASSWORD)
    assert done.returncode == 1, done.stdout
    assert "SQL/API node 51 went away." in done.stdout.splitlines()[0]
    assert "'mysqld_nodes'=1;;;0;2" in perfdata(done)
    for spare in (52, 53, 54):
        assert f"node {spare}" not in done.stdout


def test_a_stopped_data_node_is_critical_and_named(sim):
    sim.stop_node(2)
    done = run("check", *of(sim), password=PASSWORD)
    report = json_report(*of(sim), password=PASSWORD)
    text = run("report", "--format", "markdown", *of(sim), password=PASSWORD)
    assert done.returncode == 2, done.stdout
    first = done.stdout.splitlines()[0]
    assert first.startswith("NDB CRITICAL - ") and "data node 2" in first.split(" | ")[0]
    assert "'data_memory_node_2'=U;80;95;0;100" in perfdata(done)
    assert (report["status"], report["exit_code"]) == ("CRITICAL", 2)
    stopped = next(n for n in report["data_nodes"] if n["node_id"] == 2)
    assert stopped["state"] == "STOPPED" and not stopped["running"]
    dead = next(f for f in problems(report, "critical") if f["id"] == "dead_replicas")
    assert dead["evidence"][0]["value"] == report["fragments_with_dead_replicas"] > 0
    assert text.stdout.startswith("ndbinfo-exporter ") and "### CRITICAL: Fragments" in text.stdout


def test_warning_only_never_pages(sim):
    sim.stop_node(2)
    done = run("check", "--warning-only", *of(sim), password=PASSWORD)
    assert done.returncode == 1, done.stdout
    assert done.stdout.startswith("NDB WARNING - Fragments with dead replicas")


def test_a_second_read_measures_the_rates(sim):
    report = json_report("--interval", "2", *of(sim), password=PASSWORD)
    assert report["interval_seconds"] == 2
    rated = {f["id"]: f for f in report["findings"]}
    assert rated["many_round_trips"]["needs_history"] is None
    measured = {e["label"]: e["text"] for e in rated["many_round_trips"]["evidence"]}
    assert measured["measured"].startswith("between the last two scrapes")


def test_tuning_advice_is_reported_but_changes_the_status_only_when_selected():
    # NDB 7.6 creates most tables without READ_BACKUP: tuning advice, not a failure.
    with running_ndbsim(password=PASSWORD, ndb_version="7.6") as sim:
        report = json_report(*of(sim), password=PASSWORD)
        default = run("check", *of(sim), password=PASSWORD)
        selected = run("check", "--only", "distribution", *of(sim), password=PASSWORD)
    assert "read_backup_off" in {f["id"] for f in problems(report, "warning")}
    assert default.returncode == 0, default.stdout
    assert selected.returncode == 1, selected.stdout
    assert selected.stdout.startswith("NDB WARNING - Tables without READ_BACKUP")


def test_a_stopped_replica_sql_thread_is_critical_for_replication():
    with running_ndbsim(password=PASSWORD, replica=True) as pair:
        replica = of(pair, pair.replica_port)
        healthy = run("check", "--only", "replication", *replica, password=PASSWORD)
        pair.fault("replica-sql-error")
        stopped = run("check", "--only", "replication", *replica, password=PASSWORD)
    assert healthy.returncode == 0, healthy.stdout
    assert stopped.returncode == 2, stopped.stdout
    assert stopped.stdout.startswith("NDB CRITICAL - Replication stopped")


def test_with_the_management_server_every_node_and_its_answer_are_judged(sim):
    """--mgmd.address: the report lists every node as get status reports it; a management
    server that does not answer is a warning."""
    mgmd = f"--mgmd.address=127.0.0.1:{sim.mgm_port}"
    report = json_report(*of(sim), mgmd, password=PASSWORD)
    types = {(n["node_id"], n["node_type"]) for n in report["management"]["nodes"]}
    assert {(1, "NDB"), (2, "NDB")} <= types and {t for _, t in types} == {"NDB", "MGM", "API"}
    assert report["management"]["servers"][0]["answered"] is True
    judged = {f["id"]: f["status"] for f in report["findings"]}
    assert judged["mgmd_unreachable"] == judged["backup_failed"] == "ok"
    sim.fault("mgm-down")
    done = run("check", *of(sim), mgmd, password=PASSWORD)
    assert done.returncode == 1, done.stdout
    assert "Management server unreachable" in done.stdout.splitlines()[0]


def test_with_alerts_a_firing_alert_is_judged_at_its_severity_whatever_only_selects(sim):
    """--alerts-url: the alert rules' verdict. A firing alert of the filter's cluster is a
    finding at its severity, a pending one or another cluster's is none; alerts that cannot
    be read leave the status UNKNOWN; a bad URL is one line."""
    planted = prometheus_with_alerts(
        [
            alert("NdbDataNodeDown", cluster="demo", node_id="2"),
            alert("NdbLcpStalled", state="pending", cluster="demo"),
            alert("NdbNoArbitrator", cluster="other"),
        ]
    )
    with serving_app(planted) as url:
        alerts_url = f'--alerts-url={url}/?filter=cluster="demo"'
        done = run("check", *of(sim), alerts_url, "--only", "configuration", password=PASSWORD)
        # An SQL node that cannot be reached is UNKNOWN, unless an alert says worse.
        away = run("check", *of(sim, port=9), alerts_url, password=PASSWORD)
    assert done.returncode == 2, done.stdout
    assert (
        "[CRITICAL] NdbDataNodeDown (alert_NdbDataNodeDown): NdbDataNodeDown fires" in done.stdout
    )
    assert "NdbLcpStalled" not in done.stdout and "NdbNoArbitrator" not in done.stdout
    assert away.returncode == 2, away.stdout
    assert away.stdout.startswith("NDB CRITICAL - SQL node 127.0.0.1:9 cannot be reached")
    assert "NdbDataNodeDown: NdbDataNodeDown fires" in away.stdout.splitlines()[0]
    refused = run(
        "check", *of(sim), "--alerts-url=http://127.0.0.1:9/", "--only", "configuration",
        password=PASSWORD,
    )  # fmt: skip
    assert refused.returncode == 3, refused.stdout
    assert "cannot read alerts from http://127.0.0.1:9" in refused.stdout
    bad = run("check", *of(sim), "--alerts-url=prom:9090", password=PASSWORD)
    assert (bad.returncode, bad.stdout) == (
        3,
        "NDB UNKNOWN - argument --alerts-url: 'prom:9090' is not an http:// or https:// URL\n",
    )


def test_safe_to_stop_a_data_node_while_its_partner_is_up_and_not_once_it_is_down(sim):
    """The node group of data nodes 1 and 2 keeps 2 while 1 stops; with 2 stopped, stopping 1
    would lose it."""
    ok = run("check", "--safe-to-stop", "1", *of(sim), password=PASSWORD)
    sim.stop_node(2)
    lost = run("check", "--safe-to-stop", "1", *of(sim), password=PASSWORD)
    assert ok.returncode == 0, ok.stdout
    assert ok.stdout.startswith("NDB OK - data node 1 is safe to stop: node group 0 keeps")
    assert "'ndbd_nodes'=2;;;0;2" in perfdata(ok)
    assert lost.returncode == 2, lost.stdout
    first, *reasons = lost.stdout.splitlines()
    assert first.startswith("NDB CRITICAL - data node 1 is not safe to stop: node group 0 ")
    assert reasons[0].startswith("node group 0 would be lost with it")


def test_safe_to_stop_the_only_binlog_server_names_the_replica_reading_it():
    """ndbsim --replica: the source's first SQL node writes the only binary log, which the
    replica's SQL node (server 101, no report_host) reads."""
    with running_ndbsim(password=PASSWORD, replica=True) as pair:
        binlog_server = min(pair.sql_node_ports())
        done = run("check", "--safe-to-stop", str(binlog_server), *of(pair), password=PASSWORD)
    assert done.returncode == 2, done.stdout
    first, *reasons = done.stdout.splitlines()
    assert first.startswith(f"NDB CRITICAL - SQL node {binlog_server} is not safe to stop: ")
    assert (
        f"SQL node {binlog_server} is the only binlog server read: replica server 101 (no "
        "report_host) reads its binary log and loses its source while it is down"
    ) in reasons[0]


RESTART_POLLS = 60  # check runs, one a second at most, while data node 2 restarts


def test_restart_done_is_critical_in_start_phase_5_and_ok_once_its_primaries_are_back(sim):
    sim.stop_node(2)
    stopped = run("check", "--restart-done", "2", *of(sim), password=PASSWORD)
    sim.fault("stuck-start", node=2, phase=5)
    sim.fault("primaries-away", node=2)
    sim.start_node(2)
    in_phase_5 = _until(lambda: _start_phase(sim, 2) == 5)
    starting = run("check", "--restart-done", "2", *of(sim), password=PASSWORD)
    sim.clear("stuck-start")
    started = _until(lambda: _data_node_state(sim, 2) == "STARTED")
    away = run("check", "--restart-done", "2", *of(sim), password=PASSWORD)
    sim.clear("primaries-away")
    assert stopped.returncode == 2, stopped.stdout
    assert stopped.stdout.startswith("NDB CRITICAL - data node 2 has not restarted: ")
    assert in_phase_5 and starting.returncode == 2, starting.stdout
    assert "data node 2 is STARTING, start phase 5" in starting.stdout.splitlines()[0]
    assert started and away.returncode != 0, away.stdout
    assert "fragments that prefer data node 2 as primary have their primary elsewhere" in (
        away.stdout
    )
    codes = [away.returncode]
    for _ in range(RESTART_POLLS):
        done = run("check", "--restart-done", "2", *of(sim), password=PASSWORD)
        codes.append(done.returncode)
        if done.returncode == 0:
            break
        time.sleep(1)
    assert codes[-1] == 0, done.stdout
    assert done.stdout.startswith("NDB OK - data node 2 is done restarting")
    assert set(codes) <= {0, 1, 2}


def _data_node_state(sim, node_id: int) -> str:
    return next(n for n in sim.status()["nodes"] if n["node_id"] == node_id)["state"]


def _start_phase(sim, node_id: int) -> int | None:
    return next(n for n in sim.status()["nodes"] if n["node_id"] == node_id).get("start_phase")


def _until(condition, timeout: float = 60.0) -> bool:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.2)
    return True
