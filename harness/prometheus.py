"""Prometheus and Alertmanager as real processes on free ports, each with its configuration and
data in a working folder, ready once ``/-/ready`` answers."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from ndb_harness.api import answers, api_data
from ndb_harness.ports import HOST, free_port
from ndb_harness.process import Process, started

START_SECONDS = 60.0


@dataclass
class Prometheus:
    """A running Prometheus server (or Alertmanager), queried through its HTTP API."""

    url: str  # http://host:port
    process: Process

    def query(self, expr: str) -> list[dict]:
        return api_data(f"{self.url}/api/v1/query", query=expr)["result"]

    def alerts(self) -> list[dict[str, str]]:
        """The labels (alertname included) of every alert whose expression was true at the
        rules' last evaluation, pending or firing: all the rules in one request, evaluated by
        Prometheus itself instead of one query per expression."""
        return [alert["labels"] for alert in api_data(f"{self.url}/api/v1/alerts")["alerts"]]

    def rule_groups(self) -> list[dict]:
        """The rule groups of /api/v1/rules, each rule with its `health` and `lastError`."""
        return api_data(f"{self.url}/api/v1/rules")["groups"]


@contextlib.contextmanager
def _running(
    program: str | Path,
    name: str,
    config: dict[str, Any],
    workdir: Path,
    port: int,
    timeout: float,
    *flags: str,
) -> Iterator[Prometheus]:
    """``program`` with ``config`` written to ``workdir``, on ``port`` (0: a free one)."""
    workdir.mkdir(parents=True, exist_ok=True)
    config_file = workdir / f"{name}.yml"
    config_file.write_text(yaml.safe_dump(config))
    address = f"{HOST}:{port or free_port()}"
    argv = [
        str(program),
        f"--config.file={config_file}",
        f"--web.listen-address={address}",
        "--log.level=warn",
        *flags,
    ]
    url = f"http://{address}"
    with started(name, argv, log_dir=workdir) as process:
        process.wait_until(lambda: answers(f"{url}/-/ready"), "become ready", timeout)
        yield Prometheus(url, process)


@contextlib.contextmanager
def running_prometheus(
    program: str | Path,
    config: dict[str, Any],
    workdir: Path,
    name: str = "prometheus",
    timeout: float = START_SECONDS,
    port: int = 0,
) -> Iterator[Prometheus]:
    """Prometheus ``program`` with ``config`` (prometheus.yml as a dict), its files in
    ``workdir``, on ``port`` (default: a free one)."""
    storage = f"--storage.tsdb.path={workdir / f'{name}-data'}"
    with _running(program, name, config, workdir, port, timeout, storage) as prometheus:
        yield prometheus


@contextlib.contextmanager
def running_alertmanager(
    program: str | Path,
    config: dict[str, Any],
    workdir: Path,
    name: str = "alertmanager",
    timeout: float = START_SECONDS,
) -> Iterator[Prometheus]:
    """Alertmanager ``program`` with ``config`` (alertmanager.yml as a dict), alone (no gossip
    port), its files in ``workdir``, on a free port."""
    storage = f"--storage.path={workdir / f'{name}-data'}"
    alone = "--cluster.listen-address="
    with _running(program, name, config, workdir, 0, timeout, storage, alone) as alertmanager:
        yield alertmanager
