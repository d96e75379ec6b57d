"""ndb-loadgen against a real MariaDB server: every workload runs the statements it is
meant to, and the non-NDB fallback (InnoDB, partitioning kept) is reported."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from ndb_loadgen import runner, schema
from ndb_loadgen.cli import _prepare
from ndb_loadgen.target import ConnectionSpec
from ndb_loadgen.workloads import BATCH_ROWS, WORKLOADS

from tests.support.private_mariadb import DATABASE, PASSWORD, USER

pytestmark = pytest.mark.integration

CUSTOMERS = 200
COUNT = 40
# The statement counter each workload's statement moves on the server.
COMMAND = {
    "pk-read": "Com_select",
    "pk-read-backup": "Com_select",
    "pk-write": "Com_update",
    "insert-single": "Com_insert",
    "insert-batch": "Com_insert",
    "scan-pruned": "Com_select",
    "scan-unpruned": "Com_select",
    "full-scan": "Com_select",
    "join": "Com_select",
}
# Statements a new connection may add to the counters (driver set-up), per connection.
PER_CONNECTION = 2


def _spec(server) -> ConnectionSpec:
    return ConnectionSpec("127.0.0.1", server.port, USER, PASSWORD, DATABASE)


@pytest.fixture(scope="module")
def prepared(mariadb_server):
    return _prepare(_spec(mariadb_server), CUSTOMERS)


def test_every_workload_has_its_server_counter():
    assert set(COMMAND) == set(WORKLOADS)


def test_fallback_is_innodb_with_partitioning(prepared, mariadb_server):
    target, layout = prepared
    assert not target.ndb and layout.engine == "InnoDB" and layout.partitioned
    conn = mariadb_server.root(DATABASE)
    cur = conn.cursor()
    cur.execute(
        "SELECT TABLE_NAME, ENGINE FROM information_schema.TABLES WHERE TABLE_SCHEMA = %s",
        (DATABASE,),
    )
    assert dict(cur.fetchall()) == dict.fromkeys(
        ["customers", "customers_rb", "orders", "events"], "InnoDB"
    )
    cur.execute(
        "SELECT PARTITION_METHOD, PARTITION_EXPRESSION FROM information_schema.PARTITIONS"
        " WHERE TABLE_SCHEMA = %s AND TABLE_NAME = 'orders'",
        (DATABASE,),
    )
    assert {(m, e.strip("`")) for m, e in cur.fetchall()} == {("KEY", "customer_id")}
    cur.execute("SELECT COUNT(*) FROM orders")
    assert cur.fetchone()[0] == CUSTOMERS * schema.ORDERS_PER_CUSTOMER
    conn.close()


@pytest.mark.parametrize("name", list(WORKLOADS))
def test_workload_runs_its_statements(name, prepared, mariadb_server):
    threads = 2
    plan = runner.Plan([WORKLOADS[name]], threads, {}, None, COUNT, CUSTOMERS)
    events_before = _count(mariadb_server, "events")
    before = mariadb_server.global_status()
    (result,) = runner.run(_spec(mariadb_server), plan, measure_ndb=False)
    after = mariadb_server.global_status()

    assert (result.statements, result.errors, result.first_error) == (COUNT, 0, None)
    moved = after[COMMAND[name]] - before[COMMAND[name]]
    assert COUNT <= moved <= COUNT + threads * PER_CONNECTION
    if name.startswith("pk-"):
        assert result.rows == COUNT  # one row per primary key
    if name.startswith("insert-"):
        per_statement = BATCH_ROWS if name == "insert-batch" else 1
        assert result.rows == COUNT * per_statement
        assert _count(mariadb_server, "events") - events_before == COUNT * per_statement
    if name == "scan-pruned":
        assert result.rows == COUNT * schema.ORDERS_PER_CUSTOMER


def _count(server, table: str) -> int:
    conn = server.root(DATABASE)
    cur = conn.cursor()
    cur.execute(f"SELECT COUNT(*) FROM {table}")
    (count,) = cur.fetchone()
    conn.close()
    return count


def _cli(*args: str, password: str = PASSWORD) -> subprocess.CompletedProcess:
    env = {**os.environ, "NDB_LOADGEN_PASSWORD": password}
    return subprocess.run(
        [sys.executable, "-m", "ndb_loadgen.cli", "--user", USER, *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        cwd=Path(__file__).parent,
    )


def test_cli_reports_every_workload_and_the_fallback(mariadb_server):
    result = _cli(
        "--host", "127.0.0.1", "--port", str(mariadb_server.port), "--count", "20",
        "--customers", str(CUSTOMERS), "--threads", "2",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "ENGINE=InnoDB (engine ndbcluster is not available on this server)" in out
    assert "orders: PARTITION BY KEY (customer_id)" in out
    rows = {line.split()[0]: line.split() for line in out.splitlines() if line.split()}
    for name in WORKLOADS:
        assert rows[name][1:3] == ["20", "0"], rows[name]  # statements, errors
    assert "exec/stmt" not in out  # no NDB counters on InnoDB
    assert PASSWORD not in out + result.stderr


def test_wrong_password_is_one_line_without_the_password(mariadb_server):
    result = _cli("--port", str(mariadb_server.port), "--count", "1", password="wrong-pw-123")
    assert result.returncode == 1
    assert len(result.stderr.strip().splitlines()) == 1
    assert "wrong-pw-123" not in result.stderr + result.stdout
