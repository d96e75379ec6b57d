"""A statement pays for what it reads: the engine builds the small ndbinfo tables a statement
reads (views expanded to their base tables), each at most once per cluster second, and no
other. Counted in builds, not time."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from ndbsim.engine import model_tables

from tests.support.sqlnode_helpers import RunningSqlNode, start_sql_node


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def node(clock: Clock) -> Iterator[RunningSqlNode]:
    running, stop = start_sql_node("8.4", clock=clock, data_nodes=4, tables=20)
    try:
        yield running
    finally:
        stop()


def builds(node: RunningSqlNode) -> dict[str, int]:
    return dict(model_tables.writer_of(node.cluster).builds)


def test_reading_nodes_builds_ndb_nodes_alone_once_per_cluster_second(node, clock):
    node.query("SELECT node_id, status FROM nodes")
    assert builds(node) == {"ndb$nodes": 1}
    for _ in range(3):  # the same cluster second: built already
        node.query("SELECT node_id, status FROM nodes")
    assert builds(node) == {"ndb$nodes": 1}
    clock.now += 1
    node.query("SELECT node_id, status FROM nodes WHERE node_id = 1")
    assert builds(node) == {"ndb$nodes": 2}


def test_each_table_is_built_when_a_statement_reads_it(node, clock):
    node.query("SELECT * FROM backup_id")
    assert builds(node) == {"ndb$backup_id": 1}
    node.query("SELECT node_id, status FROM nodes")
    node.query("SELECT * FROM backup_id")
    assert builds(node) == {"ndb$backup_id": 1, "ndb$nodes": 1}
    clock.now += 5  # seconds nobody read cost nothing
    node.query("SELECT * FROM backup_id")
    assert builds(node) == {"ndb$backup_id": 2, "ndb$nodes": 1}


def test_a_fault_set_within_the_second_is_seen_by_the_next_statement(node):
    node.query("SELECT node_id, status FROM nodes")
    node.cluster.stop_node(2)
    _, rows = node.query("SELECT node_id, status FROM nodes")
    assert builds(node) == {"ndb$nodes": 2}
    assert 2 not in [node_id for node_id, _ in rows]


def test_statements_without_ndbinfo_build_nothing(node):
    node.query("SELECT 1", database=None)
    node.query("SHOW GLOBAL STATUS LIKE 'Ndb_number_of_ready_data_nodes'", database=None)
    assert builds(node) == {}
