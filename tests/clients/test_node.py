"""Node's mysql2 with its defaults; execute() prepares on the server."""

from __future__ import annotations

import os

import pytest

from tests.clients.clients_helpers import CHECKS, ROOT, TOOLS, build, expect, run_checks

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def results(sim) -> dict:
    build("node")
    env = {**os.environ, "NODE_PATH": str(TOOLS / "node" / "node_modules")}
    program = ROOT / "tests" / "clients" / "node" / "run.js"
    args = ["node", str(program), sim.host, str(sim.port), sim.user, sim.password]
    return run_checks(args, env=env)


@pytest.mark.parametrize("check", CHECKS)
def test_mysql2(results, check):
    item = expect(results, check)
    if check in ("prepared", "nodes"):
        assert item["rows"] >= 1
