"""Each data node's transporters to the other nodes, summed per data node in SQL.

The series grow with the data nodes, not with their square: links by state, and traffic,
reconnects, overloads and slowdowns summed over the node's links. The transporter_links
collector (off by default) has the same per link.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from ._transporter_states import STATES
from .base import Collector, Context, Row, counter, gauge, ident, number, text

REPORTED = " Summed over the data node's transporters to every configured peer (node_id reports)."

LINKS = gauge(
    "ndb_transporter_links",
    "Transporters of the data node to its configured peers, per state; every known state is"
    " present.",
    ("node_id", "state"),
)
COLUMNS = (
    ("bytes_sent", counter("ndb_transporter_sent_bytes_total", "Bytes sent to other nodes." + REPORTED, ("node_id",))),
    ("bytes_received", counter("ndb_transporter_received_bytes_total", "Bytes received from other nodes." + REPORTED, ("node_id",))),
    ("connect_count", counter("ndb_transporter_connects_total", "Times a transporter (re)connected." + REPORTED, ("node_id",))),
    ("overload_count", counter("ndb_transporter_overloads_total", "Times a transporter entered overload (send buffer full)." + REPORTED, ("node_id",))),
    ("slowdown_count", counter("ndb_transporter_slowdowns_total", "Times a transporter entered slowdown (scans slowed down)." + REPORTED, ("node_id",))),
    ("overloaded", gauge("ndb_transporter_overloaded_links", "Transporters of the data node that are overloaded now.", ("node_id",))),
    ("slowdown", gauge("ndb_transporter_slowdown_links", "Transporters of the data node that are in slowdown now.", ("node_id",))),
)  # fmt: skip

SUMS = ", ".join(f"SUM({column}) AS {column}" for column, _ in COLUMNS)
SQL = (
    f"SELECT node_id, status, COUNT(*) AS links, {SUMS}"
    " FROM ndbinfo.transporters GROUP BY node_id, status"
)


def collect(rows: list[Row], ctx: Context) -> Iterable:
    links: dict[str, dict[str, float]] = defaultdict(dict)
    sums: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for row in rows:
        node = ident(row["node_id"])
        state = text(row["status"])
        links[node][state] = links[node].get(state, 0.0) + (number(row["links"]) or 0.0)
        for column, _ in COLUMNS:
            sums[node][column] += number(row[column]) or 0.0
    nodes = sorted(links, key=int)
    family = LINKS.family()
    for node in nodes:
        extra = sorted(state for state in links[node] if state not in STATES)
        for state in (*STATES, *extra):
            family.add_metric([node, state], links[node].get(state, 0.0))
    yield family
    for column, spec in COLUMNS:
        family = spec.family()
        for node in nodes:
            family.add_metric([node], sums[node][column])
        yield family


COLLECTOR = Collector(
    name="transporters",
    help="Transporters of each data node by state, with traffic, reconnects, overloads and"
    " slowdowns summed over its links (ndbinfo.transporters, summed in SQL). On by default:"
    " series linear in the data nodes; per-link detail is the transporter_links collector.",
    default_enabled=True,
    reads={"transporters": ("node_id", "status", *(column for column, _ in COLUMNS))},
    min_version=(7, 5, 0),
    sql=SQL,
    collect=collect,
    metrics=(LINKS, *(spec for _, spec in COLUMNS)),
)
