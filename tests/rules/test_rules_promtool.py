"""The rule files and the Alertmanager config pass Prometheus' own tools and unit tests, the
rules on every Prometheus build the tests run on (2.x and 3.x evaluate range selectors
differently)."""

import subprocess

import pytest
from live_stack import PrometheusBuild, every_prometheus_build
from rules_model import ALERTMANAGER_FILE, RULE_FILES, RULES_DIR, UNIT_TEST_FILES, tool

pytestmark = pytest.mark.integration  # promtool


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(args, capture_output=True, text=True, cwd=RULES_DIR, timeout=120)


@every_prometheus_build
def test_promtool_check_rules(prometheus_build: PrometheusBuild):
    prometheus_build.require()
    result = run(
        str(prometheus_build.promtool),
        "check",
        "rules",
        "--lint=all",
        "--lint-fatal",
        *map(str, RULE_FILES),
    )
    assert result.returncode == 0, result.stdout + result.stderr


@every_prometheus_build
def test_promtool_unit_tests(prometheus_build: PrometheusBuild):
    assert UNIT_TEST_FILES, "no promtool unit tests found"
    prometheus_build.require()
    result = run(str(prometheus_build.promtool), "test", "rules", *map(str, UNIT_TEST_FILES))
    assert result.returncode == 0, result.stdout + result.stderr


def test_amtool_check_config():
    result = run(tool("amtool"), "check-config", str(ALERTMANAGER_FILE))
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize(
    ("severity", "receiver"),
    [("critical", "ndb-critical"), ("warning", "ndb-warning"), ("info", "ndb-info")],
)
def test_alertmanager_routes_by_severity(severity, receiver):
    result = run(
        tool("amtool"),
        "config",
        "routes",
        "test",
        f"--config.file={ALERTMANAGER_FILE}",
        f"--verify.receivers={receiver}",
        "alertname=NdbDataNodeDown",
        "cluster=c1",
        f"severity={severity}",
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip() == receiver
