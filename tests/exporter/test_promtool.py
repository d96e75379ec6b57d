"""A full scrape of ndbsim passes `promtool check metrics` (Prometheus' own linter) of every
Prometheus build the tests run on."""

from __future__ import annotations

import subprocess

import httpx
import pytest
from ndb_harness import running_exporter, running_ndbsim
from ndbinfo_exporter.collectors.registry import all_collectors

from tests.support.live_stack import PrometheusBuild, every_prometheus_build

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def full_scrape() -> str:
    every_collector = [f"--collector.{c.name}" for c in all_collectors()]
    with running_ndbsim(password="promtool-pw") as sim:
        args = [
            f"--mysqld.address=127.0.0.1:{sim.port}",
            f"--mysqld.username={sim.user}",
            *every_collector,
        ]
        with running_exporter(args, env={"NDB_EXPORTER_PASSWORD": "promtool-pw"}) as exporter:
            body = httpx.get(f"http://{exporter.address}/metrics", timeout=60).text
    assert "ndb_up 1.0" in body
    return body


@every_prometheus_build
def test_full_scrape_passes_promtool(prometheus_build: PrometheusBuild, full_scrape: str):
    prometheus_build.require()
    check = subprocess.run(
        [str(prometheus_build.promtool), "check", "metrics"],
        input=full_scrape,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert check.returncode == 0, check.stdout + check.stderr
    assert check.stdout.strip() == "" and check.stderr.strip() == ""
