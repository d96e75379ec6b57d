"""The Prometheus builds the end-to-end tests run on, Prometheus servers of those builds that
load the NDB rules (started by ndb_harness), and waiting on their answers."""

from __future__ import annotations

import http.server
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from ndb_harness import Exporter, Ndbsim, Prometheus, running_exporter, running_prometheus
from ndb_harness.thanos import running_query, running_sidecar
from ndb_harness.victoriametrics import VictoriaMetricsPrograms, running_victoriametrics_stack
from ndbinfo_exporter.collectors.registry import all_collectors

ROOT = Path(__file__).resolve().parents[2]
RULE_FILES = tuple(sorted((ROOT / "provisioning" / "prometheus" / "rules").glob("*.yml")))
STARTUP_SECONDS = 30.0
TOOLS = ROOT / ".tools" / "bin"
# vmagent -> VictoriaMetrics <- vmalert (built by `make tools`), beside the Prometheus builds
VICTORIAMETRICS = "victoriametrics"
THANOS = "thanos"
THANOS_PROGRAM = TOOLS / "thanos"
VICTORIAMETRICS_PROGRAMS = VictoriaMetricsPrograms(
    TOOLS / "victoria-metrics", TOOLS / "vmagent", TOOLS / "vmalert"
)


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


def require_programs(*paths: Path) -> None:
    """Skip the calling test when a program of `paths` is absent; fail instead under CI=true,
    as PrometheusBuild.require does."""
    if missing := [str(path) for path in paths if not path.is_file()]:
        reason = f"{', '.join(missing)} missing (built from the Go module proxy by `make tools`)"
        if os.environ.get("CI") == "true":
            pytest.fail(reason)
        pytest.skip(reason)


def require_victoriametrics() -> None:
    require_programs(*vars(VICTORIAMETRICS_PROGRAMS).values())


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


def collector_flags(enabled: tuple[str, ...]) -> list[str]:
    """The exporter's flags that leave only the collectors of `enabled` on."""
    return [f"--no-collector.{c.name}" for c in all_collectors() if c.name not in enabled]


def running_pair_exporters(
    running: ExitStack,
    sim: Ndbsim,
    workdir: Path,
    source_collectors: tuple[str, ...],
    replica_collectors: tuple[str, ...],
) -> tuple[Exporter, Exporter]:
    """An exporter of each cluster of ndbsim's replication pair (named "source" and
    "replica"), each with only its collectors on, running until `running` closes."""

    def exporter(name: str, endpoint: str, collectors: tuple[str, ...]) -> Exporter:
        flags = collector_flags(collectors)
        account = sim.account(endpoint)
        return running.enter_context(
            running_exporter(flags, mysqld=account, log_dir=workdir, name=name)
        )

    return (
        exporter("source", "mysql", source_collectors),
        exporter("replica", "replica", replica_collectors),
    )


def scrape_config(targets: dict[str, dict[str, str]], scrape_interval: str) -> dict[str, Any]:
    """prometheus.yml's global and scrape_configs (Prometheus, vmagent): `targets` (host:port
    -> extra labels) in job "ndb", scraped every `scrape_interval`."""
    return {
        "global": {"scrape_interval": scrape_interval, "scrape_timeout": scrape_interval},
        "scrape_configs": [
            {
                "job_name": "ndb",
                "static_configs": [
                    {"targets": [target], "labels": labels} for target, labels in targets.items()
                ],
            }
        ],
    }


def evaluating_config(
    targets: dict[str, dict[str, str]],
    scrape_interval: str,
    rule_files: tuple[Path, ...] = RULE_FILES,
) -> dict[str, Any]:
    """prometheus.yml scraping `targets` in job "ndb" and evaluating `rule_files` at the scrape
    interval: the rules see new samples once per scrape, and evaluating them more often only
    spends the machine's CPU, which the other stacks of the suite share."""
    config = scrape_config(targets, scrape_interval)
    config["global"]["evaluation_interval"] = scrape_interval
    config["rule_files"] = [str(path) for path in rule_files]
    return config


