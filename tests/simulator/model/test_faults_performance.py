"""The latency, transaction and lock faults show in exactly the tables a real cluster shows
them in, and clearing them returns those tables to healthy."""

from __future__ import annotations

import pytest
from ndbsim.model.faults import FaultError
from ndbsim.model.latency import PGMAN_BOUNDS, TC_BOUNDS

from tests.simulator.model.fault_sim import Sim

LOCK_TABLES = ("cluster_transactions", "cluster_operations", "cluster_locks")


@pytest.fixture
def sim() -> Sim:
    s = Sim(data_nodes=2, replicas=2, tables=8)
    s.tick(60)
    return s


def p99_bound(sim: Sim, table: str, column: str, since: dict[int, int] | None = None) -> int:
    """Upper bound of the range holding the 99th percentile of the counts (minus `since`)."""
    counts = dict(
        sim.q(f"SELECT upper_bound, SUM({column}) FROM ndbinfo.{table} GROUP BY 1 ORDER BY 1")
    )
    if since:
        counts = {b: n - since.get(b, 0) for b, n in counts.items()}
    total, running = sum(counts.values()), 0
    for bound in sorted(counts):
        running += counts[bound]
        if running >= 0.99 * total:
            return bound
    raise AssertionError("no counts")


def snapshot(sim: Sim, table: str, column: str) -> dict[int, int]:
    return dict(sim.q(f"SELECT upper_bound, SUM({column}) FROM ndbinfo.{table} GROUP BY 1"))


def test_histograms_use_the_data_nodes_ranges(sim):
    tc = [r[0] for r in sim.q("SELECT DISTINCT upper_bound FROM ndbinfo.tc_time_track_stats")]
    assert sorted(tc) == list(TC_BOUNDS) and len(tc) == 32
    assert TC_BOUNDS[:4] == (50, 75, 112, 168)
    pg = [r[0] for r in sim.q("SELECT DISTINCT upper_bound FROM ndbinfo.pgman_time_track_stats")]
    assert sorted(pg) == list(PGMAN_BOUNDS) and len(pg) == 20
    assert PGMAN_BOUNDS[:3] == (0, 16, 32) and PGMAN_BOUNDS[-2] == 2**21


def test_histogram_counts_only_grow(sim):
    before = snapshot(sim, "tc_time_track_stats", "read_key_ops")
    sim.cluster.faults.set("latency-degradation")
    sim.tick(30)
    after = snapshot(sim, "tc_time_track_stats", "read_key_ops")
    assert all(after[b] >= before[b] for b in before)
    assert sum(after.values()) > sum(before.values())


def test_latency_degradation_moves_key_operations_up_and_back(sim):
    healthy = p99_bound(sim, "tc_time_track_stats", "read_key_ops")
    assert healthy <= 2000
    sim.cluster.faults.set("latency-degradation", factor=20)
    mark = snapshot(sim, "tc_time_track_stats", "read_key_ops")
    sim.tick(30)
    assert p99_bound(sim, "tc_time_track_stats", "read_key_ops", mark) > 10 * healthy
    pgman = snapshot(sim, "pgman_time_track_stats", "page_writes")
    sim.cluster.faults.clear("latency-degradation")
    mark = snapshot(sim, "tc_time_track_stats", "read_key_ops")
    sim.tick(30)
    assert p99_bound(sim, "tc_time_track_stats", "read_key_ops", mark) == healthy
    # the disk page histograms are not affected
    assert p99_bound(sim, "pgman_time_track_stats", "page_writes", pgman) < 10_000


