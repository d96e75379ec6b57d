"""Real processes for the end-to-end tests: the exporter and a Prometheus server that loads
the NDB rules, each on a free 127.0.0.1 port and stopped when the test is done."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml
from ndbinfo_exporter.testing import RunningExporter as Exporter
from ndbinfo_exporter.testing import running_exporter as _running_exporter

ROOT = Path(__file__).resolve().parents[1]
RULE_FILES = tuple(sorted((ROOT / "provisioning" / "prometheus" / "rules").glob("*.yml")))
STARTUP_SECONDS = 30.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_until(check: Callable[[], Any], timeout: float, what: str, interval: float = 0.5) -> Any:
    """Poll `check` until it returns something truthy; AssertionError naming `what` on timeout."""
    deadline = time.monotonic() + timeout
    last: Any = None
    while time.monotonic() < deadline:
        last = check()
        if last:
            return last
        time.sleep(interval)
    raise AssertionError(f"timed out waiting for {what} (last result: {last!r})")


def _answers(url: str) -> bool:
    try:
        return httpx.get(url, timeout=2.0).status_code == 200
    except httpx.HTTPError:
        return False


@contextmanager
def _process(args: list[str], log: Path) -> Iterator[subprocess.Popen]:
    with log.open("wb") as out:
        proc = subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT, cwd=ROOT)
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@contextmanager
def running_exporter(
    mysqld_port: int, username: str, password: str, workdir: Path, *extra: str
) -> Iterator[Exporter]:
    """The exporter for the SQL node on 127.0.0.1:`mysqld_port`; its log is written to
    `workdir` when it stops."""
    args = [f"--mysqld.address=127.0.0.1:{mysqld_port}", f"--mysqld.username={username}", *extra]
    env = {"NDB_EXPORTER_PASSWORD": password}
    with _running_exporter(args, env, STARTUP_SECONDS) as exporter:
        try:
            yield exporter
        finally:
            (workdir / f"exporter-{mysqld_port}.log").write_text(exporter.log)


class Prometheus:
    """A running Prometheus server, queried through its HTTP API."""

    def __init__(self, url: str):
        self.url = url

    def query(self, expr: str) -> list[dict]:
        response = httpx.get(f"{self.url}/api/v1/query", params={"query": expr}, timeout=10.0)
        body = response.json()
        assert body.get("status") == "success", f"{expr}: {body}"
        return body["data"]["result"]


@contextmanager
def running_prometheus(
    targets: dict[str, dict[str, str]], workdir: Path, scrape_interval: str
) -> Iterator[Prometheus]:
    """Prometheus scraping `targets` (host:port -> extra labels) in job "ndb", with the NDB rules
    evaluated every second."""
    config = {
        "global": {
            "scrape_interval": scrape_interval,
            "scrape_timeout": scrape_interval,
            "evaluation_interval": "1s",
        },
        "rule_files": [str(path) for path in RULE_FILES],
        "scrape_configs": [
            {
                "job_name": "ndb",
                "static_configs": [
                    {"targets": [target], "labels": labels} for target, labels in targets.items()
                ],
            }
        ],
    }
    config_file = workdir / "prometheus.yml"
    config_file.write_text(yaml.safe_dump(config))
    address = f"127.0.0.1:{free_port()}"
    args = [
        _prometheus_binary(),
        f"--config.file={config_file}",
        f"--storage.tsdb.path={workdir / 'tsdb'}",
        f"--web.listen-address={address}",
        "--log.level=warn",
    ]
    with _process(args, workdir / "prometheus.log") as proc:
        wait_until(
            lambda: proc.poll() is not None or _answers(f"http://{address}/-/ready"),
            STARTUP_SECONDS,
            "Prometheus to be ready",
        )
        assert proc.poll() is None, (workdir / "prometheus.log").read_text()
        yield Prometheus(f"http://{address}")


def _prometheus_binary() -> str:
    path = shutil.which("prometheus")
    if path is None:
        pytest.fail("prometheus not found: run `make system-packages` (Debian prometheus package)")
    return path
