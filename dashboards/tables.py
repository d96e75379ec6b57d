"""Tables and distribution: what is stored, how it is spread over the nodes, and its replicas."""

from __future__ import annotations

from .alerts import threshold
from .common import (
    NEUTRAL,
    RATE,
    ZERO_IS_GOOD,
    ZERO_IS_GOOD_WARNING,
    alert_steps,
    bargauge_panel,
    bottom,
    joined_table,
    per_node,
    q,
    sel,
    stat_panel,
    thresholds,
    timeseries_panel,
    top,
)
from .layout import Board, Layout

UID = "ndb-tables"

USER_TABLE_LABELS = "read_backup, fully_replicated, storage_type, partition_balance"


def _user_tables(by: str) -> str:
    return f"sum by ({by}) (max by ({USER_TABLE_LABELS}) ({sel('ndb_user_tables')}))"


def _dictionary_row(layout: Layout) -> None:
    objects = sel("ndb_dictionary_objects")
    layout.row(
        "Dictionary and user tables",
        bargauge_panel(
            "Dictionary objects by type",
            "Schema objects in the data node dictionary by type (tables, indexes, triggers, "
            "blob parts, foreign keys, hash maps ...). Types with no objects are left out. "
            "MaxNoOfTables, MaxNoOfOrderedIndexes, MaxNoOfTriggers and friends cap these "
            "counts.",
            "none",
            q(f"max by (type) ({objects}) > 0", "{{type}}", instant=True),
            steps=thresholds((None, "blue")),
            width=8,
            height=10,
        ),
        bargauge_panel(
            "User tables by storage and partition balance",
            "User tables by storage type (in memory or disk data) and partition balance (how "
            "many partitions NDB created: FOR_RP_BY_LDM is the default, one partition per LDM "
            "thread per node group).",
            "none",
            q(_user_tables("storage_type"), "storage {{storage_type}}", instant=True),
            q(_user_tables("partition_balance"), "{{partition_balance}}", instant=True),
            steps=thresholds((None, "blue")),
            width=8,
            height=10,
        ),
        bargauge_panel(
            "User tables with READ_BACKUP and full replication",
            "User tables created with READ_BACKUP=1 (committed reads may use any replica, so "
            "SQL nodes co-located with data nodes read locally) and FULLY_REPLICATED=1 (a copy "
            "on every data node; fast reads, slower writes). Good choices for small, "
            "read-mostly tables joined from many queries.",
            "none",
            q(_user_tables("read_backup"), "READ_BACKUP={{read_backup}}", instant=True),
            q(
                _user_tables("fully_replicated"),
                "FULLY_REPLICATED={{fully_replicated}}",
                instant=True,
            ),
            steps=thresholds((None, "blue")),
            width=8,
            height=10,
        ),
        timeseries_panel(
            "Dictionary objects over time",
            "Schema objects by type over time; steps are DDL (CREATE, DROP, ALTER).",
            "none",
            q(f"max by (type) ({objects}) > 0", "{{type}}"),
            width=24,
        ),
    )


def _fragment_row(layout: Layout) -> None:
    primaries = sel("ndb_fragment_primaries")
    preferred = sel("ndb_fragment_preferred_primaries")
    misplaced = sel("ndb_fragments_not_on_preferred_primary")
    layout.row(
        "Fragments and primaries",
        stat_panel(
            "Fragments",
            "Fragments (partitions) of all tables, indexes and blob tables, counted once.",
            "none",
            q(f"max({sel('ndb_fragments')})", instant=True),
            steps=NEUTRAL,
            width=6,
        ),
        stat_panel(
            "Primary balance",
            "Fewest primary fragments on a data node divided by the most. 1 means every node "
            "is primary for the same number of fragments, so writes and default reads are "
            "spread evenly; after a node restart primaries can stay on the surviving node "
            "until they are switched back.",
            "percentunit",
            q(
                f"min(max by (node_id) ({primaries})) / max(max by (node_id) ({primaries}))",
                instant=True,
            ),
            steps=thresholds((None, "orange"), (0.9, "green")),
            width=6,
        ),
        stat_panel(
            "Fragments not on their preferred primary",
            "Fragments whose current primary is not the preferred one, typically after a node "
            "restart. They concentrate load on fewer nodes until the primaries move back.",
            "none",
            q(f"sum(max by (node_id) ({misplaced}))", instant=True),
            steps=ZERO_IS_GOOD_WARNING,
            width=6,
        ),
        stat_panel(
            "Fragments with dead replicas",
            "Fragments with a replica on a data node that is down. They are served by their "
            "surviving replicas but are not redundant.",
            "none",
            q(f"max({sel('ndb_fragments_with_dead_replicas')})", instant=True),
            steps=ZERO_IS_GOOD,
            width=6,
        ),
        timeseries_panel(
            "Primary fragments per node",
            "Fragments for which each data node is the current primary, and for which it is "
            "the preferred primary. The current line should sit on the preferred one.",
            "none",
            per_node(primaries, suffix="current"),
            per_node(preferred, suffix="preferred"),
            min_value=0,
        ),
        timeseries_panel(
            "Fragments not on preferred primary by node",
            "Per preferred primary node: fragments that currently have their primary elsewhere.",
            "none",
            per_node(misplaced),
            min_value=0,
        ),
    )


