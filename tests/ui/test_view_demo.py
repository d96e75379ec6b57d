"""`make demo`: python -m ndbsim.demo as a real process."""

from __future__ import annotations

import re
import signal
import subprocess
import sys

import httpx
import pytest

pytestmark = pytest.mark.integration

DEMO = [sys.executable, "-m", "ndbsim.demo"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--data-nodes", "3"],
            "demo: ndbsim: error: --data-nodes (3) must be a multiple of --replicas (2)",
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


def test_demo_serves_the_view_and_stops_both_processes_on_ctrl_c():
    command = [*DEMO, "--tables", "10"]
    with subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    ) as demo:
        try:
            lines = []
            while not any("Ctrl-C stops both" in line for line in lines):
                line = demo.stdout.readline()
                assert line, f"demo ended early: {demo.stderr.read()}"
                lines.append(line)
            text = "".join(lines)
            view = re.search(r"Cluster view\s+(http://\S+)", text).group(1)
            control = re.search(r"ndbsim control\s+(http://\S+)", text).group(1)
            assert f"ndbsim fault --control-url {control} stop-node 2" in text
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
