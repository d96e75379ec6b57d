"""User tables by distribution properties: table_info JOIN dict_obj_info, counted in SQL."""

from __future__ import annotations

from collections.abc import Iterable

from .base import Collector, Context, Row, SlowChanging, gauge, ident, number, text

USER_TABLE = 2  # dict_obj_types "User table"

TABLES = gauge(
    "ndb_user_tables",
    "Tables of dictionary type 'User table' (this includes blob part tables and NDB's own"
    " mysql.ndb_* tables) by READ_BACKUP, FULLY_REPLICATED, storage type and partition balance.",
    ("read_backup", "fully_replicated", "storage_type", "partition_balance"),
)

SQL = (
    "SELECT i.read_backup, i.fully_replicated, i.storage_type, i.partition_balance,"
    " COUNT(DISTINCT i.table_id) AS tables"
    " FROM ndbinfo.table_info i"
    f" JOIN ndbinfo.dict_obj_info o ON o.id = i.table_id AND o.type = {USER_TABLE}"
    " GROUP BY i.read_backup, i.fully_replicated, i.storage_type, i.partition_balance"
)


def collect(rows: list[Row], ctx: Context) -> Iterable:
    family = TABLES.family()
    labelled = [
        (
            [
                ident(row["read_backup"]),
                ident(row["fully_replicated"]),
                text(row["storage_type"]),
                text(row["partition_balance"]),
            ],
            number(row["tables"]) or 0.0,
        )
        for row in rows
    ]
    for labels, value in sorted(labelled):
        family.add_metric(labels, value)
    yield family


COLLECTOR = Collector(
    name="table_info",
    help="User tables by read_backup, fully_replicated, storage type and partition balance"
    " (ndbinfo.table_info joined to dict_obj_info, counted in SQL). On by default: a handful of"
    " rows whatever the number of tables.",
    default_enabled=True,
    reads={
        "table_info": (
            "table_id",
            "read_backup",
            "fully_replicated",
            "storage_type",
            "partition_balance",
        ),
        "dict_obj_info": ("id", "type"),
    },
    min_version=(7, 5, 0),
    sql=SQL,
    collect=collect,
    metrics=(TABLES,),
    slow=SlowChanging(frozenset({"ddl", "objects"}), aged=False),
)