def test_slow_disk_moves_pgman_latency_only(sim):
    healthy = p99_bound(sim, "pgman_time_track_stats", "page_writes")
    tc = p99_bound(sim, "tc_time_track_stats", "read_key_ops")
    sim.cluster.faults.set("slow-disk")
    mark = snapshot(sim, "pgman_time_track_stats", "page_writes")
    tc_mark = snapshot(sim, "tc_time_track_stats", "read_key_ops")
    sim.tick(60)
    assert p99_bound(sim, "pgman_time_track_stats", "page_writes", mark) >= 10 * healthy
    assert p99_bound(sim, "tc_time_track_stats", "read_key_ops", tc_mark) == tc
    assert all(sim.one(f"SELECT count(*) FROM ndbinfo.{t}") == 0 for t in ("cluster_locks",))
    sim.cluster.faults.clear("slow-disk")
    mark = snapshot(sim, "pgman_time_track_stats", "page_writes")
    sim.tick(60)
    assert p99_bound(sim, "pgman_time_track_stats", "page_writes", mark) == healthy


def test_long_transaction_holds_locks_and_ages(sim):
    sim.cluster.faults.set("long-transaction", node=2, locks=3)
    sim.tick(40)
    rows = sim.q(
        "SELECT node_id, state, count_operations, inactive_seconds FROM"
        " ndbinfo.cluster_transactions WHERE inactive_seconds > 0"
    )
    assert rows == [(2, "Started", 3, 40)]
    locks = sim.q(
        "SELECT node_id, mode, state, duration_millis FROM ndbinfo.cluster_locks"
        " WHERE duration_millis >= 40000"
    )
    assert locks == [(2, "X", "H", 40000)] * 3
    assert sim.one("SELECT count(*) FROM ndbinfo.cluster_locks WHERE state = 'W'") == 0
    ops = sim.q("SELECT DISTINCT operation_type, state FROM ndbinfo.cluster_operations")
    assert ("UPDATE", "Prepared") in ops
    sim.cluster.faults.clear("long-transaction")
    sim.tick(5)
    assert (
        sim.one("SELECT count(*) FROM ndbinfo.cluster_transactions WHERE inactive_seconds > 0") == 0
    )
    assert sim.one("SELECT count(*) FROM ndbinfo.cluster_locks WHERE duration_millis > 5000") == 0


def test_lock_contention_queues_waiters_behind_a_holder(sim):
    sim.cluster.faults.set("lock-contention", waiters=4)
    sim.tick(10)
    locks = sim.q(
        "SELECT state, lock_num, waiting_for, duration_millis, tableid, rowid"
        " FROM ndbinfo.cluster_locks WHERE state = 'W' ORDER BY lock_num"
    )
    assert len(locks) == 4
    assert all(0 <= row[3] < 1200 for row in locks)
    assert len({(row[4], row[5]) for row in locks}) == 1  # one hot row
    lock_nums = {row[1] for row in locks}
    holders = sim.q("SELECT lock_num FROM ndbinfo.cluster_locks WHERE state = 'H'")
    assert all(row[2] in lock_nums | {h[0] for h in holders} for row in locks)
    waiting = sim.one("SELECT count(*) FROM ndbinfo.cluster_operations WHERE state = 'WaitLock'")
    assert waiting == 4
    sim.cluster.faults.clear("lock-contention")
    sim.tick(5)
    assert sim.one("SELECT count(*) FROM ndbinfo.cluster_locks WHERE state = 'W'") == 0
    assert sim.one("SELECT count(*) FROM ndbinfo.cluster_operations WHERE state = 'WaitLock'") == 0


def test_healthy_cluster_has_no_waiters_and_no_idle_transactions(sim):
    for _ in range(10):
        sim.tick(3)
        assert sim.one("SELECT count(*) FROM ndbinfo.cluster_locks WHERE state = 'W'") == 0
        assert (
            sim.one("SELECT count(*) FROM ndbinfo.cluster_transactions WHERE inactive_seconds > 0")
            == 0
        )


def test_ldm_threads_differ_in_cpustat():
    busy = Sim(data_nodes=2, replicas=2, tables=8, ops_per_second=150_000)
    busy.tick(10)
    execs = busy.q(
        "SELECT c.node_id, c.thread_exec FROM ndbinfo.cpustat c JOIN ndbinfo.threadstat t"
        " ON t.node_id = c.node_id AND t.thr_no = c.thr_no WHERE t.thr_nm = 'ldm'"
    )
    assert len(execs) == 8
    assert len({value for node, value in execs if node == 1}) >= 3


