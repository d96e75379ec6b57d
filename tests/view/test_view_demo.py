"""`make demo`: python -m ndb_harness.demo as a real process."""

from __future__ import annotations

import re
import shutil
import signal
import subprocess
import sys
import time

import httpx
import pytest
from ndb_harness import demo as demo_module
from ndbsim.cli import fault_parser
from ndbsim.model.faults import FAULTS

DEMO = [sys.executable, "-m", "ndb_harness.demo"]


@pytest.mark.integration
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--data-nodes", "3"],
            "demo: ndbsim: error: data nodes (3) must be a multiple of replicas (2): every node "
            "group holds one replica of its fragments on each member",
        ),
        (["--no-such-option"], "demo: ndbsim: error: unrecognized arguments: --no-such-option"),
        (["--exporter-port", "70000"], "demo: port 70000 is not in 0..65535"),
        (["--sql-port", "x"], "demo: argument --sql-port: invalid int value: 'x'"),
    ],
)
def test_bad_options_are_one_line_and_exit_2(args, message):
    done = subprocess.run([*DEMO, *args], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr.strip() == message


@pytest.mark.integration
def test_demo_serves_the_view_and_stops_its_processes_on_ctrl_c():
    command = [*DEMO, "--tables", "10"]
    with subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    ) as demo:
        try:
            lines = []
            while not any("Ctrl-C stops them all" in line for line in lines):
                line = demo.stdout.readline()
                assert line, f"demo ended early: {demo.stderr.read()}"
                lines.append(line)
            text = "".join(lines)
            view = re.search(r"Cluster view\s+(http://\S+)", text).group(1)
            control = re.search(r"ndbsim control\s+(http://\S+)", text).group(1)
            assert f"ndbsim fault --control-url {control} COMMAND" in text
            assert "    stop-node 2 " in text
            assert httpx.get(view).status_code == 200
            assert httpx.get(f"{view}api/v1/cluster").json()["up"] is True
            assert httpx.get(f"{control}/status").status_code == 200
            demo.send_signal(signal.SIGINT)
            assert demo.wait(timeout=60) == 0
            for url in (view, control):
                with pytest.raises(httpx.ConnectError):
                    httpx.get(url, timeout=2)
        finally:
            if demo.poll() is None:
                demo.kill()


def demo_lines(demo: subprocess.Popen) -> str:
    lines: list[str] = []
    while not any("Ctrl-C stops them all" in line for line in lines):
        line = demo.stdout.readline()
        assert line, f"demo ended early: {demo.stderr.read()}"
        lines.append(line)
    return "".join(lines)


@pytest.mark.skipif(
    shutil.which("prometheus") is None, reason="prometheus (Debian package) is missing"
)
@pytest.mark.integration
@pytest.mark.browser
def test_stopped_data_node_shows_its_alert_in_the_view_while_pending(page):
    command = [*DEMO, "--tables", "5", "--evaluation-interval", "1"]
    with subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    ) as demo:
        try:
            text = demo_lines(demo)
            view = re.search(r"Cluster view\s+(http://\S+)", text).group(1)
            control = re.search(r"ndbsim control\s+(http://\S+)", text).group(1)
            assert re.search(r"Prometheus\s+http://\S+/alerts", text)
            page.goto(view)
            page.wait_for_selector("body[data-loaded]")
            assert page.get_by_test_id("alerts-section").is_visible()
            httpx.post(f"{control}/nodes/2/stop").raise_for_status()
            # NdbDataNodeDown has `for: 1m`: the view shows it before it fires. The page is
            # reloaded rather than left to its 10 s refresh, so a loaded machine has time.
            # A scrape without the processes collector's rows (its read failed) has the node
            # count alone, and its own instance of the alert ("Only 1 data nodes are ready").
            alert = page.locator(
                "[data-testid=alert-NdbDataNodeDown]", has_text="Data node 2 is down"
            )
            for _ in range(25):
                page.reload()
                page.wait_for_selector("body[data-loaded]")
                if alert.count():
                    break
                page.wait_for_timeout(2_000)
            assert alert.get_attribute("data-state") == "pending"
            assert alert.locator("a.name").get_attribute("href").endswith("/alerts")
        finally:
            demo.send_signal(signal.SIGINT)
            demo.wait(timeout=60)