def _replica_row(layout: Layout) -> None:
    layout.row(
        "Replicas",
        timeseries_panel(
            "Replicas by node and state",
            "Fragment replicas stored on each data node, alive or dead. Dead replicas belong "
            "to a node that is down or still restarting.",
            "none",
            per_node(sel("ndb_replicas"), "state"),
            min_value=0,
            width=8,
        ),
        timeseries_panel(
            "Crashed replicas",
            "Replicas the distribution information records as crashed, per node. They are "
            "restored from a live replica during the node's restart.",
            "none",
            per_node(sel("ndb_replicas_crashed")),
            min_value=0,
            width=8,
        ),
        timeseries_panel(
            "Replicas in an ongoing LCP",
            "Replicas per node that the running local checkpoint is still writing. It rises "
            "and falls with each LCP; a plateau that never empties is a stuck LCP.",
            "none",
            per_node(sel("ndb_replicas_lcp_ongoing")),
            min_value=0,
            width=8,
        ),
    )


def _distribution_row(layout: Layout) -> None:
    tables = sel("ndb_distribution_tables")
    layout.row(
        "Distribution status",
        bargauge_panel(
            "Tables by distribution status",
            "Tables by status in each dimension of the distribution handler "
            "(table_distribution_status): copy, update, LCP, table and storage status. In a "
            "quiet cluster every table is IDLE / ACTIVE / STORED; other states show copies, "
            "LCPs and table changes in progress.",
            "none",
            q(
                f"max by (dimension, status) ({tables}) > 0",
                "{{dimension}}: {{status}}",
                instant=True,
            ),
            steps=thresholds((None, "blue")),
            height=10,
        ),
        timeseries_panel(
            "Reorganisation and distribution scans",
            "Tables whose partitions are being reorganised (ALTER TABLE ... REORGANIZE "
            "PARTITION after adding node groups), and distribution scans active or waiting. "
            "Waiting scans that do not drain hold up node restarts.",
            "none",
            q(f"max({sel('ndb_distribution_reorg_ongoing_tables')})", "tables in reorg"),
            q(f"max({sel('ndb_distribution_scans_active')})", "scans active"),
            q(f"max({sel('ndb_distribution_scans_waiting')})", "scans waiting"),
            min_value=0,
            height=10,
        ),
    )


def _table_detail_row(layout: Layout) -> None:
    by = "db, table"
    layout.collapsed_row(
        "Per-table detail (table_detail collector)",
        joined_table(
            "Largest tables",
            "Memory, fragments and replica health of individual tables. Needs the opt-in "
            "table_detail collector (--collector.table_detail), which exports only the largest "
            "tables by memory (--collector.table_detail.limit) or the ones named in "
            "--collector.table_detail.tables.",
            ["db", "table"],
            [
                (
                    "memory",
                    q(f"max by ({by}) ({sel('ndb_table_memory_bytes')})", table=True),
                    "bytes",
                ),
                (
                    "fragments",
                    q(f"max by ({by}) ({sel('ndb_table_fragments')})", table=True),
                    "none",
                ),
                (
                    "dead replicas",
                    q(f"max by ({by}) ({sel('ndb_table_dead_replicas')})", table=True),
                    "none",
                ),
                (
                    "not on preferred primary",
                    q(
                        f"max by ({by}) ({sel('ndb_table_fragments_not_on_preferred_primary')})",
                        table=True,
                    ),
                    "none",
                ),
            ],
            sort_by=("memory", True),
        ),
        timeseries_panel(
            "Table memory",
            "Memory of the ten largest exported tables (all fragments and replicas) over time. Needs the "
            "table_detail collector.",
            "bytes",
            q(top(f"max by ({by}) ({sel('ndb_table_memory_bytes')})"), "{{db}}.{{table}}"),
            min_value=0,
        ),
    )


