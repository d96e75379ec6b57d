"""Node groups, president and arbitration from ndbinfo.membership (one row per running data node)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from .base import Collector, Context, Row, add_states, add_value, gauge, ident, number, text

ARBITRATION_STATES = (
    "ARBIT_NULL",
    "ARBIT_INIT",
    "ARBIT_FIND",
    "ARBIT_PREP1",
    "ARBIT_PREP2",
    "ARBIT_START",
    "ARBIT_RUN",
    "ARBIT_CHOOSE",
    "ARBIT_CRASH",
)

NODEGROUP = gauge(
    "ndb_data_node_nodegroup",
    "Node group of each running data node; always 1.",
    ("node_id", "nodegroup"),
)
NODEGROUP_RUNNING = gauge(
    "ndb_nodegroup_running_data_nodes",
    "Running data nodes per node group (a node group with 0 has lost all its replicas).",
    ("nodegroup",),
)
PRESIDENT = gauge(
    "ndb_president_node_id",
    "Node id of the president (the data node that manages membership), as seen by the lowest running node.",
)
ARBITRATOR = gauge(
    "ndb_arbitrator_node_id",
    "Arbitrator known to each running data node; 0 when there is none.",
    ("node_id",),
)
ARBITRATOR_CONNECTED = gauge(
    "ndb_arbitrator_connected",
    "1 if the data node is connected to the arbitrator.",
    ("node_id",),
)
ARBITRATION_STATE = gauge(
    "ndb_arbitration_state",
    "Arbitration state as the president (label node_id), which runs the arbitration, reports"
    " it: 1 for the current state, 0 for the others.",
    ("node_id", "state"),
)

SQL = "SELECT node_id, group_id, president, arbitrator, arb_state, arb_connected FROM ndbinfo.membership"


def collect(rows: list[Row], ctx: Context) -> Iterable:
    rows = sorted(rows, key=lambda r: number(r["node_id"]))
    nodegroup, running = NODEGROUP.family(), NODEGROUP_RUNNING.family()
    arbitrator, connected, state = (
        ARBITRATOR.family(),
        ARBITRATOR_CONNECTED.family(),
        ARBITRATION_STATE.family(),
    )
    per_group: Counter[str] = Counter()
    for row in rows:
        node, group = ident(row["node_id"]), ident(row["group_id"])
        nodegroup.add_metric([node, group], 1.0)
        per_group[group] += 1
        add_value(arbitrator, [node], number(row["arbitrator"]))
        connected.add_metric([node], 1.0 if text(row["arb_connected"]) == "Yes" else 0.0)
    if rows:
        president_row = next(
            (r for r in rows if number(r["node_id"]) == number(r["president"])), rows[0]
        )
        node = ident(president_row["node_id"])
        add_states(state, [node], text(president_row["arb_state"]), ARBITRATION_STATES)
    for group in sorted(per_group, key=int):
        running.add_metric([group], float(per_group[group]))
    yield from (nodegroup, running)
    if rows and number(rows[0]["president"]) is not None:
        president = PRESIDENT.family()
        president.add_metric([], number(rows[0]["president"]))
        yield president
    yield from (arbitrator, connected, state)


COLLECTOR = Collector(
    name="membership",
    help="Node groups, president, each node's arbitrator and the president's arbitration state"
    " (ndbinfo.membership). On by default: one row per running data node.",
    default_enabled=True,
    reads={
        "membership": (
            "node_id",
            "group_id",
            "president",
            "arbitrator",
            "arb_state",
            "arb_connected",
        )
    },
    min_version=(7, 5, 0),
    sql=SQL,
    collect=collect,
    metrics=(
        NODEGROUP,
        NODEGROUP_RUNNING,
        PRESIDENT,
        ARBITRATOR,
        ARBITRATOR_CONNECTED,
        ARBITRATION_STATE,
    ),
)
