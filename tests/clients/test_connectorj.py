"""MySQL Connector/J with its defaults, on the machine's JDK."""

from __future__ import annotations

import pytest

from tests.clients.clients_helpers import CHECKS, TOOLS, build, expect, run_checks

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def results(sim) -> dict:
    build("java")
    classpath = f"{TOOLS / 'java' / 'classes'}:{TOOLS / 'java' / 'lib'}/*"
    args = ["java", "-cp", classpath, "Run", sim.host, str(sim.port), sim.user, sim.password]
    return run_checks(args)


@pytest.mark.parametrize("check", [*CHECKS, "get_columns"])
def test_connector_j(results, check):
    item = expect(results, check)
    if check in ("prepared", "nodes", "get_columns"):
        assert item["rows"] >= 1
