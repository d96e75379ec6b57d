"""The NDB dictionary of the simulated cluster: system tables, user tables in several databases,
their ordered and unique hash indexes with index triggers, blob part tables, hash maps, and a
log file group / tablespace for the disk-data tables.

Object ids: tables, indexes, filegroups and files share one id space (DICT schema file);
triggers and hash maps have their own (ids 1.. as ndbinfo shows them).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ndbsim.model.cluster import Cluster

# dict_obj_types
SYSTEM_TABLE, USER_TABLE, UNIQUE_HASH_INDEX, ORDERED_INDEX = 1, 2, 3, 6
INDEX_TRIGGER, TABLESPACE, LOGFILE_GROUP, DATAFILE, UNDOFILE, HASH_MAP = 18, 20, 21, 22, 23, 24
ONLINE = 4

# ndb$stored_tables.partition_balance
FOR_RP_BY_LDM, FOR_RA_BY_LDM, FOR_RP_BY_NODE, FOR_RA_BY_NODE = (
    4294967294,
    4294967293,
    4294967292,
    4294967291,
)
HASHMAP_PARTITION = 9  # DictTabInfo::FragmentType HashMapPartition
HASHMAP_BUCKETS = 3840
RNIL = 4294967295

_NAMED = {
    "shop": [
        "customers",
        "products",
        "orders",
        "order_items",
        "carts",
        "payments",
        "shipments",
        "reviews",
        "inventory",
        "suppliers",
        "categories",
        "coupons",
    ],
    "billing": ["accounts", "invoices", "invoice_lines", "ledger", "tax_rates", "currencies"],
    "auth": ["users", "sessions", "tokens", "audit_log", "roles"],
    "telemetry": ["events", "metrics_1m", "devices", "alerts"],
}
# small reference tables created fully replicated (read locally on every node)
_FULLY_REPLICATED = {"tax_rates", "currencies", "roles", "categories"}


@dataclass
class DictObject:
    type: int
    id: int
    version: int
    parent_type: int
    parent_id: int
    fq_name: str
    state: int = ONLINE


@dataclass
class DihTable:
    """An object with fragments in DIH: a table, a blob part table or an index."""

    table_id: int
    type: int
    database: str
    name: str
    base_id: int  # the table an index / blob table belongs to (itself for tables)
    partition_balance: int
    fully_replicated: bool
    read_backup: bool
    disk: bool
    logged: bool
    row_bytes: int  # fixed part per row
    var_bytes: int  # variable part per row
    rows: int  # rows in the whole table (one copy)
    columns: int
    seq: int  # creation order, spreads fragments over log parts
    create_gci: int
    weight: float  # share of the workload
    partitions: int = 0
    fragments: int = 0
    hashmap_id: int = 0


@dataclass
class Dictionary:
    objects: list[DictObject] = field(default_factory=list)
    dih: list[DihTable] = field(default_factory=list)
    hashmaps: dict[int, int] = field(default_factory=dict)  # partitions -> hash map id
    logfile_group_id: int | None = None
    tablespace_id: int | None = None
    blobs: list[tuple[int, int, str, str]] = field(default_factory=list)  # base id, col, name

    @property
    def user_tables(self) -> list[DihTable]:
        return [t for t in self.dih if t.type == USER_TABLE and t.base_id == t.table_id]

    def counts(self) -> dict[str, int]:
        return {
            "tables": sum(1 for o in self.objects if o.type in (SYSTEM_TABLE, USER_TABLE)),
            "ordered_indexes": sum(1 for o in self.objects if o.type == ORDERED_INDEX),
            "unique_indexes": sum(1 for o in self.objects if o.type == UNIQUE_HASH_INDEX),
            "triggers": sum(1 for o in self.objects if o.type == INDEX_TRIGGER),
            "attributes": sum(t.columns for t in self.dih),
        }


EXCEPTIONS_SUFFIX = "$EX"  # the exceptions table of `t` for conflict detection is `t$EX`
# an exceptions row: the four mandatory columns, the operation type, the conflict cause,
# the original transaction id and the table's primary key
EXCEPTION_ROW_BYTES = 64


def tables_rows(c: Cluster) -> list[dict[str, Any]]:
    """information_schema.TABLES rows of the NDB tables a SQL node shows (blob part tables
    and system tables are not shown): the user tables with their row counts (one copy), and
    on a replica with conflicts the exceptions tables the applier writes to."""
    # the server's default collation, as SHOW CREATE TABLE gives it (show_schema.py)
    collation = "latin1_swedish_ci" if c.version.is_7x else "utf8mb4_0900_ai_ci"
    rows = [
        _tables_row(t.database, t.name, t.rows, t.row_bytes + t.var_bytes, collation)
        for t in c.dictionary.user_tables
    ]
    link = c.inbound
    if link is not None:
        rows += [
            _tables_row(db, name + EXCEPTIONS_SUFFIX, count, EXCEPTION_ROW_BYTES, collation)
            for (db, name), count in sorted(link.exceptions_rows().items())
        ]
    return rows


def _tables_row(db: str, name: str, rows: int, row_bytes: int, collation: str) -> dict[str, Any]:
    return {
        "TABLE_CATALOG": "def",
        "TABLE_SCHEMA": db,
        "TABLE_NAME": name,
        "TABLE_TYPE": "BASE TABLE",
        "ENGINE": "ndbcluster",
        "VERSION": 10,
        "ROW_FORMAT": "Dynamic",
        "TABLE_ROWS": rows,
        "AVG_ROW_LENGTH": row_bytes,
        "DATA_LENGTH": rows * row_bytes,
        "MAX_DATA_LENGTH": 0,
        "INDEX_LENGTH": 0,
        "DATA_FREE": 0,
        "TABLE_COLLATION": collation,
        "CREATE_OPTIONS": "",
        "TABLE_COMMENT": "",
    }


def partitions_for(balance: int, data_nodes: int, nodegroups: int, ldm: int) -> int:
    return {
        FOR_RP_BY_LDM: ldm * data_nodes,
        FOR_RA_BY_LDM: ldm * nodegroups,
        FOR_RP_BY_NODE: data_nodes,
        FOR_RA_BY_NODE: nodegroups,
    }[balance]


@dataclass(frozen=True)
class Storage:
    """How an object's fragments are laid out and kept."""

    balance: int  # partition_balance
    fully_replicated: bool = False
    read_backup: bool = False
    disk: bool = False
    logged: bool = True


