"""Table distribution state from ndbinfo.table_distribution_status, one data node's copy."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from ._one_copy import OBJECT_SUMS, objects_fingerprint, one_copy
from .base import Collector, Context, Row, SlowChanging, gauge, number, text

ONE_COPY = (
    " Read from one data node's copy of table_distribution_status (the lowest reporting node id)."
)

# Status texts of the view (enums.json "table_distribution_status"); before NDB 8.0.20 the
# add-table states were called ADD_TABLE_MASTER / ADD_TABLE_SLAVE.
COPY = ("IDLE", "SR_PHASE1_READ_PAGES", "SR_PHASE2_READ_TABLE", "SR_PHASE3_COPY_TABLE", "REMOVE_NODE",
        "LCP_READ_TABLE", "COPY_TAB_REQ", "COPY_NODE_STATE", "ADD_TABLE_COORDINATOR", "ADD_TABLE_PARTICIPANT",
        "INVALIDATE_NODE_LCP", "ALTER_TABLE", "COPY_TO_SAVE", "GET_TABINFO")  # fmt: skip
UPDATE = ("IDLE", "LOCAL_CHECKPOINT", "LOCAL_CHECKPOINT_QUEUED", "REMOVE_NODE", "COPY_TAB_REQ",
          "ADD_TABLE_COORDINATOR", "ADD_TABLE_PARTICIPANT", "INVALIDATE_NODE_LCP", "CALLBACK")  # fmt: skip
LCP = ("ACTIVE", "wRITING_TO_FILE", "COMPLETED")
STATUS = ("IDLE", "ACTIVE", "CREATING", "DROPPING")
STORAGE = ("NOLOGGING", "NORMAL", "TEMPORARY")
OLD_NAMES = {
    "ADD_TABLE_COORDINATOR": "ADD_TABLE_MASTER",
    "ADD_TABLE_PARTICIPANT": "ADD_TABLE_SLAVE",
}
RENAMED_IN = (8, 0, 20)

DIMENSIONS = (
    ("copy", "tab_copy_status", COPY),
    ("update", "tab_update_status", UPDATE),
    ("lcp", "tab_lcp_status", LCP),
    ("table", "tab_status", STATUS),
    ("storage", "tab_storage", STORAGE),
)

TABLES = gauge(
    "ndb_distribution_tables",
    "Tables (including indexes and blob tables) per distribution status; every known status"
    " of each dimension (copy, update, lcp, table, storage) is present." + ONE_COPY,
    ("dimension", "status"),
)
REORG = gauge("ndb_distribution_reorg_ongoing_tables", "Tables being reorganized." + ONE_COPY)
SCANS_ACTIVE = gauge("ndb_distribution_scans_active", "Scans running on all tables." + ONE_COPY)
SCANS_WAITING = gauge(
    "ndb_distribution_scans_waiting",
    "Scans that an ALTER TABLE waits for." + ONE_COPY,
)

STATUS_COLUMNS = ", ".join(column for _, column, _ in DIMENSIONS)
SQL = (
    f"SELECT node_id, {STATUS_COLUMNS}, {OBJECT_SUMS},"
    " SUM(is_reorg_ongoing) AS reorg_ongoing,"
    " SUM(current_scan_count) AS scans_active,"
    " SUM(scan_count_wait) AS scans_waiting"
    " FROM ndbinfo.table_distribution_status"
    f" GROUP BY node_id, {STATUS_COLUMNS}"
)


def known(values: tuple[str, ...], ctx: Context) -> tuple[str, ...]:
    if ctx.target.ndb_version >= RENAMED_IN:
        return values
    return tuple(OLD_NAMES.get(value, value) for value in values)


def collect(rows: list[Row], ctx: Context) -> Iterable:
    per_status: dict[tuple[str, str], float] = defaultdict(float)
    sums = {"reorg_ongoing": 0.0, "scans_active": 0.0, "scans_waiting": 0.0}
    for row in one_copy(rows):
        count = number(row["tables"]) or 0.0
        for dimension, column, _ in DIMENSIONS:
            per_status[dimension, text(row[column])] += count
        for column in sums:
            sums[column] += number(row[column]) or 0.0
    tables = TABLES.family()
    for dimension, _, values in DIMENSIONS:
        statuses = known(values, ctx)
        extra = sorted(s for d, s in per_status if d == dimension and s not in statuses)
        for status in (*statuses, *extra):
            tables.add_metric([dimension, status], per_status.get((dimension, status), 0.0))
    yield tables
    for spec, column in (
        (REORG, "reorg_ongoing"),
        (SCANS_ACTIVE, "scans_active"),
        (SCANS_WAITING, "scans_waiting"),
    ):
        family = spec.family()
        family.add_metric([], sums[column])
        yield family


COLLECTOR = Collector(
    name="table_distribution",
    help="Tables per copy, update, LCP, table and storage status, table reorganizations and"
    " scans (ndbinfo.table_distribution_status, one node's copy, aggregated in SQL). On by"
    " default: rows fetched are bounded by the status combinations, not the tables.",
    default_enabled=True,
    reads={
        "table_distribution_status": (
            "node_id",
            "table_id",
            *(column for _, column, _ in DIMENSIONS),
            "tab_partitions",
            "tab_fragments",
            "is_reorg_ongoing",
            "current_scan_count",
            "scan_count_wait",
        )
    },
    min_version=(7, 5, 0),
    sql=SQL,
    collect=collect,
    metrics=(TABLES, REORG, SCANS_ACTIVE, SCANS_WAITING),
    # Its rows also give the objects signal (read with them at least every maximum age).
    slow=SlowChanging(frozenset({"nodes", "ddl"}), fingerprint=objects_fingerprint),
)
