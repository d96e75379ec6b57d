"""cluster/initdb/10-users.sh, the SQL nodes' first-start script of the compose stack,
run the way the image's entrypoint runs it (sourced, with "${mysql[@]}" as root client)
against a real server: the users exist with the documented, minimal grants."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import mysql.connector
import pytest

pytestmark = pytest.mark.integration

SCRIPT = Path(__file__).resolve().parents[2] / "cluster/initdb/10-users.sh"
EXPORTER_PW = "exp'o\"rter pw"  # quotes must survive
LOADGEN_PW = "load-gen-pw"


@pytest.fixture(scope="module")
def initialised(mariadb_server):
    client = shutil.which("mariadb") or shutil.which("mysql")
    if client is None:
        pytest.skip("mariadb-client is not installed")
    script = f'set -e; mysql=({client} --socket="$SOCK" -uroot); source "$SCRIPT"'
    env = {
        "SOCK": str(mariadb_server.socket),
        "SCRIPT": str(SCRIPT),
        "NDB_EXPORTER_PASSWORD": EXPORTER_PW,
        "NDB_LOADGEN_PASSWORD": LOADGEN_PW,
        "PATH": "/usr/bin:/bin",
    }
    for _ in range(2):  # a second run (IF NOT EXISTS) must not fail
        result = subprocess.run(
            ["bash", "-c", script], env=env, capture_output=True, text=True, timeout=60
        )
        assert result.returncode == 0, result.stderr
    return mariadb_server


def _grants(server, user: str, password: str) -> set[tuple[str, str]]:
    conn = mysql.connector.connect(host="127.0.0.1", port=server.port, user=user, password=password)
    cur = conn.cursor()
    cur.execute("SHOW GRANTS")
    grants = set()
    for (line,) in cur.fetchall():
        match = re.match(r"GRANT (.+?) ON (\S+) TO ", line)
        for privilege in match.group(1).split(","):
            grants.add((privilege.strip(), match.group(2).replace("`", "")))
    conn.close()
    return grants


def test_exporter_user_has_the_readme_grants_only(initialised):
    """MariaDB names REPLICATION CLIENT "BINLOG MONITOR"; it has no mysql.ndb_apply_status
    (as on a SQL node not yet connected to its cluster) and no mysql.ndb_binlog_index (as on a
    server built without NDB), so those grants are left out."""
    assert _grants(initialised, "ndbexporter", EXPORTER_PW) == {
        ("PROCESS", "*.*"),
        ("BINLOG MONITOR", "*.*"),
        ("SELECT", "ndbinfo.*"),
        ("SELECT", "performance_schema.replication_applier_status_by_worker"),
        ("SELECT", "performance_schema.replication_applier_status"),
    }


def test_loadgen_user_owns_its_database_only(initialised):
    assert _grants(initialised, "loadgen", LOADGEN_PW) == {
        ("USAGE", "*.*"),
        ("ALL PRIVILEGES", "loadgen.*"),
    }


def test_script_refuses_to_run_without_passwords(mariadb_server):
    result = subprocess.run(
        ["bash", "-c", f'set -e; mysql=(false); source "{SCRIPT}"'],
        env={"PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode != 0 and "NDB_EXPORTER_PASSWORD must be set" in result.stderr
