"""Transporter overloads and slowdowns count per connection of a link (they start again from
zero when it reconnects): the exporter keeps them monotonic, so that a reconnect is never a
counter reset to Prometheus."""

from __future__ import annotations

import json

from ndbinfo_exporter.collectors import transporter_links, transporters
from ndbinfo_exporter.collectors.base import Context

from tests.support.collector_fixtures import FIXTURES, context

RECORDED = json.loads((FIXTURES / "transporters" / "ndbsim-8.4-healthy.json").read_text())
RESTARTING = {
    "ndb_transporter_overloads": "overload_count",
    "ndb_transporter_slowdowns": "slowdown_count",
}


def rows_with_link(connects: int | None, overloads: int, slowdowns: int) -> list[dict]:
    """The recorded rows of a healthy cluster, with data node 1's link to node 2 apart with
    these counts (none when ``connects`` is None: the link has no overload in its connection)."""
    rows = [dict(row) for row in RECORDED["rows"]]
    if connects is not None:
        rows.append(
            {
                **rows[0],
                "node_id": 1,
                "status": "CONNECTED",
                "link": 2,
                "links": 1,
                "connect_count": connects,
                "overload_count": overloads,
                "slowdown_count": slowdowns,
            }
        )
    return rows


def counts(rows: list[dict], ctx: Context) -> dict[str, float]:
    """Node 1's overloads and slowdowns as exported."""
    collector = transporters.COLLECTOR.for_target(ctx.target)
    found = {}
    for family in collector.collect(rows, ctx):
        if family.name in RESTARTING:
            (value,) = [s.value for s in family.samples if s.labels["node_id"] == "1"]
            found[RESTARTING[family.name]] = value
    return found


def test_recorded_rows_read_transporter_details_once():
    ctx = context(RECORDED, transporters.COLLECTOR)
    assert transporters.COLLECTOR.for_target(ctx.target) is transporters.COLLECTOR.newer
    assert RECORDED["target"]["objects"] == ["transporter_details"]


def test_a_reconnect_is_not_a_counter_decrease():
    ctx = context(RECORDED, transporters.COLLECTOR)
    steps = [
        (rows_with_link(1, 4, 2), {"overload_count": 4, "slowdown_count": 2}),
        # the same rows again (a scrape without change, or the rows tried one by one)
        (rows_with_link(1, 4, 2), {"overload_count": 4, "slowdown_count": 2}),
        # reconnected: the link's counts start from zero, one overload since
        (rows_with_link(2, 1, 0), {"overload_count": 5, "slowdown_count": 2}),
        # reconnected again, nothing since: the link is summed in with the others
        (rows_with_link(None, 0, 0), {"overload_count": 5, "slowdown_count": 2}),
        # data node 1 restarted: the link's connect count starts again too
        (rows_with_link(1, 3, 1), {"overload_count": 8, "slowdown_count": 3}),
        # a count that went back under the same connect count is a restart as well
        (rows_with_link(1, 2, 1), {"overload_count": 10, "slowdown_count": 4}),
    ]
    seen = []
    for rows, expected in steps:
        seen.append(counts(rows, ctx))
        assert seen[-1] == expected
    for before, after in zip(seen, seen[1:], strict=False):
        assert all(after[column] >= before[column] for column in before)


def test_a_partial_set_of_rows_lowers_nothing():
    ctx = context(RECORDED, transporters.COLLECTOR)
    assert counts(rows_with_link(1, 4, 2), ctx) == {"overload_count": 4, "slowdown_count": 2}
    node_1 = [row for row in rows_with_link(None, 0, 0) if row["node_id"] == 1][:1]
    assert counts(node_1, ctx) == {"overload_count": 4, "slowdown_count": 2}
    assert counts(rows_with_link(1, 4, 2), ctx) == {"overload_count": 4, "slowdown_count": 2}


def test_a_reconnect_is_not_a_decrease_of_a_link_either():
    recorded = json.loads((FIXTURES / "transporter_links" / "ndbsim-8.4-healthy.json").read_text())
    ctx = context(recorded, transporter_links.COLLECTOR)

    def overloads(connects: int, count: int) -> float:
        rows = [
            {**row, "connect_count": connects, "overload_count": count}
            if (row["node_id"], row["remote_node_id"]) == (1, 2)
            else row
            for row in recorded["rows"]
        ]
        for family in transporter_links.COLLECTOR.collect(rows, ctx):
            if family.name == "ndb_transporter_link_overloads":
                (value,) = [
                    s.value
                    for s in family.samples
                    if (s.labels["node_id"], s.labels["remote_node_id"]) == ("1", "2")
                ]
                return value
        raise AssertionError("no overloads")

    assert [overloads(1, 4), overloads(2, 1), overloads(2, 3), overloads(3, 0)] == [4, 5, 7, 7]
