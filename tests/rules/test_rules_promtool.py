"""The rule files and the Alertmanager config pass Prometheus' own tools and unit tests, the
rules on every Prometheus build the tests run on (2.x and 3.x evaluate range selectors
differently)."""

import os
import re
import subprocess

import pytest

from tests.rules.rules_model import (
    ALERTMANAGER_FILE,
    ROOT,
    RULE_FILES,
    RULES_DIR,
    RUNBOOK_FILE,
    RUNBOOK_URL,
    UNIT_TEST_FILES,
    alert_rules,
    tool,
)
from tests.support.live_stack import (
    PROMETHEUS_BUILDS,
    TOOLS,
    PrometheusBuild,
    every_prometheus_build,
    require_programs,
)

pytestmark = [pytest.mark.integration, pytest.mark.long(minutes=6)]  # promtool


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(args, capture_output=True, text=True, cwd=RULES_DIR, timeout=300)


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


@pytest.mark.parametrize("rule_file", RULE_FILES, ids=[f.stem for f in RULE_FILES])
def test_thanos_rules_check(rule_file):
    """Thanos Ruler takes every shipped rule file unchanged (`make tools` builds thanos)."""
    thanos = TOOLS / "thanos"
    require_programs(thanos)
    result = run(str(thanos), "tools", "rules-check", f"--rules={rule_file}")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "result=SUCCESS" in result.stderr + result.stdout


def test_there_are_promtool_unit_tests():
    assert UNIT_TEST_FILES, "no promtool unit tests found"


# One promtool run per test file: each is bounded on its own, and a failure names its file.
@every_prometheus_build
@pytest.mark.parametrize("unit_tests", UNIT_TEST_FILES, ids=[f.stem for f in UNIT_TEST_FILES])
def test_promtool_unit_tests(prometheus_build: PrometheusBuild, unit_tests):
    prometheus_build.require()
    result = run(str(prometheus_build.promtool), "test", "rules", str(unit_tests))
    assert result.returncode == 0, result.stdout + result.stderr


def test_runbook_recipe_for_another_runbook_base(tmp_path):
    """The runbook's shell recipe for plain rule files changes every runbook_url's address,
    and nothing else, and promtool takes the result."""
    (recipe,) = [
        block
        for block in re.findall(r"```sh\n(.*?)```", RUNBOOK_FILE.read_text(), flags=re.DOTALL)
        if "runbook_url" in block
    ]
    base = re.search(r"\\1(\S+?)\|", recipe).group(1)
    (tmp_path / "provisioning").symlink_to(ROOT / "provisioning", target_is_directory=True)
    build = PROMETHEUS_BUILDS[-1]
    build.require()
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "promtool").symlink_to(build.promtool)
    path = f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}"
    result = subprocess.run(
        ["bash", "-euc", recipe],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "PATH": path},
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    changed = 0
    for source in RULE_FILES:
        text = source.read_text()
        changed += text.count(f"runbook_url: {RUNBOOK_URL}")
        expected = text.replace(f"runbook_url: {RUNBOOK_URL}", f"runbook_url: {base}#")
        assert (tmp_path / "rules" / source.name).read_text() == expected
    assert changed == len(alert_rules())


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
