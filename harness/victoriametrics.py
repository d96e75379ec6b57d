"""VictoriaMetrics as real processes on free ports: the single-node server (storage and
queries), vmagent (scrapes, remote-writes to the server) and vmalert (evaluates the rules
against the server, writes recording results and alert states back to it, sends alerts to
Alertmanager), each with its files in a working folder, ready once ``/health`` answers.

``running_victoriametrics_stack`` starts the three and yields a ``VictoriaMetricsStack``,
which answers ``query``, ``alerts`` and ``rule_groups`` as ``ndb_harness.prometheus.Prometheus``
does, so that the same checks run against either backend.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from ndb_harness.api import answers, api_data
from ndb_harness.ports import HOST, free_port
from ndb_harness.process import Process, started

START_SECONDS = 60.0
# How far back from now a query's data may still be incomplete. The server's default (30 s)
# holds back the newest samples from the rules; vmagent and vmalert here flush every second
# to a server on the same host, so a second or two is enough.
LATENCY_OFFSET = "2s"


@dataclass
class VictoriaMetricsProcess:
    """One running VictoriaMetrics program, reached at ``url`` (http://host:port)."""

    url: str
    process: Process


@contextlib.contextmanager
def _running(
    program: str | Path, name: str, workdir: Path, port: int, timeout: float, *flags: str
) -> Iterator[VictoriaMetricsProcess]:
    workdir.mkdir(parents=True, exist_ok=True)
    address = f"{HOST}:{port or free_port()}"
    argv = [str(program), f"-httpListenAddr={address}", "-loggerLevel=WARN", *flags]
    url = f"http://{address}"
    with started(name, argv, log_dir=workdir) as process:
        process.wait_until(lambda: answers(f"{url}/health"), "become ready", timeout)
        yield VictoriaMetricsProcess(url, process)


@contextlib.contextmanager
def running_victoria_metrics(
    program: str | Path,
    workdir: Path,
    name: str = "victoria-metrics",
    latency_offset: str = LATENCY_OFFSET,
    timeout: float = START_SECONDS,
    port: int = 0,
) -> Iterator[VictoriaMetricsProcess]:
    """The single-node server, its data in ``workdir``; it takes remote writes at
    /api/v1/write and answers Prometheus' query API."""
    flags = (
        f"-storageDataPath={workdir / f'{name}-data'}",
        f"-search.latencyOffset={latency_offset}",
    )
    with _running(program, name, workdir, port, timeout, *flags) as server:
        yield server


@contextlib.contextmanager
def running_vmagent(
    program: str | Path,
    scrape_config: dict[str, Any],
    remote_write_url: str,
    workdir: Path,
    name: str = "vmagent",
    timeout: float = START_SECONDS,
) -> Iterator[VictoriaMetricsProcess]:
    """vmagent scraping as ``scrape_config`` says (prometheus.yml's global and scrape_configs,
    as a dict) and remote-writing every sample to ``remote_write_url``."""
    workdir.mkdir(parents=True, exist_ok=True)
    config_file = workdir / f"{name}.yml"
    config_file.write_text(yaml.safe_dump(scrape_config))
    flags = (
        f"-promscrape.config={config_file}",
        f"-remoteWrite.url={remote_write_url}",
        f"-remoteWrite.tmpDataPath={workdir / f'{name}-queue'}",
        "-remoteWrite.flushInterval=1s",
    )
    with _running(program, name, workdir, 0, timeout, *flags) as agent:
        yield agent


@contextlib.contextmanager
def running_vmalert(
    program: str | Path,
    rule_files: Sequence[Path | str],
    datasource_url: str,
    workdir: Path,
    evaluation_interval: str,
    notifier_url: str | None = None,
    name: str = "vmalert",
    timeout: float = START_SECONDS,
    port: int = 0,
) -> Iterator[VictoriaMetricsProcess]:
    """vmalert evaluating ``rule_files`` every ``evaluation_interval`` against the server at
    ``datasource_url``, writing recording results and alert states back to it (and restoring
    alert states from it after a restart), sending alerts to Alertmanager at ``notifier_url``
    (none: alerts are evaluated and shown, not sent)."""
    flags = [
        *(f"-rule={path}" for path in rule_files),
        f"-datasource.url={datasource_url}",
        f"-remoteWrite.url={datasource_url}",
        "-remoteWrite.flushInterval=1s",
        f"-remoteRead.url={datasource_url}",
        f"-evaluationInterval={evaluation_interval}",
        # evaluate at now minus the server's latency offset, where its data is complete
        f"-rule.evalDelay={LATENCY_OFFSET}",
    ]
    flags.append(f"-notifier.url={notifier_url}" if notifier_url else "-notifier.blackhole")
    with _running(program, name, workdir, port, timeout, *flags) as evaluator:
        yield evaluator


@dataclass
class VictoriaMetricsStack:
    """vmagent -> VictoriaMetrics <- vmalert, queried as a Prometheus server is: ``query`` asks
    the server, ``alerts`` and ``rule_groups`` ask vmalert."""

    server: VictoriaMetricsProcess
    agent: VictoriaMetricsProcess
    evaluator: VictoriaMetricsProcess

    @property
    def url(self) -> str:
        """Where the alerts are read (vmalert: /api/v1/alerts, as Prometheus serves them)."""
        return self.evaluator.url

    @property
    def processes(self) -> list[Process]:
        return [self.server.process, self.agent.process, self.evaluator.process]

    def query(self, expr: str) -> list[dict]:
        """An instant query now; ``nocache`` asks for the newest samples too, as Prometheus
        answers, instead of holding back the latency offset."""
        return api_data(f"{self.server.url}/api/v1/query", query=expr, nocache="1")["result"]

    def alerts(self) -> list[dict[str, str]]:
        """The labels (alertname included) of every alert pending or firing in vmalert."""
        return [
            alert["labels"] for alert in api_data(f"{self.evaluator.url}/api/v1/alerts")["alerts"]
        ]

    def rule_groups(self) -> list[dict[str, Any]]:
        """vmalert's rule groups (/api/v1/rules): each with its rules, their type, health and
        lastError."""
        return api_data(f"{self.evaluator.url}/api/v1/rules")["groups"]


@dataclass(frozen=True)
class VictoriaMetricsPrograms:
    """Where the three programs are."""

    server: Path
    agent: Path
    evaluator: Path


@contextlib.contextmanager
def running_victoriametrics_stack(
    programs: VictoriaMetricsPrograms,
    scrape_config: dict[str, Any],
    rule_files: Sequence[Path | str],
    workdir: Path,
    evaluation_interval: str,
    notifier_url: str | None = None,
    vmalert_port: int = 0,
) -> Iterator[VictoriaMetricsStack]:
    """The server, vmagent scraping as ``scrape_config`` says into it, and vmalert evaluating
    ``rule_files`` over it every ``evaluation_interval``, each with its files in ``workdir``."""
    with contextlib.ExitStack() as stack:
        server = stack.enter_context(running_victoria_metrics(programs.server, workdir))
        agent = stack.enter_context(
            running_vmagent(programs.agent, scrape_config, f"{server.url}/api/v1/write", workdir)
        )
        evaluator = stack.enter_context(
            running_vmalert(
                programs.evaluator,
                rule_files,
                server.url,
                workdir,
                evaluation_interval,
                notifier_url,
                port=vmalert_port,
            )
        )
        yield VictoriaMetricsStack(server, agent, evaluator)
