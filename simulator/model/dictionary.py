"""The NDB dictionary of the simulated cluster: system tables, user tables in several databases,
their ordered and unique hash indexes with index triggers, blob part tables, hash maps, and a
log file group / tablespace for the disk-data tables.

Object ids: tables, indexes, filegroups and files share one id space (DICT schema file);
triggers and hash maps have their own (ids 1.. as ndbinfo shows them).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

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


def partitions_for(balance: int, data_nodes: int, nodegroups: int, ldm: int) -> int:
    return {
        FOR_RP_BY_LDM: ldm * data_nodes,
        FOR_RA_BY_LDM: ldm * nodegroups,
        FOR_RP_BY_NODE: data_nodes,
        FOR_RA_BY_NODE: nodegroups,
    }[balance]


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
    rnd = random.Random(seed)
    d = Dictionary()
    next_id = 0
    trigger_id = 0
    gci = 2

    def new_id() -> int:
        nonlocal next_id
        next_id += 1
        return next_id - 1

    def add_dih(
        obj_type, db, name, balance, fr, rb, disk, logged, row, var, rows, cols, weight
    ) -> DihTable:
        table_id = new_id()
        t = DihTable(
            table_id,
            obj_type,
            db,
            name,
            table_id,
            balance,
            fr,
            rb,
            disk,
            logged,
            row,
            var,
            rows,
            cols,
            len(d.dih),
            gci,
            weight,
        )
        parts = ldm if fr else partitions_for(balance, data_nodes, nodegroups, ldm)
        t.partitions = parts
        t.fragments = parts * nodegroups if fr else parts
        t.hashmap_id = d.hashmaps.setdefault(parts, len(d.hashmaps) + 1)
        d.dih.append(t)
        return t

    # system tables
    for name, obj_type in (
        ("sys/def/SYSTAB_0", SYSTEM_TABLE),
        ("sys/def/NDB$EVENTS_0", SYSTEM_TABLE),
    ):
        db, _, tname = name.split("/")
        t = add_dih(
            obj_type,
            db,
            tname,
            FOR_RA_BY_NODE,
            False,
            False,
            False,
            True,
            64,
            0,
            4 if "SYSTAB" in tname else 40,
            3,
            0.0,
        )
        d.objects.append(DictObject(obj_type, t.table_id, 1, 0, 0, name))
    mysql_tables = ["ndb_schema", "ndb_apply_status"]
    if modern:
        mysql_tables += ["ndb_schema_result", "ndb_sql_metadata"]
    mysql_tables += ["ndb_index_stat_head", "ndb_index_stat_sample"]
    for tname in mysql_tables:
        t = add_dih(
            USER_TABLE,
            "mysql",
            tname,
            FOR_RP_BY_LDM,
            False,
            modern,
            False,
            True,
            96,
            64,
            rnd.randint(5, 200),
            8,
            0.002,
        )
        d.objects.append(
            DictObject(USER_TABLE, t.table_id, 1 << 24 | 1, 0, 0, f"mysql/def/{tname}")
        )
        if tname in ("ndb_schema", "ndb_sql_metadata"):
            _add_blob(d, add_dih, t, 3 if tname == "ndb_schema" else 4)

    # user tables: named ones first, then generated databases
    names: list[tuple[str, str]] = [(db, n) for db, ns in _NAMED.items() for n in ns]
    extra_dbs = max(1, tables // 250)
    while len(names) < tables:
        k = len(names)
        names.append((f"app{k % extra_dbs + 1}", f"t{k:05d}"))
    names = names[:tables]
    weights = [1.0 / (i + 1) ** 0.8 for i in range(len(names))]
    rnd.shuffle(weights)
    total_weight = sum(weights)
    want_disk = any(i % 10 == 7 for i in range(len(names)))
    if want_disk:
        lg = new_id()
        d.logfile_group_id = lg
        d.objects.append(DictObject(LOGFILE_GROUP, lg, 1, 0, 0, "lg_1"))
        d.objects.append(DictObject(UNDOFILE, new_id(), 1, LOGFILE_GROUP, lg, "undo_1.log"))
        ts = new_id()
        d.tablespace_id = ts
        d.objects.append(DictObject(TABLESPACE, ts, 1, 0, 0, "ts_1"))
        d.objects.append(DictObject(DATAFILE, new_id(), 1, TABLESPACE, ts, "ts_1_data_1.dat"))

    for i, (db, tname) in enumerate(names):
        gci += rnd.randint(1, 40)
        fr = tname in _FULLY_REPLICATED
        disk = i % 10 == 7
        balance = FOR_RA_BY_LDM if (fr or i % 9 == 4) else FOR_RP_BY_LDM
        read_backup = fr or (rnd.random() < (0.85 if modern else 0.2))
        cols = rnd.randint(4, 24)
        row = rnd.choice((48, 64, 96, 128, 192, 256))
        var = rnd.choice((0, 0, 32, 80, 200))
        share = weights[i] / total_weight
        rows = max(10, int(data_bytes_budget * share / (row + var + 24)))
        if fr:
            rows = min(rows, 5000)
        t = add_dih(
            USER_TABLE, db, tname, balance, fr, read_backup, disk, True, row, var, rows, cols, share
        )
        d.objects.append(
            DictObject(USER_TABLE, t.table_id, 1 << 24 | (1 + i % 3), 0, 0, f"{db}/def/{tname}")
        )
        index_names = ["PRIMARY"]
        if rnd.random() < 0.4:
            index_names.append(f"ix_{tname}_created")
        unique = rnd.random() < 0.3
        if unique:
            index_names.append(f"uk_{tname}_code")
        for index_name in index_names:
            ix = add_dih(
                ORDERED_INDEX,
                "sys",
                index_name,
                balance,
                fr,
                read_backup,
                False,
                False,
                16,
                0,
                rows,
                1,
                0.0,
            )
            ix.base_id = t.table_id
            d.objects.append(
                DictObject(
                    ORDERED_INDEX,
                    ix.table_id,
                    1,
                    USER_TABLE,
                    t.table_id,
                    f"sys/def/{t.table_id}/{index_name}",
                )
            )
            trigger_id += 1
            d.objects.append(
                DictObject(
                    INDEX_TRIGGER,
                    trigger_id,
                    1,
                    ORDERED_INDEX,
                    ix.table_id,
                    f"NDB$INDEX_{ix.table_id}_CUSTOM",
                )
            )
        if unique:
            ui = add_dih(
                UNIQUE_HASH_INDEX,
                "sys",
                f"uk_{tname}_code$unique",
                balance,
                fr,
                read_backup,
                False,
                True,
                32,
                0,
                rows,
                2,
                share * 0.1,
            )
            ui.base_id = t.table_id
            d.objects.append(
                DictObject(
                    UNIQUE_HASH_INDEX,
                    ui.table_id,
                    1,
                    USER_TABLE,
                    t.table_id,
                    f"sys/def/{t.table_id}/{ui.name}",
                )
            )
            trigger_id += 1
            d.objects.append(
                DictObject(
                    INDEX_TRIGGER,
                    trigger_id,
                    1,
                    UNIQUE_HASH_INDEX,
                    ui.table_id,
                    f"NDB$INDEX_{ui.table_id}_UI",
                )
            )
        if var >= 200 or rnd.random() < 0.1:
            _add_blob(d, add_dih, t, cols - 1)

    for partitions, hashmap_id in d.hashmaps.items():
        d.objects.append(
            DictObject(
                HASH_MAP, hashmap_id, 1, 0, 0, f"DEFAULT-HASHMAP-{HASHMAP_BUCKETS}-{partitions}"
            )
        )
    d.objects.sort(key=lambda o: (o.type, o.id))
    return d


def _add_blob(d: Dictionary, add_dih, base: DihTable, column: int) -> None:
    name = f"NDB$BLOB_{base.table_id}_{column}"
    b = add_dih(
        USER_TABLE,
        base.database,
        name,
        base.partition_balance,
        base.fully_replicated,
        base.read_backup,
        base.disk,
        True,
        2048,
        0,
        max(1, base.rows // 4),
        4,
        base.weight * 0.2,
    )
    b.base_id = base.table_id
    d.objects.append(DictObject(USER_TABLE, b.table_id, 1, 0, 0, f"{base.database}/def/{name}"))
    d.blobs.append((base.table_id, column, f"c{column}", name))
