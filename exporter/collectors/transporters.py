"""Each data node's transporters to the other nodes, summed per data node in SQL.

The series grow with the data nodes, not with their square: links by state, and traffic,
reconnects, overloads and slowdowns summed over the node's links. The transporter_links
collector (off by default) has the same per link.

Where ndbinfo has transporter_details (8.0.37+), one scan of it gives the same sums (its
transporters of one pair of nodes taken together, as the transporters view does) and the send
buffers of each data node (the memory it may use for them is the resources collector's
``ndb_send_buffer_limit_bytes``); transporters is read only where transporter_details does not
exist.

A link's overload and slowdown counts start again from zero when it reconnects. The statement
returns the links that have any apart, with their connect count, so that
``ndb_transporter_overloads_total`` and ``ndb_transporter_slowdowns_total`` are kept monotonic
across reconnects (``_transporter_states.monotonic``); a link gone back to zero keeps its last
counts in the sums.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from ._transporter_states import RESTARTING, STATES, monotonic
from .base import Collector, Context, Row, counter, gauge, ident, number, text

NODE = ("node_id",)
REPORTED = " Summed over the data node's transporters to every configured peer (node_id reports)."
MONOTONIC = REPORTED + " Monotonic across reconnects: counts of earlier connections are kept."
SUMMED = " Summed over the data node's links to every other node."

LINKS = gauge(
    "ndb_transporter_links",
    "Transporters of the data node to its configured peers, per state; every known state is"
    " present.",
    ("node_id", "state"),
)
COLUMNS = (
    ("bytes_sent", counter("ndb_transporter_sent_bytes_total", "Bytes sent to other nodes." + REPORTED, NODE)),
    ("bytes_received", counter("ndb_transporter_received_bytes_total", "Bytes received from other nodes." + REPORTED, NODE)),
    ("connect_count", counter("ndb_transporter_connects_total", "Times a transporter (re)connected." + REPORTED, NODE)),
    ("overload_count", counter("ndb_transporter_overloads_total", "Times a transporter entered overload (send buffer full)." + MONOTONIC, NODE)),
    ("slowdown_count", counter("ndb_transporter_slowdowns_total", "Times a transporter entered slowdown (scans slowed down)." + MONOTONIC, NODE)),
    ("overloaded", gauge("ndb_transporter_overloaded_links", "Transporters of the data node that are overloaded now.", NODE)),
    ("slowdown", gauge("ndb_transporter_slowdown_links", "Transporters of the data node that are in slowdown now.", NODE)),
)  # fmt: skip

SEND_BUFFERS = (
    ("used_bytes", gauge("ndb_send_buffer_used_bytes", "Bytes waiting in the data node's send buffers." + SUMMED, NODE)),
    ("allocated_bytes", gauge("ndb_send_buffer_allocated_bytes", "Send buffer memory allocated to the data node's links." + SUMMED, NODE)),
    ("fullest_link_bytes", gauge("ndb_send_buffer_fullest_link_bytes", "Bytes waiting in the send buffer of the data node's fullest link.", NODE)),
)  # fmt: skip


# 0 for the links without overloads or slowdowns, the remote node for the others.
LINK = "CASE WHEN overload_count > 0 OR slowdown_count > 0 THEN remote_node_id ELSE 0 END"
SUMS = ", ".join(f"SUM({column}) AS {column}" for column, _ in COLUMNS)


SQL = (
    f"SELECT node_id, status, {LINK} AS link, COUNT(*) AS links, {SUMS}"
    f" FROM ndbinfo.transporters GROUP BY node_id, status, {LINK}"
)

# A pair of nodes may have several transporters (multi-transporter links in a node group):
# taken together as the transporters view does (traffic summed, the highest connect count;
# overloads and slowdowns are counted per remote node, the same on each of its transporters).
PAIRS = (
    "SELECT node_id, remote_node_id, MAX(status) AS status, SUM(bytes_sent) AS bytes_sent,"
    " SUM(bytes_received) AS bytes_received, MAX(connect_count) AS connect_count,"
    " MAX(overloaded) AS overloaded, MAX(overload_count) AS overload_count,"
    " MAX(slowdown) AS slowdown, MAX(slowdown_count) AS slowdown_count,"
    " SUM(sendbuffer_used_bytes) AS used_bytes, SUM(sendbuffer_alloc_bytes) AS allocated_bytes,"
    " MAX(sendbuffer_used_bytes) AS fullest_link_bytes"
    " FROM ndbinfo.transporter_details GROUP BY node_id, remote_node_id"
)
DETAILS_SQL = (
    f"SELECT node_id, status, {LINK} AS link, COUNT(*) AS links, {SUMS},"
    " SUM(used_bytes) AS used_bytes, SUM(allocated_bytes) AS allocated_bytes,"
    " MAX(fullest_link_bytes) AS fullest_link_bytes"
    f" FROM ({PAIRS}) pairs GROUP BY node_id, status, {LINK}"
)


def _per_node(rows: list[Row], columns: tuple[str, ...]) -> dict[str, dict[str, float]]:
    sums: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for row in rows:
        node = ident(row["node_id"])
        for column in columns:
            sums[node][column] += number(row[column]) or 0.0
    return sums


def collect(rows: list[Row], ctx: Context) -> Iterable:
    links: dict[str, dict[str, float]] = defaultdict(dict)
    for row in rows:
        node, state = ident(row["node_id"]), text(row["status"])
        links[node][state] = links[node].get(state, 0.0) + (number(row["links"]) or 0.0)
    sums = _per_node(rows, tuple(column for column, _ in COLUMNS))
    restarting: dict[str, dict[str, float]] = defaultdict(lambda: dict.fromkeys(RESTARTING, 0.0))
    for (node, _), counts in monotonic(ctx.kept, rows, "link").items():
        for column in RESTARTING:
            restarting[node][column] += counts[column]
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
            kept = restarting[node][column] if column in RESTARTING else None
            family.add_metric([node], sums[node][column] if kept is None else kept)
        yield family


def collect_details(rows: list[Row], ctx: Context) -> Iterable:
    yield from collect(rows, ctx)
    sums = _per_node(rows, ("used_bytes", "allocated_bytes"))
    fullest: dict[str, float] = defaultdict(float)
    for row in rows:
        node = ident(row["node_id"])
        fullest[node] = max(fullest[node], number(row["fullest_link_bytes"]) or 0.0)
    nodes = sorted(fullest, key=int)
    for column, spec in SEND_BUFFERS:
        family = spec.family()
        for node in nodes:
            family.add_metric(
                [node], fullest[node] if column == "fullest_link_bytes" else sums[node][column]
            )
        yield family


TRANSPORTER_COLUMNS = ("node_id", "remote_node_id", "status", *(c for c, _ in COLUMNS))
HELP = (
    "Transporters of each data node by state, with traffic, reconnects, overloads and"
    " slowdowns summed over its links (overloads and slowdowns monotonic across reconnects),"
    " and from NDB 8.0.37 its send buffers; ndbinfo.transporters, or transporter_details where"
    " it exists, summed in SQL. On by default:"
    " series linear in the data nodes; per-link detail is the transporter_links collector."
)
METRICS = (LINKS, *(spec for _, spec in COLUMNS), *(spec for _, spec in SEND_BUFFERS))

COLLECTOR = Collector(
    name="transporters",
    help=HELP,
    default_enabled=True,
    reads={"transporters": TRANSPORTER_COLUMNS},
    min_version=(7, 5, 0),
    sql=SQL,
    collect=collect,
    metrics=METRICS,
    newer=Collector(
        name="transporters",
        help=HELP,
        default_enabled=True,
        reads={
            "transporter_details": (
                *TRANSPORTER_COLUMNS,
                "sendbuffer_used_bytes",
                "sendbuffer_alloc_bytes",
            ),
        },
        min_version=(8, 0, 37),
        sql=DETAILS_SQL,
        collect=collect_details,
        metrics=METRICS,
    ),
)
