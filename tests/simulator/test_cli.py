"""`ndbsim` command line: bad options give one line on stderr and exit 2; `ndbsim fault`
drives a running simulator."""

from __future__ import annotations

import json

import pytest
from ndb_harness import running_ndbsim

from tests.support.ndbsim_cli import run

pytestmark = pytest.mark.integration  # starts ndbsim


@pytest.mark.parametrize(
    ("args", "text"),
    [
        (["--data-nodes", "3", "--replicas", "2"], "multiple of replicas"),
        (["--replicas", "5"], "--replicas"),
        (["--data-nodes", "0"], "--data-nodes"),
        (["--ndb-version", "9.9"], "unsupported NDB version"),
        (["--speed", "0"], "--speed"),
        (["--pruned-scan-share", "1.5"], "--pruned-scan-share"),
        (["--batching", "0.5"], "--batching"),
        (["--port", "70000"], "--port"),
        (["--sql-nodes", "9"], "--sql-nodes"),
        (["--port", "65535"], "no room for a port per SQL node"),
        (["--replica", "--port", "3306", "--replica-port", "3307"], "source's SQL node ports"),
        (["--active-active"], "--active-active needs --replica"),
        (["--tables", "x"], "--tables"),
        (["--max-connections", "0"], "--max-connections"),
        (["--connect-timeout", "x"], "--connect-timeout"),
        (["--config", "NoSuchParam=1"], "unknown data node parameter"),
        (["--config", "DataMemory=lots"], "not an unsigned number"),
        (["--config", "DataMemory=1K"], "below the minimum"),
        (["--config", "DataMemory=1G@9"], "not a data node id"),
        (["--config", "DataMemory"], "Param=Value"),
        (["--config", "IndexMemory=64M"], "unknown data node parameter"),
        (["--bogus"], "unrecognized arguments"),
        (["fault", "data-memory", "2"], "must be >= 0"),
        (["fault", "stop-node", "x"], "not a whole number"),
        (["fault", "explode"], "invalid choice"),
        (["fault", "replica-behind", "--seconds", "0"], "must be > 0"),
        (["fault", "reset", "--cluster", "dr"], "invalid choice"),
    ],
)
def test_bad_options_exit_2_with_one_line(args, text):
    result = run(*args)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert text in lines[0]
    assert "Traceback" not in result.stderr


def test_fault_commands_against_running_simulator():
    with running_ndbsim(speed=20, password="s3cret") as sim:
        url = ["--control-url", sim.control_url]
        result = run("fault", *url, "stop-node", "2")
        assert result.returncode == 0, result.stderr
        assert json.loads(result.stdout)["state"] == "STOPPED"
        assert run("fault", *url, "lcp-stall").returncode == 0
        assert run("fault", *url, "slow-ndbinfo", "1", "--table", "threadstat").returncode == 0
        listed = json.loads(run("fault", *url, "list").stdout)
        assert set(listed) == {"lcp-stall", "slow-ndbinfo"}
        assert listed["slow-ndbinfo"] == {"seconds": 1.0, "table": "threadstat"}
        assert run("fault", *url, "clear", "lcp-stall").returncode == 0
        bad = run("fault", *url, "clear", "nonsense")
        assert bad.returncode == 1
        assert "unknown fault" in bad.stderr
        assert run("fault", *url, "start-node", "2").returncode == 0
        sql_node = sim.status()["sql_node_ids"][-1]
        stopped = json.loads(run("fault", *url, "stop-node", str(sql_node)).stdout)
        assert stopped == {"node_id": sql_node, "type": "API", "state": "DISCONNECTED"}
        assert run("fault", *url, "reset").returncode == 0
        assert sim.status()["faults"] == {}
        assert "s3cret" not in sim.process.log


def test_fault_command_without_simulator():
    result = run("fault", "--control-url", "http://127.0.0.1:9", "list")
    assert result.returncode == 1
    assert result.stderr.startswith("ndbsim fault: cannot reach")


def test_sigterm_exits_cleanly():
    with running_ndbsim() as sim:
        assert sim.process.stop() == 0


