"""copy-alter and reorganize: the `#sql-` table and the new fragments in ndbinfo as they fill."""

from __future__ import annotations

import pytest
from ndbsim.model import schema_changes
from ndbsim.model.faults import FaultError

from tests.simulator.model.fault_sim import Sim

COPY_ROWS = (
    "SELECT fq_name, SUM(fixed_elem_count) FROM ndbinfo.memory_per_fragment"
    " WHERE fq_name LIKE '%#sql-%' GROUP BY fq_name"
)


@pytest.fixture
def sim() -> Sim:
    return Sim(data_nodes=4, replicas=2, tables=12)


def _table_rows(sim: Sim, table_id: int) -> int:
    return sim.one(
        f"SELECT SUM(fixed_elem_count) FROM ndbinfo.memory_per_fragment WHERE table_id = {table_id}"
    )


def test_copy_alter_fills_a_sql_table_then_replaces_the_table(sim):
    source = schema_changes.largest_table(sim.cluster)
    assert sim.q(COPY_ROWS) == []
    sim.cluster.faults.set("copy-alter", seconds=100)
    sim.tick(50)
    [(fq_name, rows)] = sim.q(COPY_ROWS)
    assert fq_name.startswith(f"{source.database}/def/#sql-")
    full = _table_rows(sim, source.table_id)
    assert 0.4 * full <= rows <= 0.6 * full
    names = sim.q("SELECT fq_name FROM ndbinfo.dict_obj_info WHERE fq_name LIKE '%#sql-%'")
    assert names == [(fq_name,)]
    sim.tick(50)
    assert sim.q(COPY_ROWS) == []
    assert _table_rows(sim, source.table_id) == full


def test_reorganize_adds_fragments_that_fill_as_the_old_ones_empty(sim):
    table = schema_changes.largest_table(sim.cluster)
    old = table.fragments
    status = (
        "SELECT tab_fragments, is_reorg_ongoing FROM ndbinfo.table_distribution_status"
        f" WHERE table_id = {table.table_id} AND node_id = 1"
    )
    assert sim.q(status) == [(old, 0)]
    total = _table_rows(sim, table.table_id)
    sim.cluster.faults.set("reorganize", seconds=100)
    sim.tick(25)
    assert sim.q(status) == [(2 * old, 1)]
    new_rows = sim.one(
        "SELECT SUM(fixed_elem_count) FROM ndbinfo.memory_per_fragment"
        f" WHERE table_id = {table.table_id} AND fragment_num >= {old}"
    )
    share_at_end = total / 2
    assert 0.2 * share_at_end <= new_rows <= 0.3 * share_at_end
    assert abs(_table_rows(sim, table.table_id) - total) <= 4 * old * 2
    sim.tick(75)
    assert sim.q(status) == [(2 * old, 0)]


@pytest.mark.parametrize("name", ["copy-alter", "reorganize"])
def test_schema_changes_take_cluster_seconds(name):
    with pytest.raises(FaultError, match="seconds must be > 0 and <= 86400"):
        Sim(data_nodes=2, replicas=2, tables=4).cluster.faults.set(name, seconds=0)


@pytest.mark.parametrize("name", ["copy-alter", "reorganize"])
def test_a_schema_change_counts_an_alter_table_on_the_sql_node_that_runs_it(sim, name):
    c = sim.cluster
    other = c.sql_node_ids[1]
    assert c.global_status()["Com_alter_table"] == 0
    c.faults.set(name, seconds=100)
    assert (c.global_status()["Com_alter_table"], c.global_status(other)["Com_alter_table"]) == (
        1,
        0,
    )
