"""Data node state from ndbinfo.nodes (running data nodes only: a stopped node has no row)."""

from __future__ import annotations

from collections.abc import Iterable

from .base import Collector, Context, Row, add_states, add_value, gauge, ident, number, text

STATES = (
    "NOTHING",
    "CMVMI",
    "STARTING",
    "STARTED",
    "SINGLEUSER",
    "STOPPING_1",
    "STOPPING_2",
    "STOPPING_3",
    "STOPPING_4",
)

STATUS = gauge(
    "ndb_data_node_status",
    "Start level of each running data node: 1 for the current state, 0 for the others."
    " A data node that is down has no series; compare with ndb_node_configured.",
    ("node_id", "state"),
)
START_PHASE = gauge(
    "ndb_data_node_start_phase", "Current start phase (meaningful while STARTING).", ("node_id",)
)
UPTIME = gauge(
    "ndb_data_node_uptime_seconds", "Seconds since the data node (re)started.", ("node_id",)
)
CONFIG_GENERATION = gauge(
    "ndb_data_node_config_generation",
    "Generation of the configuration the data node runs with.",
    ("node_id",),
)


def collect(rows: list[Row], ctx: Context) -> Iterable:
    status, phase, uptime, generation = (
        STATUS.family(),
        START_PHASE.family(),
        UPTIME.family(),
        CONFIG_GENERATION.family(),
    )
    for row in sorted(rows, key=lambda r: number(r["node_id"])):
        node = ident(row["node_id"])
        add_states(status, [node], text(row["status"]), STATES)
        for family, column in (
            (phase, "start_phase"),
            (uptime, "uptime"),
            (generation, "config_generation"),
        ):
            add_value(family, [node], number(row[column]))
    yield from (status, phase, uptime, generation)


COLLECTOR = Collector(
    name="nodes",
    help="Start level, start phase, uptime and configuration generation of the running data"
    " nodes (ndbinfo.nodes). On by default: one row per running data node.",
    default_enabled=True,
    reads={"nodes": ("node_id", "uptime", "status", "start_phase", "config_generation")},
    min_version=(7, 5, 0),
    sql="SELECT node_id, uptime, status, start_phase, config_generation FROM ndbinfo.nodes",
    collect=collect,
    metrics=(STATUS, START_PHASE, UPTIME, CONFIG_GENERATION),
)