def test_resource_fault_commands():
    with running_ndbsim(speed=20) as sim:
        url = ["--control-url", sim.control_url]
        assert run("fault", *url, "send-buffer-pressure", "1", "--share", "0.9").returncode == 0
        assert run("fault", *url, "tablespace-full", "0.97").returncode == 0
        assert run("fault", *url, "certificate-expiring", "2", "--node", "49").returncode == 0
        assert run("fault", *url, "metadata-excluded", "2").returncode == 0
        assert sim.status()["faults"] == {
            "send-buffer-pressure": {"node": 1, "share": 0.9},
            "tablespace-full": {"share": 0.97},
            "certificate-expiring": {"days": 2.0, "node": 49},
            "metadata-excluded": {"tables": 2},
        }
        assert run("fault", *url, "reset").returncode == 0
        assert run("fault", *url, "undo-log-growth", "0.2", "--share", "0.6").returncode == 0
        assert run("fault", *url, "backups-stopped").returncode == 0
        assert run("fault", *url, "old-version", "2").returncode == 0
        assert run("fault", *url, "old-config-generation", "1").returncode == 0
        faults = sim.status()["faults"]
        assert faults.pop("undo-log-growth").keys() == {"rate", "share", "since"}
        assert faults == {
            "backups-stopped": {},
            "old-version": {"node": 2},
            "old-config-generation": {"node": 1},
        }
        assert run("fault", *url, "redo-log-growth", "0").returncode == 2
        bad = run("fault", *url, "send-buffer-pressure", "50")
        assert bad.returncode == 1 and "not a data node" in bad.stderr
        assert run("fault", *url, "reset").returncode == 0
        assert sim.status()["faults"] == {}


def test_buffer_pool_and_checkpoint_fault_commands():
    with running_ndbsim(speed=20) as sim:
        url = ["--control-url", sim.control_url]
        assert run("fault", *url, "disk-page-buffer-misses").returncode == 0
        assert run("fault", *url, "gcp-stall").returncode == 0
        pool = ["resource-pool", "0.95", "--resource", "QUERY_MEMORY"]
        assert run("fault", *url, *pool).returncode == 0
        assert run("fault", *url, "buffer-full", "undo", "0.9").returncode == 0
        assert sim.status()["faults"] == {
            "disk-page-buffer-misses": {"share": 0.8},
            "gcp-stall": {},
            "resource-pool": {"resource": "QUERY_MEMORY", "share": 0.95},
            "buffer-full": {"buffer": "undo", "share": 0.9},
        }
        assert run("fault", *url, "buffer-full", "send", "0.9").returncode == 2
        assert (
            run("fault", *url, "resource-pool", "0.9", "--resource", "DATA_MEMORY").returncode == 2
        )
        assert run("fault", *url, "reset").returncode == 0
        assert sim.status()["faults"] == {}


def test_replication_fault_commands():
    with running_ndbsim(replica=True, speed=20) as sim:
        url = ["--control-url", sim.control_url]
        assert run("fault", *url, "replica-behind", "--seconds", "400").returncode == 0
        assert run("fault", *url, "injector-behind", "--gap").returncode == 0
        assert run("fault", *url, "conflicts", "--function", "NDB$EPOCH_TRANS").returncode == 0
        assert sim.status()["faults"] == {
            "replica-behind": {"seconds": 400.0},
            "injector-behind": {"gap": True},
            "conflicts": {"function": "NDB$EPOCH_TRANS"},
        }
        link = json.loads(run("fault", *url, "replication").stdout)
        assert link["last_sql_errno"] == 1590
        stopped = run("fault", *url, "stop-node", "2", "--cluster", "replica")
        assert json.loads(stopped.stdout)["state"] == "STOPPED"
        assert run("fault", *url, "reset", "--cluster", "replica").returncode == 0
        assert run("fault", *url, "reset").returncode == 0
        assert sim.status()["faults"] == {}


def test_a_link_fault_names_the_cluster_of_its_link():
    """With --active-active, `--cluster replica` sets a link fault on the link back."""
    with running_ndbsim("--active-active", replica=True, speed=20) as sim:
        url = ["--control-url", sim.control_url]
        assert run("fault", *url, "replica-sql-error", "--cluster", "replica").returncode == 0
        assert sim.status(cluster="replica")["faults"] == {"replica-sql-error": {}}
        assert sim.status()["faults"] == {}


def test_replication_faults_need_the_replica():
    with running_ndbsim(speed=20) as sim:
        bad = run("fault", "--control-url", sim.control_url, "replica-sql-error")
        assert bad.returncode == 1 and "start ndbsim with --replica" in bad.stderr
        bad = run("fault", "--control-url", sim.control_url, "status", "--cluster", "replica")
        assert bad.returncode == 1 and "no replica cluster" in bad.stderr
