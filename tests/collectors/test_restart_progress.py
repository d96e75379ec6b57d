"""The estimate of a restart under way from ndbinfo.restart_info rows (_restart_progress) and
what the restart_info collector makes of it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from ndbinfo_exporter.collectors import _restart_progress, restart_info
from ndbinfo_exporter.collectors._restart_progress import (
    PHASE_COLUMNS,
    RATIO_CAP,
    RESTART_PHASES,
    Estimate,
    estimates,
    restarting,
)
from ndbinfo_exporter.collectors.base import Context, TargetInfo

COMPLETED, NODE_ACTIVE = 19, 24
ENUMS = Path(__file__).resolve().parents[2] / "simulator" / "data" / "ndbinfo" / "enums.json"
TARGET = TargetInfo("8.4.3-cluster", (8, 4, 3), frozenset())


def row(node: int, status: int, uptime: float | None = None, **secs: int) -> dict:
    """A restart_info row: the named restart phases (without secs_) took those seconds."""
    columns = {column: 0 for column in PHASE_COLUMNS}
    columns.update({f"secs_{name}": value for name, value in secs.items()})
    return {
        "node_id": node,
        "node_restart_status": "",
        "node_restart_status_int": status,
        **columns,
        "total_restart_secs": 0,
        "uptime": uptime,
    }


def completed(node: int, each: int) -> dict:
    """A completed restart whose every restart phase took ``each`` seconds, after 600 s down
    and a local recovery column that sums four of them."""
    secs = {column.removeprefix("secs_"): each for column in RESTART_PHASES}
    return row(node, COMPLETED, to_allocate_node_id=600, for_local_recovery=4 * each, **secs)


def test_the_statuses_of_a_restart_under_way():
    """From the node id's allocation (4) to the subscription handover (18), and the statuses a
    non-master recorded (20 to 23); not a failure (2, 3), a completed restart (19, 24), no
    record (1) or a row without the number."""
    under_way = [s for s in range(30) if restarting(row(1, s))]
    assert under_way == [*range(4, 19), *range(20, 24)]
    assert not restarting({"node_id": 1})


def test_the_estimate_counts_completed_phases_and_compares_the_remaining_ones():
    """A node in status 12 (restore fragments under way) has done the 8 phases before it; the
    others took 10 s per phase: 7 phases are left, the current one included."""
    rows = [row(2, 12, **{c.removeprefix("secs_"): 5 for c in RESTART_PHASES[:8]})]
    found = estimates([*rows, completed(1, 10), completed(3, 10)])
    assert set(found) == {2}
    assert found[2] == Estimate(elapsed_seconds=40, remaining_seconds=70)
    assert found[2].ratio == pytest.approx(40 / 110)


def test_the_uptime_times_the_current_phase():
    """Its uptime, less its completed phases, is time spent in the current phase: the others'
    current phase is counted less that, never below 0."""
    early = row(2, 4, uptime=4)  # 4 s into the first phase, which took the others 10 s
    late = row(2, 4, uptime=25)  # longer than the others took for it
    assert estimates([early, completed(1, 10)])[2] == Estimate(4, 6 + 14 * 10)
    assert estimates([late, completed(1, 10)])[2] == Estimate(25, 14 * 10)


def test_the_median_of_the_other_nodes_completed_restarts():
    rows = [row(4, 18), completed(1, 1), completed(2, 5), completed(3, 30)]
    assert estimates(rows)[4].remaining_seconds == 5


def test_a_non_master_status_compares_whole_restarts():
    """Statuses 20 to 23 say a restart runs, not which phases it did: the uptime is its time,
    the others' whole restarts (without the time they were down) the comparison."""
    found = estimates([row(2, 22, uptime=100), completed(1, 10)])
    assert found[2] == Estimate(100, 15 * 10 - 100)


def test_no_estimate_without_a_completed_restart_of_another_node():
    """Its own last restart and restarts a master saw as a non-master (NODE_ACTIVE, with few
    phases) do not count; a node not restarting gets none."""
    assert estimates([row(2, 12), row(1, NODE_ACTIVE, to_get_start_permitted=900)]) == {}
    assert estimates([row(2, 3), completed(1, 10)]) == {}
    assert set(estimates([row(2, 12), row(3, 12), completed(1, 10)])) == {2, 3}


def test_the_ratio_stays_below_1_until_the_node_has_started():
    assert Estimate(500, 0).ratio == RATIO_CAP
    assert Estimate(0, 0).ratio == 0
    assert 0 < Estimate(1, 1000).ratio < Estimate(999, 1).ratio <= RATIO_CAP


def families(rows: list[dict]) -> dict[str, list]:
    found = restart_info.COLLECTOR.collect(rows, Context(TARGET))
    return {family.name: family.samples for family in found}


def test_the_collector_exports_the_estimate_only_while_a_restart_is_under_way():
    settled = restart_info.COLLECTOR.slow.settled
    done = [completed(1, 10), completed(2, 10)]
    assert "ndb_restart_progress_ratio" not in families(done)
    assert settled(done)
    under_way = [*done, row(3, 16, uptime=200)]
    exported = families(under_way)
    assert [s.labels for s in exported["ndb_restart_progress_ratio"]] == [{"node_id": "3"}]
    remaining = exported["ndb_restart_remaining_seconds"]
    assert len(remaining) == 1 and remaining[0].value >= 0
    assert not settled(under_way)  # read again at every scrape until it is over


def test_the_recovery_statuses_are_the_kernels():
    kernel = json.loads(ENUMS.read_text())["restart_info.node_restart_status_int"]["kernel_enum"]
    declared = {
        name: getattr(_restart_progress, name)
        for name in ("ALLOCATED_NODE_ID", "RESTART_COMPLETED", "NODE_GETTING_PERMIT", "NODE_ACTIVE")
    }
    assert declared == {name: int(n) for n, name in kernel.items() if name in declared}
