"""The real mariadb command-line client talks to ndbsim like to a mysqld."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from tests.support.sqlnode_helpers import CAPTURES, PASSWORD, USER

pytestmark = [
    pytest.mark.integration,  # real MySQL clients against ndbsim
    pytest.mark.skipif(
        shutil.which("mariadb") is None,
        reason="mariadb client not installed (Debian mariadb-client)",
    ),
]


def mariadb(port: int, sql: str, password: str = PASSWORD) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            "mariadb", "--protocol=TCP", "-h127.0.0.1", f"-P{port}", f"-u{USER}",
            f"-p{password}", "-Dndbinfo", "--batch", "-e", sql,
        ],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip


@pytest.mark.parametrize(
    "capture", json.loads(CAPTURES.read_text())["captures"], ids=lambda c: c["query"][:40]
)
def test_seed_statements_through_mariadb(sqlnode_754, capture):
    result = mariadb(sqlnode_754.port, capture["query"])
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].split("\t") == capture["columns"]
    assert len(lines) > 1


def test_mariadb_wrong_password(sqlnode_754):
    result = mariadb(sqlnode_754.port, "select 1", password="nope")
    assert result.returncode != 0
    assert "ERROR 1045 (28000): Access denied for user 'ndbsim'@" in result.stderr


def test_mariadb_show_and_status(sqlnode_754):
    result = mariadb(sqlnode_754.port, "SHOW GLOBAL STATUS LIKE 'Ndb_number_of%'; SHOW TABLES")
    assert result.returncode == 0, result.stderr
    assert "Ndb_number_of_ready_data_nodes\t2" in result.stdout
    assert "memoryusage" in result.stdout
