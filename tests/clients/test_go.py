"""go-sql-driver/mysql with its defaults: server-side prepared statements (binary protocol)."""

from __future__ import annotations

import pytest

from tests.clients.clients_helpers import CHECKS, TOOLS, build, expect, run_checks

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def results(sim) -> dict:
    build("go")
    dsn = f"{sim.user}:{sim.password}@tcp({sim.host}:{sim.port})/ndbinfo"
    return run_checks([str(TOOLS / "go" / "ndbsim-client"), dsn])


@pytest.mark.parametrize("check", [*CHECKS, "prepared_typed"])
def test_go_driver(results, check):
    item = expect(results, check)
    if check.startswith("prepared") or check == "nodes":
        assert item["rows"] >= 1
