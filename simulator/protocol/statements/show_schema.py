"""SHOW statements about databases and their tables: DATABASES, TABLES, COLUMNS, INDEX,
TABLE STATUS, CREATE TABLE/VIEW/DATABASE."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ndbsim.engine import infoschema
from ndbsim.engine.catalog import SCHEMA
from ndbsim.engine.mysqltypes import parse_type
from ndbsim.protocol import privileges
from ndbsim.protocol.sqltext import NAME, literal, split_name, unquote
from ndbsim.protocol.statements.listing import listing
from ndbsim.protocol.statements.lookup import known_database, shown_database, table_def
from ndbsim.protocol.statements.registry import Statement, statement
from ndbsim.protocol.statements.results import WireResult, plain

if TYPE_CHECKING:
    from ndbsim.protocol.session import SessionState

FILTER = r"(?: (?P<filter>(?:LIKE|WHERE) .+))?"
_IN_DB = rf"(?: (?:FROM|IN) (?P<db>{NAME}))?"


def _of_table(words: str, tail: str = FILTER) -> re.Pattern:
    """SHOW <words> {FROM|IN} table [{FROM|IN} db] <tail>."""
    return re.compile(rf"(?i)^SHOW {words} (?:FROM|IN) (?P<table>{NAME}){_IN_DB}{tail}$")


_TABLE_STATUS_COLUMNS = [
    "Name", "Engine", "Version", "Row_format", "Rows", "Avg_row_length", "Data_length",
    "Max_data_length", "Index_length", "Data_free", "Auto_increment", "Create_time",
    "Update_time", "Check_time", "Collation", "Checksum", "Create_options", "Comment",
]  # fmt: skip
_INDEX_COLUMNS = [
    "Table", "Non_unique", "Key_name", "Seq_in_index", "Column_name", "Collation",
    "Cardinality", "Sub_part", "Packed", "Null", "Index_type", "Comment", "Index_comment",
]  # fmt: skip


@statement("show", pattern=re.compile(rf"(?i)^SHOW (?:DATABASES|SCHEMAS){FILTER}$"))
async def _databases(s: Statement) -> WireResult:
    rows = [(name,) for name in privileges.visible_databases(s.session, infoschema.DATABASES)]
    return listing(s.session, ["Database"], rows, s.match["filter"], "Database")


@statement("show", pattern=re.compile(rf"(?i)^SHOW (?P<full>FULL )?TABLES{_IN_DB}{FILTER}$"))
async def _tables(s: Statement) -> WireResult:
    session, filt = s.session, s.match["filter"]
    database = shown_database(session, s.match["db"])
    privileges.require_database(session, database)
    if database == SCHEMA:
        objs = session.node.catalog.listed(session.show_hidden())
        objs = [o for o in objs if privileges.visible_table(session, database, o.name)]
        rows = [(o.name, "VIEW" if o.kind == "view" else "BASE TABLE") for o in objs]
    else:
        names = infoschema.system_tables(database, session.node.version)
        kind = "SYSTEM VIEW" if database.lower() == "information_schema" else "BASE TABLE"
        rows = [(name, kind) for name in sorted(names)]
    column = f"Tables_in_{database}"
    header = [column]
    if filt and filt.upper().startswith("LIKE"):
        header = [f"{column} ({literal(filt[4:].strip())})"]
    if s.match["full"]:
        header.append("Table_type")
    else:
        rows = [r[:1] for r in rows]
    return listing(session, header, rows, filt, column)


@statement("show", pattern=_of_table(r"(?P<full>FULL )?(?:COLUMNS|FIELDS)"))
async def _columns(s: Statement) -> WireResult:
    table, db = split_name(s.match["table"])
    database = s.match["db"] and unquote(s.match["db"]) or db
    return show_columns(s.session, database, table, bool(s.match["full"]), s.match["filter"])


def show_columns(
    session: SessionState, database: str | None, table: str, full: bool, filt: str | None
) -> WireResult:
    obj = table_def(session, database, table)
    mysql57 = session.node.version.is_7x
    rows = []
    for c in obj.columns:
        t = parse_type(c.mysql_type)
        collation = {"latin1": "latin1_swedish_ci", "utf8mb4": "utf8mb4_0900_ai_ci"}.get(
            c.charset or "", "utf8mb3_general_ci" if c.charset else None
        )
        base = [c.name, t.column_type(mysql57)]
        rest = ["YES" if c.nullable else "NO", c.key, None, ""]
        if full:
            rows.append((*base, collation, *rest, "select", ""))
        else:
            rows.append((*base, *rest))
    header = ["Field", "Type", "Null", "Key", "Default", "Extra"]
    if full:
        header = ["Field", "Type", "Collation", "Null", "Key", "Default", "Extra", "Privileges",
                  "Comment"]  # fmt: skip
    return listing(session, header, rows, filt, "Field")


@statement("show", pattern=re.compile(rf"(?i)^SHOW CREATE (?:TABLE|VIEW) (?P<table>{NAME})$"))
async def _create_table(s: Statement) -> WireResult:
    table, db = split_name(s.match["table"])
    obj = table_def(s.session, db or s.session.database, table)
    if obj.kind == "view":
        text = (
            f"CREATE ALGORITHM=UNDEFINED DEFINER=`root`@`localhost` SQL SECURITY INVOKER "
            f"VIEW `{obj.name}` AS {obj.sql}"
        )
        return plain(
            ["View", "Create View", "character_set_client", "collation_connection"],
            [(obj.name, text, "latin1", "latin1_swedish_ci")],
        )
    cols = ",\n".join(
        f"  `{c.name}` {parse_type(c.mysql_type).column_type(s.session.node.version.is_7x)}"
        + ("" if c.nullable else " NOT NULL")
        for c in obj.columns
    )
    keys = [c.name for c in obj.columns if c.key == "PRI"]
    if keys:
        cols += ",\n  PRIMARY KEY (" + ", ".join(f"`{k}`" for k in keys) + ")"
    comment = f" COMMENT='{obj.comment}'" if obj.comment else ""
    text = f"CREATE TABLE `{obj.name}` (\n{cols}\n) ENGINE=NDBINFO DEFAULT CHARSET=latin1{comment}"
    return plain(["Table", "Create Table"], [(obj.name, text)])


@statement("show", pattern=_of_table(r"(?:EXTENDED )?(?:INDEX|INDEXES|KEYS)", r"(?: WHERE .+)?"))
async def _index(s: Statement) -> WireResult:
    table, db = split_name(s.match["table"])
    obj = table_def(s.session, s.match["db"] and unquote(s.match["db"]) or db, table)
    header = list(_INDEX_COLUMNS)
    if not s.session.node.version.is_7x:
        header += ["Visible", "Expression"]
    rows = []
    for r in infoschema.index_rows([obj]):
        row = (obj.name, r[3], r[5], r[6], r[7], r[8], r[9], r[10], r[11], "",
               r[13], r[14], r[15], r[16], r[17])  # fmt: skip
        rows.append(row[: len(header)])
    return plain(header, rows)


@statement("show", pattern=re.compile(rf"(?i)^SHOW TABLE STATUS{_IN_DB}{FILTER}$"))
async def _table_status(s: Statement) -> WireResult:
    session = s.session
    database = shown_database(session, s.match["db"])
    rows = []
    if database == SCHEMA:
        for o in session.node.catalog.listed(session.show_hidden()):
            if o.kind == "view":
                rows.append((o.name, *([None] * 16), "VIEW"))
            else:
                rows.append((o.name, "NDBINFO", 10, "Dynamic", 0, 0, 0, 0, 0, 0, None, None,
                             None, None, "latin1_swedish_ci", None, "", o.comment))  # fmt: skip
    return listing(session, _TABLE_STATUS_COLUMNS, rows, s.match["filter"], "Name")


@statement(
    "show",
    pattern=re.compile(rf"(?i)^SHOW CREATE (?:DATABASE|SCHEMA) (?:IF NOT EXISTS )?(?P<db>{NAME})$"),
)
async def _create_database(s: Statement) -> WireResult:
    version = s.session.node.version
    database = unquote(s.match["db"])
    known_database(database)
    charset = "latin1" if version.is_7x else "utf8mb4 COLLATE utf8mb4_0900_ai_ci"
    tail = "" if version.is_7x else " /*!80016 DEFAULT ENCRYPTION='N' */"
    return plain(
        ["Database", "Create Database"],
        [(database, f"CREATE DATABASE `{database}` /*!40100 DEFAULT CHARACTER SET "
          f"{charset} */{tail}")],
    )  # fmt: skip
