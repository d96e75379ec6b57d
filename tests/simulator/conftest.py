"""Fixtures for the SQL front of ndbsim."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.sqlnode_helpers import RunningSqlNode, start_sql_node


@pytest.fixture(scope="module")
def sqlnode() -> Iterator[RunningSqlNode]:
    node, stop = start_sql_node("8.4")
    yield node
    stop()


@pytest.fixture(scope="module")
def sqlnode_754() -> Iterator[RunningSqlNode]:
    node, stop = start_sql_node("7.5.4", data_nodes=2, replicas=2)
    yield node
    stop()
