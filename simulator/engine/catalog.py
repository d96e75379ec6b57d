"""The ndbinfo schema (tables, lookup tables, views) served for each NDB version.

Everything comes from the data copy in data/ndbinfo (schema-8.0.json describes NDB 8.0.4x plus
the 8.4/9.x deltas in `version_variants`); the rules below say what is different in the other
versions and where each fact comes from.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path

import sqlglot
from ndbsim.versions import NdbVersion
from sqlglot import expressions as exp

DATA_DIR = Path(__file__).parents[1] / "data" / "ndbinfo"
# RonDB's own ndbinfo objects and names (no copy of ../shared: that has no RonDB)
RONDB_NDBINFO = DATA_DIR.parent / "rondb" / "ndbinfo.json"
SCHEMA = "ndbinfo"
PREFIX = "ndb$"


@dataclass(frozen=True)
class Column:
    name: str
    mysql_type: str  # "INT UNSIGNED", "VARCHAR(512)", "DECIMAL(62,0)", "ENUM('a','b')", ...
    nullable: bool
    key: str = ""  # "PRI" for the primary key of 8.0 virtual tables
    charset: str | None = None  # string columns only


@dataclass(frozen=True)
class TableDef:
    name: str
    kind: str  # "base" | "lookup" | "view"
    columns: tuple[Column, ...]
    hidden: bool
    needs_data_nodes: bool
    sql: str | None
    table_id: int | None
    comment: str = ""

    @property
    def column_names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.columns)


@dataclass
class Catalog:
    version: NdbVersion
    objects: dict[str, TableDef]
    _reads: dict[str, frozenset[str]] = field(default_factory=dict, repr=False)

    def get(self, name: str) -> TableDef | None:
        return self.objects.get(name)

    def reads(self, name: str) -> frozenset[str]:
        """The ndbinfo object and every ndbinfo object under it: what a statement reading it
        reads (for model_tables.sync, privileges and per-table latency faults); empty for a
        name not in ndbinfo."""
        found = self._reads.get(name)
        if found is None:
            obj = self.objects.get(name)
            out = {name} if obj else set()
            if obj and obj.kind == "view":
                for schema, table in referenced_tables(obj.sql or ""):
                    if schema in ("", SCHEMA) and table in self.objects and table != name:
                        out |= self.reads(table)
            found = self._reads[name] = frozenset(out)
        return found

    def listed(self, show_hidden: bool) -> list[TableDef]:
        """Objects SHOW TABLES / information_schema list, in name order."""
        return sorted(
            (t for t in self.objects.values() if show_hidden or not t.hidden),
            key=lambda t: t.name,
        )


@cache
def load_json(name: str) -> dict:
    return json.loads((DATA_DIR / name).read_text())


# --- version rules ---------------------------------------------------------------------------

# Base table ids per version (NdbinfoTables.cpp). 7.5.4: ids 0..37 (the 2017 7.5 copy ends at
# stored_tables; processes/config_nodes came in a later 7.5 release). 7.6: 0..39; the 7.6 view
# list (2018 ndbinfo_sql.cpp) has no view over ids 40..42 and early 8.0 still had 40 tables, so
# pgman_time_track_stats/diskstat/diskstats_1sec are treated as 8.0 additions (a derivation).
# 8.0.4x: 0..48 plus 50, 51 (49 = certificates is TLS, 8.3+). 8.4: 0..51.
# ndb$transactions_full (52), ndb$transporter_activity (53) and ndb$trusted_certs exist in newer
# releases but their columns are not known, so they are not served.
_BASE_IDS = {
    "7.5.4": set(range(38)),
    "7.6": set(range(40)),
    "8.0": set(range(49)) | {50, 51},
    "8.4": set(range(52)),
    "9.7": set(range(52)),
    # RonDB 22.10 is built on 8.0.34, before threadblock_details and transporter_details
    # (8.0.37); RonDB's own tables come from RONDB_NDBINFO
    "rondb-22.10": set(range(49)),
    "rondb-24.10": set(range(52)),
}
# MySQL NDB 8.0 before transporter_details (8.0.37): the schema's "8.0.3x" variant
_BEFORE_TRANSPORTER_DETAILS = (8, 0, 37)

# Base table columns added in 9.x: the 9.x transporter_details view selects them; the base
# table types were not retrieved, so they are the view's derived types.
_COLUMNS_9X = {
    "ndb$transporter_details": (
        ("heartbeat_interval", "INT UNSIGNED"),
        ("last_recv", "BIGINT UNSIGNED"),
    ),
}

# Columns added after a version: (table, column) -> predicate on the version.
_COLUMN_SINCE = {
    # rows_estimate arrived during 8.0 (absent from early 8.0 and 7.x)
    ("ndb$tables", "rows_estimate"): lambda v: not v.is_7x,
    # resource_id/type_id are later-8.0 additions (present in 8.0.4x)
    ("ndb$pools", "resource_id"): lambda v: not v.is_7x,
    ("ndb$pools", "type_id"): lambda v: not v.is_7x,
    # TLS: encrypted is 8.3/8.4+ only (8.0.4x ndb$transporters has 11 columns)
    ("ndb$transporters", "encrypted"): lambda v: v.at_least(8, 3),
}

# Lookup (SQL-node virtual) tables per version: 7.5 lookups[] has five, 7.6 adds error_messages
# (2018 ndbinfo_sql.cpp); 8.0.4x has all fourteen in schema-8.0.json.
_LOOKUPS_7_5 = (
    "ndb$blocks",
    "ndb$config_params",
    "ndb$dblqh_tcconnect_state",
    "ndb$dbtc_apiconnect_state",
    "ndb$dict_obj_types",
)
_LOOKUPS = {
    "7.5.4": _LOOKUPS_7_5,
    "7.6": (*_LOOKUPS_7_5, "ndb$error_messages"),
}

# Views of 7.5 (2017 ndbinfo_sql.cpp, 41 views) and 7.6 (2018 copy, 44 views).
_VIEWS_7_5 = [
    "arbitrator_validity_detail",
    "arbitrator_validity_summary",
    "blocks",
    "cluster_locks",
    "cluster_operations",
    "cluster_transactions",
    "config_params",
    "config_values",
    "counters",
    "cpustat",
    "cpustat_1sec",
    "cpustat_20sec",
    "cpustat_50ms",
    "dict_obj_info",
    "dict_obj_types",
    "disk_write_speed_aggregate",
    "disk_write_speed_aggregate_node",
    "disk_write_speed_base",
    "diskpagebuffer",
    "locks_per_fragment",
    "logbuffers",
    "logspaces",
    "membership",
    "memory_per_fragment",
    "memoryusage",
    "nodes",
    "operations_per_fragment",
    "resources",
    "restart_info",
    "server_locks",
    "server_operations",
    "server_transactions",
    "table_distribution_status",
    "table_fragments",
    "table_info",
    "table_replicas",
    "tc_time_track_stats",
    "threadblocks",
    "threads",
    "threadstat",
    "transporters",
]
_VIEWS_7_6 = sorted([*_VIEWS_7_5, "config_nodes", "error_messages", "processes"])

# View SQL that differs in 7.x (facts from the 2017/2018 ndbinfo_sql.cpp copies; every other
# 7.x view has the same SQL as 8.0).
_MEMORYUSAGE_7_5 = (
    "SELECT node_id,  pool_name AS memory_type,  SUM(used*entry_size) AS used,  "
    "SUM(used) AS used_pages,  SUM(total*entry_size) AS total,  SUM(total) AS total_pages "
    "FROM `ndbinfo`.`ndb$pools` WHERE ( block_number IN (248, 254) AND  "
    '(pool_name = "Index memory" OR pool_name = "Data memory") ) OR '
    'pool_name = "Long message buffer" GROUP BY node_id, memory_type'
)
_LOGBUFFERS_7_5 = (
    'SELECT node_id,  CASE log_type  WHEN 0 THEN "REDO"  WHEN 1 THEN "DD-UNDO"  '
    'ELSE "<unknown>"  END AS log_type, log_id, log_part, total, used '
    "FROM `ndbinfo`.`ndb$logbuffers`"
)
# 7.x labels of the DIH add-table states (renamed COORDINATOR/PARTICIPANT in 8.0).
_DIH_LABELS_7X = {
    '"ADD_TABLE_COORDINATOR"': '"ADD_TABLE_MASTER"',
    '"ADD_TABLE_PARTICIPANT"': '"ADD_TABLE_SLAVE"',
}
# Column types that follow from those SQL differences (longest CASE literal).
_VIEW_TYPES_7X = {
    ("table_distribution_status", "tab_copy_status"): "VARCHAR(20)",  # SR_PHASE1_READ_PAGES
}
_VIEW_TYPES_7_5 = {("logbuffers", "log_type"): "VARCHAR(9)"}  # <unknown>


# --- building ----------------------------------------------------------------------------------

_TYPE_RE = re.compile(r"^(?P<type>.*?)(?P<notnull> NOT NULL)?(?P<pk> PRIMARY KEY)?$")


def _parse_type(text: str) -> tuple[str, bool, str]:
    """'INT UNSIGNED NOT NULL PRIMARY KEY' -> ('INT UNSIGNED', nullable=False, key='PRI')."""
    text = text.replace("(inferred)", "").strip()
    m = _TYPE_RE.match(text)
    assert m is not None
    return m["type"].strip(), not (m["notnull"] or m["pk"]), "PRI" if m["pk"] else ""


def _latin1_if_string(typ: str) -> str | None:
    """ndbinfo tables are created with CHARACTER SET latin1."""
    return "latin1" if typ.upper().startswith(("VARCHAR", "ENUM", "SET")) else None


def _base_table(name: str, spec: dict, version: NdbVersion) -> TableDef:
    columns = tuple(
        Column(col, _parse_type(typ)[0], True, charset=_latin1_if_string(typ))
        for col, typ, _ in spec["columns"]
        if _COLUMN_SINCE.get((name, col), lambda v: True)(version)
    )
    return TableDef(
        name=name,
        kind="base",
        columns=columns,
        hidden=True,
        needs_data_nodes=True,
        sql=None,
        table_id=spec["table_id"],
        comment=spec.get("comment", "").replace(" (paraphrased)", ""),
    )


def _lookup_table(name: str, spec: dict, version: NdbVersion) -> TableDef:
    columns = []
    for col, typ, _ in spec["columns"]:
        mysql_type, nullable, key = _parse_type(typ)
        if version.is_7x:
            # 7.x created lookups from plain column lists: nullable, no keys
            nullable, key = True, ""
        columns.append(Column(col, mysql_type, nullable, key, _latin1_if_string(typ)))
    return TableDef(
        name=name,
        kind="lookup",
        columns=tuple(columns),
        hidden=spec.get("hidden", name.startswith(PREFIX)),
        needs_data_nodes=spec.get("needs_data_nodes", False),
        sql=None,
        table_id=None,
    )


def _view(name: str, spec: dict, version: NdbVersion) -> TableDef:
    sql = spec["sql"]
    columns = [
        Column(c["name"], c["type"], c["nullable"], charset=c["charset"])
        for c in spec["column_details"]
    ]
    if version.is_7x:
        if name == "table_distribution_status":
            for new, old in _DIH_LABELS_7X.items():
                sql = sql.replace(new, old)
        if version.series == "7.5.4" and name == "memoryusage":
            sql = _MEMORYUSAGE_7_5
        if version.series == "7.5.4" and name == "logbuffers":
            sql = _LOGBUFFERS_7_5
        overrides = dict(_VIEW_TYPES_7X)
        if version.series == "7.5.4":
            overrides.update(_VIEW_TYPES_7_5)
        # the 7.x install script ran under SET NAMES latin1, so computed strings are latin1
        columns = [
            Column(
                c.name,
                overrides.get((name, c.name), c.mysql_type),
                c.nullable,
                charset=c.charset and "latin1",
            )
            for c in columns
        ]
    return TableDef(
        name=name,
        kind="view",
        columns=tuple(columns),
        hidden=False,
        needs_data_nodes=True,  # settled in _settle_needs_data_nodes
        sql=sql.strip(),
        table_id=None,
    )


@cache  # parsed once per process: every engine and SQL node of a version asks again
def referenced_tables(sql: str) -> frozenset[tuple[str, str]]:
    """(schema, table) pairs a view reads, CTE names excluded; schema '' when unqualified."""
    tree = sqlglot.parse_one(sql, read="mysql")
    ctes = {cte.alias_or_name for cte in tree.find_all(exp.CTE)}
    return frozenset(
        (t.db.lower(), t.name) for t in tree.find_all(exp.Table) if t.name not in ctes or t.db
    )


def _settle_needs_data_nodes(catalog: Catalog) -> Catalog:
    """A view needs the data nodes when a table under it (Catalog.reads) does."""
    objects = catalog.objects

    def needs(view: str) -> bool:
        return any(
            objects[name].needs_data_nodes
            for name in catalog.reads(view)
            if objects[name].kind != "view"
        )

    settled = {
        name: obj if obj.kind != "view" else replace(obj, needs_data_nodes=needs(name))
        for name, obj in objects.items()
    }
    # what lies under each object does not change with the flag: its reads are kept
    return Catalog(catalog.version, settled, _reads=catalog._reads)


@cache
def catalog_for(version: NdbVersion) -> Catalog:
    schema = load_json("schema-8.0.json")
    objects: dict[str, TableDef] = {}

    for name, spec in schema["base_tables"].items():
        if spec["table_id"] in _BASE_IDS[version.series]:
            objects[name] = _base_table(name, spec, version)
    if version.at_least(9, 0):
        for name, added in _COLUMNS_9X.items():
            table = objects[name]
            extra = tuple(Column(col, typ, True) for col, typ in added)
            objects[name] = TableDef(**{**table.__dict__, "columns": table.columns + extra})

    early_80 = (8, 0) <= version.ndb < _BEFORE_TRANSPORTER_DETAILS
    early = schema["version_variants"]["8.0.3x (e.g. 8.0.30-8.0.36)"] if early_80 else {}
    lookup_names = _LOOKUPS.get(version.series, tuple(schema["lookup_tables"]))
    for name in lookup_names:
        spec = schema["lookup_tables"][name]
        absent = early.get("lookup_columns_absent", {}).get(name, ())
        spec = {**spec, "columns": [c for c in spec["columns"] if c[0] not in absent]}
        objects[name] = _lookup_table(name, spec, version)

    views = dict(schema["views"])
    if version.at_least(8, 3):
        tls = schema["version_variants"]["8.4 / 9.x"]
        views.update(tls["views_added"])
        # transporters gains `encrypted`; the transporter_details change of that section
        # (heartbeat_interval, last_recv) is 9.x only, so 8.4 keeps the 8.0.4x definition.
        views["transporters"] = tls["views_changed"]["transporters"]
    if version.at_least(9, 0):
        views["transporter_details"] = tls["views_changed"]["transporter_details"]
    for name in early.get("views_absent", ()):
        views.pop(name)
    for lookup, absent in early.get("lookup_columns_absent", {}).items():
        # a view that selects * from the lookup table lacks its columns too
        for name, spec in views.items():
            if spec["sql"].strip().upper().startswith("SELECT *") and lookup in spec["sql"]:
                kept = [c for c in spec["column_details"] if c["name"] not in absent]
                views[name] = {**spec, "column_details": kept}
    if version.is_rondb:
        rondb = json.loads(RONDB_NDBINFO.read_text())
        for name, spec in rondb["base_tables"].items():
            objects[name] = _base_table(name, spec, version)
        views.update(rondb["views"])
    if version.series == "7.5.4":
        views = {n: views[n] for n in _VIEWS_7_5}
    elif version.series == "7.6":
        views = {n: views[n] for n in _VIEWS_7_6}
    for name, spec in views.items():
        objects[name] = _view(name, spec, version)

    return _settle_needs_data_nodes(Catalog(version=version, objects=objects))
