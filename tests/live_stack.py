"""Real processes for the end-to-end tests: the exporter and Prometheus servers that load the
NDB rules, each on a free 127.0.0.1 port and stopped when the test is done, and the Prometheus
builds the tests run on."""

from __future__ import annotations

import http.server
import os
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
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


@dataclass(frozen=True)
class PrometheusBuild:
    """One Prometheus release the tests run on: its server and its promtool."""

    name: str
    prometheus: Path
    promtool: Path
    how_to_get: str

    @property
    def missing(self) -> list[str]:
        return [
            str(path) for path in (self.prometheus, self.promtool) if not os.access(path, os.X_OK)
        ]

    def require(self) -> None:
        """Skip the calling test when this build is absent; fail instead under CI=true, so that
        CI cannot lose a Prometheus version without anyone noticing."""
        if not self.missing:
            return
        reason = f"{self.name}: {', '.join(self.missing)} missing ({self.how_to_get})"
        if os.environ.get("CI") == "true":
            pytest.fail(reason)
        pytest.skip(reason)


PROMETHEUS_BUILDS = (
    PrometheusBuild(
        "prometheus-2",
        Path("/usr/bin/prometheus"),
        Path("/usr/bin/promtool"),
        "Debian's prometheus 2.42: `make system-packages`",
    ),
    PrometheusBuild(
        "prometheus-3",
        ROOT / ".tools" / "bin" / "prometheus-3",
        ROOT / ".tools" / "bin" / "promtool-3",
        "built from the Go module proxy by `make tools`",
    ),
)

# Runs a test once per build, as test_x[prometheus-2] and test_x[prometheus-3].
every_prometheus_build = pytest.mark.parametrize(
    "prometheus_build", PROMETHEUS_BUILDS, ids=[build.name for build in PROMETHEUS_BUILDS]
)


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


def wait_until_quiet(true_alerts: Callable[[], Any], timeout: float, what: str) -> None:
    """Poll `true_alerts` (the alerts whose expression is still true, empty when none) until
    it is empty; on timeout an AssertionError naming `what` and the alerts still true."""
    still: list[Any] = [None]

    def quiet() -> bool:
        still[0] = true_alerts()
        return not still[0]

    try:
        wait_until(quiet, timeout, what, interval=1.0)
    except AssertionError as exc:
        raise AssertionError(f"{exc}; alert expressions still true: {still[0]}") from None


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

    def alerts(self) -> list[dict[str, str]]:
        """The labels (alertname included) of every alert whose expression was true at the
        rules' last evaluation, pending or firing: all the rules in one request, evaluated by
        Prometheus itself instead of one query per expression."""
        response = httpx.get(f"{self.url}/api/v1/alerts", timeout=10.0)
        body = response.json()
        assert body.get("status") == "success", body
        return [alert["labels"] for alert in body["data"]["alerts"]]


@contextmanager
def running_prometheus(
    targets: dict[str, dict[str, str]],
    workdir: Path,
    scrape_interval: str,
    build: PrometheusBuild,
    rule_files: tuple[Path, ...] = RULE_FILES,
) -> Iterator[Prometheus]:
    """Prometheus of `build` scraping `targets` (host:port -> extra labels) in job "ndb", with
    the rules of `rule_files` (the NDB rules) evaluated at the scrape interval; its files are in
    `workdir`."""
    build.require()
    workdir.mkdir(parents=True, exist_ok=True)
    config = {
        "global": {
            "scrape_interval": scrape_interval,
            "scrape_timeout": scrape_interval,
            # the rules see new samples once per scrape: evaluating them more often only
            # spends the machine's CPU, which the other stacks of the suite share
            "evaluation_interval": scrape_interval,
        },
        "rule_files": [str(path) for path in rule_files],
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
        str(build.prometheus),
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


class _SharedScrape(http.server.BaseHTTPRequestHandler):
    """Serves the exporter's last answer again while it is younger than `max_age`."""

    exporter: str
    max_age: float
    lock: threading.Lock
    cached: dict[str, tuple[float, int, str, bytes]]

    def do_GET(self) -> None:
        with self.lock:
            at, status, content_type, body = self.cached.get(self.path, (0.0, 0, "", b""))
            if time.monotonic() - at >= self.max_age:
                status, content_type, body = self._fetch()
                at = time.monotonic() if status == 200 else 0.0
                self.cached[self.path] = (at, status, content_type, body)
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the scraper gave up at its timeout while another scrape was fetched

    def _fetch(self) -> tuple[int, str, bytes]:
        forwarded = ("Accept", "X-Prometheus-Scrape-Timeout-Seconds")
        headers = {name: self.headers[name] for name in forwarded if name in self.headers}
        try:
            response = httpx.get(f"http://{self.exporter}{self.path}", headers=headers, timeout=30)
        except httpx.HTTPError as exc:
            return 503, "text/plain", str(exc).encode()
        return response.status_code, response.headers.get("Content-Type", ""), response.content

    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextmanager
def shared_scrapes(exporter: str, max_age: float) -> Iterator[str]:
    """An HTTP front for the exporter at `exporter` (host:port) that several Prometheus servers
    scrape: an answer younger than `max_age` seconds is served again, so that the exporter
    collects once per scrape interval however many servers scrape it, and every server stores
    the same samples (Prometheus 2 and 3 scrape one target at different offsets within the
    interval). Yields the front's host:port."""
    handler = type(
        "SharedScrape",
        (_SharedScrape,),
        {"exporter": exporter, "max_age": max_age, "lock": threading.Lock(), "cached": {}},
    )
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@contextmanager
def running_prometheus_builds(
    targets: dict[str, dict[str, str]],
    workdir: Path,
    scrape_interval: str,
    rule_files: tuple[Path, ...] = RULE_FILES,
) -> Iterator[dict[str, Prometheus]]:
    """One Prometheus server of every present build, all scraping the same `targets`
    (host:port -> extra labels) through shared_scrapes fronts, with `instance` still the
    target's host:port, and evaluating `rule_files`. The simulated clusters and exporters are shared instead of started
    once per build."""
    present = [build for build in PROMETHEUS_BUILDS if not build.missing]
    if not present:
        PROMETHEUS_BUILDS[0].require()
    max_age = 0.9 * float(scrape_interval.removesuffix("s"))
    with ExitStack() as running:
        fronts = {
            running.enter_context(shared_scrapes(target, max_age)): {"instance": target, **labels}
            for target, labels in targets.items()
        }
        yield {
            build.name: running.enter_context(
                running_prometheus(fronts, workdir / build.name, scrape_interval, build, rule_files)
            )
            for build in present
        }