@pytest.mark.parametrize(
    ("name", "params", "message"),
    [
        ("slow-disk", {"factor": 0.5}, "factor must be between 1 and 1000"),
        ("lock-contention", {"waiters": 0}, "waiters must be 1..1000"),
        ("long-transaction", {"node": 9}, "node 9 is not a data node"),
    ],
)
def test_bad_parameters_are_refused(sim, name, params, message):
    with pytest.raises(FaultError, match=message):
        sim.cluster.faults.set(name, **params)


@pytest.mark.integration
def test_cli_sets_the_latency_and_lock_faults():
    from ndb_harness import running_ndbsim

    from tests.support.ndbsim_cli import run

    with running_ndbsim(speed=20) as sim:
        url = ["--control-url", sim.control_url]
        for args in (
            ["long-transaction", "--node", "1", "--locks", "3"],
            ["lock-contention", "--waiters", "2"],
            ["slow-disk", "--factor", "5"],
            ["latency-degradation"],
        ):
            result = run("fault", *url, *args)
            assert result.returncode == 0, result.stderr
        assert sim.status()["faults"] == {
            "long-transaction": {"node": 1, "locks": 3},
            "lock-contention": {"waiters": 2},
            "slow-disk": {"factor": 5.0},
            "latency-degradation": {},
        }
        bad = run("fault", *url, "long-transaction", "--node", "99")
        assert bad.returncode == 1 and "not a data node" in bad.stderr


def totals(sim: Sim) -> tuple[int, int]:
    """Transactions that succeeded and that ended in an error, on every data node."""
    return sim.q(
        "SELECT SUM(transactions), SUM(transaction_errors) FROM ndbinfo.tc_time_track_stats"
    )[0]


def errors_per_success(sim: Sim, since: tuple[int, int] = (0, 0)) -> float:
    transactions, errors = totals(sim)
    return (errors - since[1]) / (transactions - since[0])


def test_operation_errors_raise_the_tc_error_counts_and_return(sim):
    assert errors_per_success(sim) < 0.01
    sim.cluster.faults.set("operation-errors", share=0.3)
    mark = totals(sim)
    sim.tick(30)
    assert errors_per_success(sim, mark) == pytest.approx(0.3, rel=0.05)
    sim.cluster.faults.clear("operation-errors")
    mark = totals(sim)
    sim.tick(30)
    assert errors_per_success(sim, mark) < 0.01


def aborts_per_start(sim: Sim, since: dict[str, int]) -> float:
    status = sim.cluster.global_status()
    started, aborted = (
        status[name] - since[name]
        for name in ("Ndb_api_trans_start_count", "Ndb_api_trans_abort_count")
    )
    return aborted / started


def test_transaction_aborts_raise_the_abort_count_steadily_and_return(sim):
    mark = sim.cluster.global_status()
    sim.tick(30)
    assert aborts_per_start(sim, mark) < 0.01
    sim.cluster.faults.set("transaction-aborts", share=0.3)
    mark = sim.cluster.global_status()
    seen = []
    for _ in range(6):
        sim.tick(5)
        status = sim.cluster.global_status()
        seen.append(status["Ndb_api_trans_abort_count"])
    assert seen == sorted(seen) and seen[0] > mark["Ndb_api_trans_abort_count"]
    assert aborts_per_start(sim, mark) == pytest.approx(0.3, rel=0.05)
    sim.cluster.faults.clear("transaction-aborts")
    mark = sim.cluster.global_status()
    sim.tick(30)
    after = sim.cluster.global_status()
    # the counter keeps what it counted: it rises at the usual share again, never falls
    assert after["Ndb_api_trans_abort_count"] >= mark["Ndb_api_trans_abort_count"]
    assert aborts_per_start(sim, mark) < 0.01
