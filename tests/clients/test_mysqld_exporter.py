"""Debian's prometheus-mysqld-exporter (0.14) with its default collectors against ndbsim.

The exporter reports a failed collector as a `mysql_exporter_scrape_errors_total{collector}`
sample and `mysql_exporter_last_scrape_error 1`; a collector that ran has a
`mysql_exporter_collector_duration_seconds{collector}` sample.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from ndb_harness import free_port, running_ndbsim

pytestmark = pytest.mark.integration

EXPORTER = "prometheus-mysqld-exporter"
# the collectors 0.14 enables by default (global_status, global_variables, slave_status,
# info_schema.innodb_cmp, info_schema.innodb_cmpmem, info_schema.query_response_time)
DEFAULT_COLLECTORS = {
    "collect.global_status",
    "collect.global_variables",
    "collect.slave_status",
    "collect.info_schema.innodb_cmp",
    "collect.info_schema.innodb_cmpmem",
    "collect.info_schema.query_response_time",
}
_SAMPLE = re.compile(r"^(?P<name>[a-z_]+)(?:\{(?P<labels>[^}]*)\})? (?P<value>\S+)$")


def _samples(text: str) -> list[tuple[str, dict[str, str], float]]:
    out = []
    for line in text.splitlines():
        m = _SAMPLE.match(line)
        if m:
            labels = dict(re.findall(r'(\w+)="([^"]*)"', m["labels"] or ""))
            out.append((m["name"], labels, float(m["value"])))
    return out


@pytest.fixture(scope="module")
def exporter_binary() -> str:
    path = shutil.which(EXPORTER)
    if path is None:
        pytest.fail(f"{EXPORTER} not found: run `make system-packages`")
    return path


def _scrape(binary: str, version: str, tmp_path: Path) -> tuple[str, str]:
    """Start ndbsim and the exporter on free ports; one scrape of /metrics and the log."""
    with running_ndbsim(ndb_version=version) as sim:
        cnf = tmp_path / f"my-{version}.cnf"
        cnf.write_text(
            f"[client]\nuser={sim.user}\npassword={sim.password}\nhost={sim.host}\n"
            f"port={sim.port}\n"
        )
        cnf.chmod(0o600)
        port = free_port()
        log = tmp_path / f"exporter-{version}.log"
        env = {k: v for k, v in os.environ.items() if k != "DATA_SOURCE_NAME"}
        with log.open("w") as out:
            process = subprocess.Popen(
                [binary, f"--config.my-cnf={cnf}", f"--web.listen-address=127.0.0.1:{port}"],
                stdout=out,
                stderr=subprocess.STDOUT,
                env=env,
            )
        try:
            deadline = time.monotonic() + 30
            while True:
                try:
                    response = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=20)
                    break
                except httpx.TransportError:
                    if time.monotonic() > deadline or process.poll() is not None:
                        raise
                    time.sleep(0.2)
            assert response.status_code == 200
            return response.text, log.read_text()
        finally:
            process.terminate()
            process.wait(10)


@pytest.fixture(scope="module")
def scrapes(exporter_binary: str, tmp_path_factory) -> Iterator[dict[str, tuple[str, str]]]:
    tmp = tmp_path_factory.mktemp("mysqld_exporter")
    yield {v: _scrape(exporter_binary, v, tmp) for v in ("7.5.4", "8.0", "8.4")}


def _failed(text: str) -> set[str]:
    return {
        labels["collector"]
        for name, labels, value in _samples(text)
        if name == "mysql_exporter_scrape_errors_total" and value > 0
    }


def _ran(text: str) -> set[str]:
    return {
        labels["collector"]
        for name, labels, _ in _samples(text)
        if name == "mysql_exporter_collector_duration_seconds"
    }


@pytest.mark.parametrize("version", ["7.5.4", "8.0"])
def test_every_default_collector_succeeds(scrapes, version: str) -> None:
    text, log = scrapes[version]
    values = {name: value for name, labels, value in _samples(text) if not labels}
    assert values["mysql_up"] == 1, log
    assert values["mysql_exporter_last_scrape_error"] == 0, log
    assert _failed(text) == set(), log
    assert _ran(text) >= DEFAULT_COLLECTORS


def test_84_fails_only_the_removed_slave_status(scrapes) -> None:
    """MySQL 8.4 removed SHOW SLAVE STATUS (SHOW REPLICA STATUS replaces it); 0.14 knows only
    the old statement, so against 8.4, ndbsim's as a real one, that collector fails."""
    text, log = scrapes["8.4"]
    values = {name: value for name, labels, value in _samples(text) if not labels}
    assert values["mysql_up"] == 1, log
    assert _failed(text) == {"collect.slave_status"}, log
    assert "Error 1064" in log
    assert _ran(text) >= DEFAULT_COLLECTORS


@pytest.mark.parametrize("version", ["7.5.4", "8.4"])
def test_status_and_variables_are_those_of_a_mysqld(scrapes, version: str) -> None:
    text, _ = scrapes[version]
    names = {name for name, _, _ in _samples(text)}
    status = {n for n in names if n.startswith("mysql_global_status_")}
    variables = {n for n in names if n.startswith("mysql_global_variables_")}
    assert len(status) >= 150
    assert len(variables) >= 300
    for name in (
        "mysql_global_status_uptime",
        "mysql_global_status_threads_connected",
        "mysql_global_status_questions",
        "mysql_global_status_commands_total",
        "mysql_global_variables_max_connections",
        "mysql_global_variables_innodb_buffer_pool_size",
        "mysql_global_variables_ndb_batch_size",
        "mysql_version_info",
        "mysql_transaction_isolation",
    ):
        assert name in names, name
    version_info = [labels for name, labels, _ in _samples(text) if name == "mysql_version_info"]
    assert version_info[0]["innodb_version"]
    query_cache = "mysql_global_variables_query_cache_size" in names
    assert query_cache == (version == "7.5.4")
