"""Every link between a data node and another node from ndbinfo.transporters (off by default:
series grow with the square of the cluster; the transporters collector sums them per data node).
Overloads and slowdowns are kept monotonic across reconnects, as the transporters collector
keeps them."""

from __future__ import annotations

from collections.abc import Iterable

from ._transporter_states import STATES, monotonic
from .base import (
    Collector,
    Context,
    Row,
    add_states,
    add_value,
    counter,
    gauge,
    ident,
    number,
    text,
)

LABELS = ("node_id", "remote_node_id")
REPORTED = " Reported by running data nodes (node_id) for each configured peer (remote_node_id)."
MONOTONIC = REPORTED + " Monotonic across reconnects: counts of earlier connections are kept."

STATE = gauge(
    "ndb_transporter_link_state",
    "Transporter state: 1 for the current state, 0 for the others." + REPORTED,
    (*LABELS, "state"),
)
COLUMNS = (
    ("bytes_sent", counter("ndb_transporter_link_sent_bytes_total", "Bytes sent over the transporter." + REPORTED, LABELS)),
    ("bytes_received", counter("ndb_transporter_link_received_bytes_total", "Bytes received over the transporter." + REPORTED, LABELS)),
    ("connect_count", counter("ndb_transporter_link_connects_total", "Times the transporter (re)connected." + REPORTED, LABELS)),
    ("overload_count", counter("ndb_transporter_link_overloads_total", "Times the transporter entered overload (send buffer full)." + MONOTONIC, LABELS)),
    ("slowdown_count", counter("ndb_transporter_link_slowdowns_total", "Times the transporter entered slowdown (scans slowed down)." + MONOTONIC, LABELS)),
    ("overloaded", gauge("ndb_transporter_link_overloaded", "1 while the transporter is overloaded." + REPORTED, LABELS)),
    ("slowdown", gauge("ndb_transporter_link_slowdown", "1 while the transporter is in slowdown." + REPORTED, LABELS)),
)  # fmt: skip

SQL = (
    "SELECT node_id, remote_node_id, status, bytes_sent, bytes_received, connect_count,"
    " overloaded, overload_count, slowdown, slowdown_count FROM ndbinfo.transporters"
)


def collect(rows: list[Row], ctx: Context) -> Iterable:
    state = STATE.family()
    families = {column: spec.family() for column, spec in COLUMNS}
    restarting = monotonic(ctx.kept, rows, "remote_node_id")
    for row in sorted(rows, key=lambda r: (number(r["node_id"]), number(r["remote_node_id"]))):
        labels = [ident(row["node_id"]), ident(row["remote_node_id"])]
        add_states(state, labels, text(row["status"]), STATES)
        kept = restarting.get((labels[0], labels[1]), {})
        for column, family in families.items():
            add_value(family, labels, kept.get(column, number(row[column])))
    yield state
    yield from families.values()


COLLECTOR = Collector(
    name="transporter_links",
    help="State, traffic, reconnects, overload and slowdown of every transporter between a"
    " data node and another node (ndbinfo.transporters). Off by default: series grow with the"
    " square of the number of nodes; the transporters collector sums them per data node.",
    default_enabled=False,
    reads={
        "transporters": (
            "node_id",
            "remote_node_id",
            "status",
            "bytes_sent",
            "bytes_received",
            "connect_count",
            "overloaded",
            "overload_count",
            "slowdown",
            "slowdown_count",
        )
    },
    min_version=(7, 5, 0),
    sql=SQL,
    collect=collect,
    metrics=(STATE, *(spec for _, spec in COLUMNS)),
)