@contextmanager
def prometheus_of_build(
    targets: dict[str, dict[str, str]],
    workdir: Path,
    scrape_interval: str,
    build: PrometheusBuild,
    rule_files: tuple[Path, ...] = RULE_FILES,
    remote_write: list[dict[str, Any]] | None = None,
    external_labels: dict[str, str] | None = None,
) -> Iterator[Prometheus]:
    """Prometheus of `build` scraping `targets` (host:port -> extra labels) in job "ndb", with
    the rules of `rule_files` (the NDB rules) evaluated at the scrape interval, and forwarding
    its samples as `remote_write` says (prometheus.yml's section), with `external_labels`
    (what a Thanos sidecar needs); its files are in `workdir`."""
    build.require()
    config = evaluating_config(targets, scrape_interval, rule_files)
    if remote_write:
        config["remote_write"] = remote_write
    if external_labels:
        config["global"]["external_labels"] = external_labels
    with running_prometheus(build.prometheus, config, workdir) as prometheus:
        yield prometheus


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
    with serving(shared_scrape_handler(exporter, max_age)) as address:
        yield address


def shared_scrape_handler(exporter: str, max_age: float) -> type[_SharedScrape]:
    """The handler of a shared_scrapes front; its `exporter` may be changed while it serves (an
    exporter restarted on another port, as Prometheus sees a restart of its target)."""
    return type(
        "SharedScrape",
        (_SharedScrape,),
        {"exporter": exporter, "max_age": max_age, "lock": threading.Lock(), "cached": {}},
    )


@contextmanager
def serving(handler: type[http.server.BaseHTTPRequestHandler]) -> Iterator[str]:
    """An HTTP server of ``handler`` on a free port, in a thread; yields its host:port."""
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
    victoriametrics: bool = False,
    thanos: bool = False,
) -> Iterator[dict[str, Any]]:
    """One Prometheus server of every present build, all scraping the same `targets`
    (host:port -> extra labels) through shared_scrapes fronts, with `instance` still the
    target's host:port, and evaluating `rule_files`. The simulated clusters and exporters are shared instead of started
    once per build. With `victoriametrics`, a VictoriaMetrics stack (VICTORIAMETRICS) scrapes
    the same fronts and evaluates the same rules too. With `thanos`, Thanos Query (THANOS) reads
    the newest build's server through a sidecar."""
    present = [build for build in PROMETHEUS_BUILDS if not build.missing]
    if not present:
        PROMETHEUS_BUILDS[0].require()
    max_age = 0.9 * float(scrape_interval.removesuffix("s"))
    with ExitStack() as running:
        fronts = {
            running.enter_context(shared_scrapes(target, max_age)): {"instance": target, **labels}
            for target, labels in targets.items()
        }
        sidecar_of = present[-1].name if thanos and THANOS_PROGRAM.is_file() else None
        servers: dict[str, Any] = {
            build.name: running.enter_context(
                prometheus_of_build(
                    fronts,
                    workdir / build.name,
                    scrape_interval,
                    build,
                    rule_files,
                    external_labels={"replica": "0"} if build.name == sidecar_of else None,
                )
            )
            for build in present
        }
        if sidecar_of:
            sidecar = running.enter_context(
                running_sidecar(
                    THANOS_PROGRAM,
                    servers[sidecar_of].url,
                    workdir / sidecar_of / "prometheus-data",
                    workdir / THANOS,
                    "sidecar",
                )
            )
            servers[THANOS] = running.enter_context(
                running_query(THANOS_PROGRAM, [], workdir / THANOS, strict=[sidecar.grpc])
            )
        programs = vars(VICTORIAMETRICS_PROGRAMS).values()
        if victoriametrics and all(path.is_file() for path in programs):
            servers[VICTORIAMETRICS] = running.enter_context(
                running_victoriametrics_stack(
                    VICTORIAMETRICS_PROGRAMS,
                    scrape_config(fronts, scrape_interval),
                    rule_files,
                    workdir / VICTORIAMETRICS,
                    scrape_interval,
                )
            )
        yield servers
