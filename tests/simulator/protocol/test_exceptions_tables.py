"""information_schema.TABLES of NDB tables through a real client: every user table, and on
the replica with the `conflicts` fault the exceptions tables `t$EX` the applier writes to."""

from __future__ import annotations

import pytest
from ndb_harness import running_ndbsim

from tests.simulator.protocol.pair_rows import replica, source
from tests.support.polling import poll

pytestmark = pytest.mark.integration

EXCEPTIONS_SQL = (
    "SELECT TABLE_SCHEMA, TABLE_NAME, TABLE_ROWS FROM information_schema.TABLES"
    " WHERE ENGINE = 'ndbcluster' AND TABLE_NAME LIKE '%$EX'"
)


@pytest.fixture(scope="module")
def pair():
    with running_ndbsim(replica=True, speed=10) as sim:
        yield sim


def _exceptions(rows: list[dict]) -> dict[tuple[str, str], int]:
    return {(r["TABLE_SCHEMA"], r["TABLE_NAME"]): r["TABLE_ROWS"] for r in rows}


def test_user_tables_are_listed_with_their_row_counts(pair):
    rows = source(
        pair,
        "SELECT TABLE_SCHEMA, TABLE_NAME, TABLE_TYPE, TABLE_ROWS FROM information_schema.TABLES"
        " WHERE ENGINE = 'ndbcluster'",
    )
    names = {(r["TABLE_SCHEMA"], r["TABLE_NAME"]) for r in rows}
    assert ("shop", "customers") in names and ("mysql", "ndb_apply_status") in names
    assert not any(name.startswith("NDB$BLOB") for _, name in names)
    assert {r["TABLE_TYPE"] for r in rows} == {"BASE TABLE"}
    assert all(r["TABLE_ROWS"] > 0 for r in rows)
    ndbinfo = source(
        pair,
        "SELECT COUNT(*) AS n FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'ndbinfo'",
    )
    assert ndbinfo[0]["n"] > 0


def test_conflicts_fill_the_exceptions_tables_of_the_replica(pair):
    pair.fault("conflicts")
    try:
        assert poll(lambda: sum(_exceptions(replica(pair, EXCEPTIONS_SQL)).values()) > 0)
        first = _exceptions(replica(pair, EXCEPTIONS_SQL))
        assert 1 <= len(first) <= 3
        assert all(name.endswith("$EX") for _, name in first)
        assert poll(
            lambda: sum(_exceptions(replica(pair, EXCEPTIONS_SQL)).values()) > sum(first.values())
        )
    finally:
        pair.clear("conflicts")
    # the source applies nothing: no exceptions table there
    assert _exceptions(source(pair, EXCEPTIONS_SQL)) == {}