def test_demo_without_prometheus_says_what_it_left_out(monkeypatch):
    monkeypatch.setattr(demo_module.shutil, "which", lambda name: None)
    plan = demo_module.plan_monitoring(9090)
    assert (plan.prometheus, plan.prometheus_url, plan.alertmanager) == (None, None, None)
    assert plan.left_out == [
        "Prometheus: not installed (apt-get install prometheus); no alerts in the view",
        "Alertmanager: not installed (apt-get install prometheus-alertmanager)",
    ]


def test_demo_on_victoriametrics_plans_vmalert_or_says_what_is_missing(monkeypatch, tmp_path):
    monkeypatch.setattr(demo_module.shutil, "which", lambda name: None)
    monkeypatch.setattr(demo_module, "TOOLS", tmp_path)
    plan = demo_module.plan_monitoring(9090, "victoriametrics")
    assert (plan.victoriametrics, plan.prometheus_url) == (None, None)
    assert plan.left_out[0] == (
        "VictoriaMetrics: victoria-metrics, vmagent, vmalert not found (make tools);"
        " no alerts in the view"
    )
    for name in demo_module.VICTORIAMETRICS:
        (tmp_path / name).touch()
    plan = demo_module.plan_monitoring(9090, "victoriametrics")
    assert plan.prometheus is None
    assert plan.victoriametrics.evaluator == tmp_path / "vmalert"
    assert plan.prometheus_url == "http://127.0.0.1:9090"  # vmalert's: the view's alerts


def test_banner_lists_every_fault_command():
    commands = {example.split()[0] for example, _ in demo_module.FAULT_EXAMPLES}
    parser = fault_parser()
    subcommands = next(a for a in parser._actions if a.dest == "action").choices
    assert commands == set(subcommands)
    assert set(FAULTS) <= commands


def test_demo_on_thanos_plans_two_sites_or_says_what_is_missing(monkeypatch, tmp_path):
    monkeypatch.setattr(demo_module.shutil, "which", lambda name: f"/usr/bin/{name}")
    monkeypatch.setattr(demo_module, "TOOLS", tmp_path)
    monkeypatch.setattr(
        demo_module,
        "find_program",
        lambda names: None if "thanos" in names else f"/usr/bin/{names[0]}",
    )
    plan = demo_module.plan_monitoring(9090, "thanos")
    assert (plan.prometheus, plan.thanos, plan.prometheus_url) == (None, None, None)
    assert plan.left_out == ["Thanos: thanos not found (make tools); no alerts in the view"]
    (tmp_path / "thanos").touch()
    plan = demo_module.plan_monitoring(9090, "thanos")
    assert plan.thanos == str(tmp_path / "thanos")
    assert plan.prometheus_url == "http://127.0.0.1:9090"  # Thanos Query's: the view's alerts


@pytest.mark.integration
def test_demo_on_thanos_runs_the_pair_as_two_sites():
    """`make demo DEMO_ARGS="--backend thanos"`: Thanos Query on the Prometheus port answers
    for both clusters of the pair (each from its own site), with the verdict the Ruler
    records, and the cluster view reads its alerts from Query."""
    thanos = demo_module.TOOLS / "thanos"
    if shutil.which("prometheus") is None or not thanos.is_file():
        pytest.skip("prometheus (Debian package) or thanos (make tools) is missing")
    command = [*DEMO, "--backend", "thanos", "--tables", "4", "--evaluation-interval", "2"]
    with subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    ) as demo:
        try:
            text = demo_lines(demo)
            query = re.search(r"Thanos Query\s+(http://\S+)/alerts", text).group(1)
            view = re.search(r"Cluster view\s+(http://\S+)", text).group(1)
            for site in ("a/0", "a/1", "b/0"):
                assert re.search(rf"Prometheus {site}\s+http://\S+/alerts", text)

            def verdicts() -> dict[tuple[str, str], str]:
                answer = httpx.get(
                    f"{query}/api/v1/query",
                    params={"query": "cluster:ndb_status:min or count by (cluster, site) (up)"},
                ).json()
                return {
                    (s["metric"]["cluster"], s["metric"].get("site", "ruler")): s["value"][1]
                    for s in answer["data"]["result"]
                }

            expected = {("demo", "a"): "1", ("dr", "b"): "1", ("demo", "ruler"): "5"}
            expected[("dr", "ruler")] = "5"
            found = {}
            for _ in range(60):
                if (found := verdicts()) == expected:
                    break
                time.sleep(1.0)
            assert found == expected
            alerts = httpx.get(f"{view}api/v1/alerts").json()
            assert alerts["source"].startswith(query)
        finally:
            demo.send_signal(signal.SIGINT)
            demo.wait(timeout=60)