@dataclass(frozen=True)
class Shape:
    """An object's rows: their size, their number (one copy), its columns, its workload."""

    row_bytes: int
    var_bytes: int
    rows: int
    columns: int
    weight: float = 0.0


def build_dictionary(
    tables: int,
    data_nodes: int,
    nodegroups: int,
    ldm: int,
    seed: int,
    modern: bool,
    data_bytes_budget: int,
) -> Dictionary:
    """Build the dictionary. `modern` is NDB 8.0+ (read_backup on by default, more system
    tables); `data_bytes_budget` is the table data (one copy) to spread over the user tables."""
    builder = _Builder(data_nodes, nodegroups, ldm, random.Random(seed))
    builder.system_tables()
    builder.mysql_tables(modern)
    names = _user_table_names(tables)
    weights = [1.0 / (i + 1) ** 0.8 for i in range(len(names))]
    builder.rnd.shuffle(weights)
    total_weight = sum(weights)
    if any(_on_disk(i) for i in range(len(names))):
        builder.disk_data_objects()
    for i, (db, name) in enumerate(names):
        builder.user_table(i, db, name, weights[i] / total_weight, modern, data_bytes_budget)
    return builder.finished()


def _user_table_names(tables: int) -> list[tuple[str, str]]:
    """(database, table) of the user tables: the named ones first, then generated databases."""
    names: list[tuple[str, str]] = [(db, n) for db, ns in _NAMED.items() for n in ns]
    extra_dbs = max(1, tables // 250)
    while len(names) < tables:
        k = len(names)
        names.append((f"app{k % extra_dbs + 1}", f"t{k:05d}"))
    return names[:tables]


def _on_disk(index: int) -> bool:
    """Every tenth user table keeps its non-indexed columns on disk."""
    return index % 10 == 7


class _Builder:
    """The dictionary as objects are added, in creation order: ids, trigger ids and the GCI
    each object was created in."""

    def __init__(self, data_nodes: int, nodegroups: int, ldm: int, rnd: random.Random):
        self.data_nodes = data_nodes
        self.nodegroups = nodegroups
        self.ldm = ldm
        self.rnd = rnd
        self.d = Dictionary()
        self.next_id = 0
        self.trigger_id = 0
        self.gci = 2

    def new_id(self) -> int:
        self.next_id += 1
        return self.next_id - 1

    def add_dih(
        self, obj_type: int, db: str, name: str, storage: Storage, shape: Shape
    ) -> DihTable:
        table_id = self.new_id()
        t = DihTable(
            table_id,
            obj_type,
            db,
            name,
            table_id,
            storage.balance,
            storage.fully_replicated,
            storage.read_backup,
            storage.disk,
            storage.logged,
            shape.row_bytes,
            shape.var_bytes,
            shape.rows,
            shape.columns,
            len(self.d.dih),
            self.gci,
            shape.weight,
        )
        if storage.fully_replicated:
            parts = self.ldm
        else:
            parts = partitions_for(storage.balance, self.data_nodes, self.nodegroups, self.ldm)
        t.partitions = parts
        t.fragments = parts * self.nodegroups if storage.fully_replicated else parts
        t.hashmap_id = self.d.hashmaps.setdefault(parts, len(self.d.hashmaps) + 1)
        self.d.dih.append(t)
        return t

    def system_tables(self) -> None:
        for name in ("sys/def/SYSTAB_0", "sys/def/NDB$EVENTS_0"):
            db, _, tname = name.split("/")
            rows = 4 if "SYSTAB" in tname else 40
            t = self.add_dih(
                SYSTEM_TABLE, db, tname, Storage(FOR_RA_BY_NODE), Shape(64, 0, rows, 3)
            )
            self.d.objects.append(DictObject(SYSTEM_TABLE, t.table_id, 1, 0, 0, name))

    def mysql_tables(self, modern: bool) -> None:
        """The SQL nodes' own NDB tables in the mysql database."""
        mysql_tables = ["ndb_schema", "ndb_apply_status"]
        if modern:
            mysql_tables += ["ndb_schema_result", "ndb_sql_metadata"]
        mysql_tables += ["ndb_index_stat_head", "ndb_index_stat_sample"]
        storage = Storage(FOR_RP_BY_LDM, read_backup=modern)
        for tname in mysql_tables:
            shape = Shape(96, 64, self.rnd.randint(5, 200), 8, 0.002)
            t = self.add_dih(USER_TABLE, "mysql", tname, storage, shape)
            self.d.objects.append(
                DictObject(USER_TABLE, t.table_id, 1 << 24 | 1, 0, 0, f"mysql/def/{tname}")
            )
            if tname in ("ndb_schema", "ndb_sql_metadata"):
                self.blob(t, 3 if tname == "ndb_schema" else 4)

    def disk_data_objects(self) -> None:
        """The log file group with its undo file, the tablespace with its data file."""
        d = self.d
        lg = self.new_id()
        d.logfile_group_id = lg
        d.objects.append(DictObject(LOGFILE_GROUP, lg, 1, 0, 0, "lg_1"))
        d.objects.append(DictObject(UNDOFILE, self.new_id(), 1, LOGFILE_GROUP, lg, "undo_1.log"))
        ts = self.new_id()
        d.tablespace_id = ts
        d.objects.append(DictObject(TABLESPACE, ts, 1, 0, 0, "ts_1"))
        d.objects.append(DictObject(DATAFILE, self.new_id(), 1, TABLESPACE, ts, "ts_1_data_1.dat"))

    def user_table(
        self, i: int, db: str, tname: str, share: float, modern: bool, data_bytes_budget: int
    ) -> None:
        """The ``i``th user table with its indexes and blob part table, ``share`` of the
        workload and of the data."""
        rnd = self.rnd
        self.gci += rnd.randint(1, 40)
        fr = tname in _FULLY_REPLICATED
        balance = FOR_RA_BY_LDM if (fr or i % 9 == 4) else FOR_RP_BY_LDM
        # ndb_read_backup is ON from NDB 8.0.19: every table created since reads its backups;
        # before, a table has READ_BACKUP only when created with it.
        legacy_read_backup = rnd.random() < 0.2
        read_backup = fr or modern or legacy_read_backup
        storage = Storage(balance, fr, read_backup, _on_disk(i))
        cols = rnd.randint(4, 24)
        row = rnd.choice((48, 64, 96, 128, 192, 256))
        var = rnd.choice((0, 0, 32, 80, 200))
        rows = max(10, int(data_bytes_budget * share / (row + var + 24)))
        if fr:
            rows = min(rows, 5000)
        t = self.add_dih(USER_TABLE, db, tname, storage, Shape(row, var, rows, cols, share))
        self.d.objects.append(
            DictObject(USER_TABLE, t.table_id, 1 << 24 | (1 + i % 3), 0, 0, f"{db}/def/{tname}")
        )
        index_names = ["PRIMARY"]
        if rnd.random() < 0.4:
            index_names.append(f"ix_{tname}_created")
        unique = rnd.random() < 0.3
        if unique:
            index_names.append(f"uk_{tname}_code")
        index_storage = Storage(balance, fr, read_backup, logged=False)
        for index_name in index_names:
            ix = self.add_dih(
                ORDERED_INDEX, "sys", index_name, index_storage, Shape(16, 0, rows, 1)
            )
            self.index(ix, t, index_name, f"NDB$INDEX_{ix.table_id}_CUSTOM")
        if unique:
            shape = Shape(32, 0, rows, 2, share * 0.1)
            ui = self.add_dih(
                UNIQUE_HASH_INDEX,
                "sys",
                f"uk_{tname}_code$unique",
                replace(index_storage, logged=True),
                shape,
            )
            self.index(ui, t, ui.name, f"NDB$INDEX_{ui.table_id}_UI")
        if var >= 200 or rnd.random() < 0.1:
            self.blob(t, cols - 1)

    def index(self, ix: DihTable, table: DihTable, name: str, trigger: str) -> None:
        """An index of ``table``, with the trigger that maintains it."""
        ix.base_id = table.table_id
        self.d.objects.append(
            DictObject(
                ix.type,
                ix.table_id,
                1,
                USER_TABLE,
                table.table_id,
                f"sys/def/{table.table_id}/{name}",
            )
        )
        self.trigger_id += 1
        self.d.objects.append(
            DictObject(INDEX_TRIGGER, self.trigger_id, 1, ix.type, ix.table_id, trigger)
        )

    def blob(self, base: DihTable, column: int) -> None:
        """The blob part table of ``base``'s ``column``."""
        name = f"NDB$BLOB_{base.table_id}_{column}"
        storage = Storage(
            base.partition_balance, base.fully_replicated, base.read_backup, base.disk
        )
        shape = Shape(2048, 0, max(1, base.rows // 4), 4, base.weight * 0.2)
        b = self.add_dih(USER_TABLE, base.database, name, storage, shape)
        b.base_id = base.table_id
        self.d.objects.append(
            DictObject(USER_TABLE, b.table_id, 1, 0, 0, f"{base.database}/def/{name}")
        )
        self.d.blobs.append((base.table_id, column, f"c{column}", name))

    def finished(self) -> Dictionary:
        """The dictionary with its hash maps, its objects in (type, id) order."""
        for partitions, hashmap_id in self.d.hashmaps.items():
            self.d.objects.append(
                DictObject(
                    HASH_MAP,
                    hashmap_id,
                    1,
                    0,
                    0,
                    f"DEFAULT-HASHMAP-{HASHMAP_BUCKETS}-{partitions}",
                )
            )
        self.d.objects.sort(key=lambda o: (o.type, o.id))
        return self.d