def _disk_data_row(layout: Layout) -> None:
    def files(metric: str) -> str:
        return f"max by (type, filegroup, file) ({sel(metric)})"

    data = 'type="DATAFILE"'
    free = f"sum by (filegroup) (max by (filegroup, file) ({sel('ndb_disk_data_file_free_bytes', data)}))"
    size = f"sum by (filegroup) (max by (filegroup, file) ({sel('ndb_disk_data_file_size_bytes', data)}))"
    layout.row(
        "Disk data",
        bargauge_panel(
            "Tablespace free",
            "Share of each tablespace's extents still free, over all its data files "
            "(information_schema.FILES), the ten fullest tablespaces. A full tablespace "
            "refuses inserts into its disk data tables (error 1601); add a data file before "
            f"it fills (NdbTablespaceFull fires below {threshold('NdbTablespaceFull'):.0%} "
            "free).",
            "percentunit",
            q(bottom(f"{free} / ({size} > 0)"), "{{filegroup}}", instant=True),
            steps=alert_steps(threshold("NdbTablespaceFull"), below=True),
            max_value=1,
        ),
        timeseries_panel(
            "Disk data file free space",
            "Free bytes of each tablespace data file (free extents) and undo log file (free "
            "undo space) over time; the slope shows how fast the disk data tables grow.",
            "bytes",
            q(files("ndb_disk_data_file_free_bytes"), "{{filegroup}} {{file}} ({{type}})"),
            min_value=0,
        ),
    )


HOT_TABLE_COUNTERS = (
    ("ndb_table_key_reads_total", "key reads"),
    ("ndb_table_key_writes_total", "key writes"),
    ("ndb_table_fragment_scans_total", "fragment scans"),
)


def _hot_table_row(layout: Layout) -> None:
    by = "db, table"
    examined = f"rate({sel('ndb_table_scan_rows_examined_total')}[{RATE}])"
    returned = f"rate({sel('ndb_table_scan_rows_returned_total')}[{RATE}])"
    layout.collapsed_row(
        "Hot tables (hot_tables collector)",
        timeseries_panel(
            "Busiest tables",
            "Key reads, key writes (on every replica) and fragment scans per second of the "
            "busiest user tables, the five busiest of each (ndbinfo.operations_per_fragment, "
            "summed over fragments). Needs the opt-in hot_tables collector, which exports the "
            "--collector.hot_tables.limit busiest tables.",
            "ops",
            *(
                q(
                    top(f"max by ({by}) (rate({sel(metric)}[{RATE}]))", 5),
                    "{{db}}.{{table}} " + name,
                )
                for metric, name in HOT_TABLE_COUNTERS
            ),
            min_value=0,
        ),
        timeseries_panel(
            "Scan rows returned per row examined",
            "Rows the fragment scans of each busy table returned for every row they examined, "
            "the ten tables that filter most. A low share means scans read many rows to "
            "return few: an index on the filtered columns, or pushed conditions, would spare "
            "the data nodes that work.",
            "percentunit",
            q(
                bottom(f"max by ({by}) ({returned}) / (max by ({by}) ({examined}) > 0)"),
                "{{db}}.{{table}}",
            ),
            min_value=0,
            max_value=1,
        ),
    )


def board() -> Board:
    layout = Layout(
        UID,
        "NDB Cluster / Tables and distribution",
        "Schema objects, user table options, fragment and primary placement, replicas and "
        "the distribution handler's status.",
    )
    _dictionary_row(layout)
    _fragment_row(layout)
    _replica_row(layout)
    _distribution_row(layout)
    _table_detail_row(layout)
    _hot_table_row(layout)
    _disk_data_row(layout)
    return layout.build()
