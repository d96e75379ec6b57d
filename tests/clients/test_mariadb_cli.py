"""The mariadb command-line client, batch and table output."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from tests.clients.clients_helpers import CHECKS, expect

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(shutil.which("mariadb") is None, reason="Debian mariadb-client missing"),
]

QUERIES = {
    "connect": "SELECT 1",
    "prepared": "PREPARE s FROM 'SELECT node_id, uptime FROM ndbinfo.nodes WHERE node_id >= ?'; "
    "SET @a = 1; EXECUTE s USING @a",
    "nodes": "SELECT * FROM ndbinfo.nodes",
    "status": "SHOW GLOBAL STATUS LIKE 'Ndb%'",
    "engine_status": "SHOW ENGINE NDBCLUSTER STATUS",
}
OUTPUTS = {"batch": "--batch", "table": "--table"}


def _run(sim, output: str, sql: str) -> dict:
    done = subprocess.run(
        [
            "mariadb", "--protocol=TCP", f"-h{sim.host}", f"-P{sim.port}", f"-u{sim.user}",
            f"-p{sim.password}", "-Dndbinfo", OUTPUTS[output], "-e", sql,
        ],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    if done.returncode:
        code = re.search(r"^ERROR (\d+)", done.stderr, re.M)
        error = done.stderr.strip().splitlines()[-1]
        return {"ok": False, "code": int(code[1]) if code else 0, "error": error}
    lines = done.stdout.splitlines()
    if output == "table":  # +---+, header, +---+, rows..., +---+
        assert lines[0].startswith("+") and lines[-1].startswith("+"), done.stdout[:400]
        rows = len(lines) - 4
    else:
        rows = len(lines) - 1
    return {"ok": True, "rows": rows}


@pytest.mark.parametrize("output", OUTPUTS)
@pytest.mark.parametrize("check", CHECKS)
def test_mariadb_cli(sim, output, check):
    result = {"check": check, **_run(sim, output, QUERIES[check])}
    item = expect({check: result}, check)
    if check in ("prepared", "nodes", "status", "connect"):
        assert item["rows"] >= 1
