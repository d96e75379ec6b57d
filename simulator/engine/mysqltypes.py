"""MySQL column types of the catalog: DuckDB storage type, wire type and information_schema view."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from mysql_mimic.charset import CharacterSet
from mysql_mimic.results import ResultColumn
from mysql_mimic.types import ColumnDefinition, ColumnType

_TYPE_RE = re.compile(r"^(?P<base>[A-Z]+)(?:\((?P<args>.*)\))?(?P<unsigned> UNSIGNED)?$")

# bytes per character of the charsets used by ndbinfo columns
CHARSET_MAXLEN = {"latin1": 1, "utf8mb3": 3, "utf8mb4": 4, "binary": 1}
COLLATIONS = {
    "latin1": "latin1_swedish_ci",
    "utf8mb3": "utf8mb3_general_ci",
    "utf8mb4": "utf8mb4_0900_ai_ci",
    "binary": "binary",
}
# MySQL protocol collation ids
COLLATION_IDS = {"latin1": 8, "utf8mb3": 33, "utf8mb4": 255, "binary": 63}
# display widths a 5.7 server prints in COLUMN_TYPE ("int(10) unsigned")
_DISPLAY_WIDTH_57 = {
    ("INT", True): 10,
    ("INT", False): 11,
    ("BIGINT", True): 20,
    ("BIGINT", False): 20,
}


@dataclass(frozen=True)
class MysqlType:
    base: str  # INT, BIGINT, VARCHAR, DECIMAL, ENUM, SET, LONGBLOB
    args: str  # "512", "62,0", "'a','b'"
    unsigned: bool

    @property
    def is_string(self) -> bool:
        return self.base in ("VARCHAR", "CHAR", "ENUM", "SET", "TEXT")

    @property
    def length(self) -> int | None:
        if self.base in ("VARCHAR", "CHAR"):
            return int(self.args)
        if self.base in ("ENUM", "SET"):
            values = [v.strip("'") for v in self.args.split("','")]
            if self.base == "SET":
                return sum(len(v) for v in values) + len(values) - 1
            return max(len(v) for v in values)
        return None

    @property
    def precision_scale(self) -> tuple[int, int] | None:
        if self.base == "DECIMAL":
            p, s = (self.args.split(",") + ["0"])[:2]
            return int(p), int(s)
        if self.base == "INT":
            return 10, 0
        if self.base == "BIGINT":
            return (20 if self.unsigned else 19), 0
        return None

    def duckdb(self) -> str:
        """Storage type; every integer is 64-bit so arithmetic behaves like MySQL's."""
        if self.base in ("INT", "BIGINT"):
            return "UBIGINT" if self.unsigned else "BIGINT"
        if self.base == "DECIMAL":
            p, s = self.precision_scale or (38, 0)
            if p <= 38:
                return f"DECIMAL({p},{s})"
            return "HUGEINT" if s == 0 else "DOUBLE"
        if self.base == "LONGBLOB":
            return "BLOB"
        if self.base == "DATETIME":
            return "TIMESTAMP"
        return "VARCHAR"

    def column_type(self, mysql57: bool) -> str:
        """information_schema.COLUMNS.COLUMN_TYPE / SHOW COLUMNS Type."""
        base = self.base.lower()
        width = _DISPLAY_WIDTH_57.get((self.base, self.unsigned)) if mysql57 else None
        if width:
            text = f"{base}({width})"
        elif self.args:
            text = f"{base}({self.args})"
        else:
            text = base
        return text + (" unsigned" if self.unsigned else "")

    def wire(self) -> tuple[ColumnType, ColumnDefinition, int, int]:
        """(type, flags, display length, decimals) for the result set column definition."""
        flags = ColumnDefinition(0)
        if self.unsigned:
            flags |= ColumnDefinition.UNSIGNED_FLAG
        if self.base == "INT":
            return ColumnType.LONG, flags, 10, 0
        if self.base == "BIGINT":
            return ColumnType.LONGLONG, flags, 20, 0
        if self.base == "DECIMAL":
            p, s = self.precision_scale or (65, 0)
            return ColumnType.NEWDECIMAL, flags, p + (1 if s else 0) + 1, s
        if self.base == "LONGBLOB":
            return ColumnType.BLOB, flags | ColumnDefinition.BINARY_FLAG, 2**32 - 1, 0
        if self.base in ("ENUM", "SET"):
            return ColumnType.STRING, flags, self.length or 0, 0
        if self.base == "DATETIME":
            return ColumnType.DATETIME, flags, 19, 0
        return ColumnType.VAR_STRING, flags, self.length or 0, 0


@cache
def parse_type(text: str) -> MysqlType:
    m = _TYPE_RE.match(text.strip().upper() if "'" not in text else _upper_outside_quotes(text))
    if not m:
        raise ValueError(f"unknown MySQL type {text!r}")
    args = m["args"] or ""
    if m["base"] in ("ENUM", "SET"):
        args = _original_args(text)
    return MysqlType(m["base"], args, bool(m["unsigned"]))


def _upper_outside_quotes(text: str) -> str:
    head, _, rest = text.partition("(")
    return head.upper() + "(" + rest


def _original_args(text: str) -> str:
    return text[text.index("(") + 1 : text.rindex(")")]


_DUCK_WIRE = {
    "UBIGINT": (ColumnType.LONGLONG, True),
    "UINTEGER": (ColumnType.LONGLONG, True),
    "USMALLINT": (ColumnType.LONGLONG, True),
    "UTINYINT": (ColumnType.LONGLONG, True),
    "BIGINT": (ColumnType.LONGLONG, False),
    "INTEGER": (ColumnType.LONGLONG, False),
    "SMALLINT": (ColumnType.LONGLONG, False),
    "TINYINT": (ColumnType.LONGLONG, False),
    "BOOLEAN": (ColumnType.LONGLONG, False),
    "HUGEINT": (ColumnType.NEWDECIMAL, False),
    "UHUGEINT": (ColumnType.NEWDECIMAL, True),
    "DOUBLE": (ColumnType.DOUBLE, False),
    "FLOAT": (ColumnType.DOUBLE, False),
    "DATE": (ColumnType.DATE, False),
    "TIMESTAMP": (ColumnType.DATETIME, False),
    "TIMESTAMP WITH TIME ZONE": (ColumnType.DATETIME, False),
    "BLOB": (ColumnType.BLOB, False),
    '"NULL"': (ColumnType.NULL, False),
}


def wire_from_duckdb(duck_type: str) -> tuple[ColumnType, ColumnDefinition, int, int]:
    """Wire type of a computed result column, from the DuckDB result type."""
    if duck_type.startswith("DECIMAL"):
        p, s = (int(x) for x in duck_type[8:-1].split(","))
        return ColumnType.NEWDECIMAL, ColumnDefinition(0), p + (1 if s else 0) + 1, s
    col_type, unsigned = _DUCK_WIRE.get(duck_type, (ColumnType.VAR_STRING, False))
    flags = ColumnDefinition.UNSIGNED_FLAG if unsigned else ColumnDefinition(0)
    lengths = {
        ColumnType.LONGLONG: 21,
        ColumnType.NEWDECIMAL: 41,
        ColumnType.DOUBLE: 23,
        ColumnType.DATETIME: 19,
        ColumnType.DATE: 10,
    }
    return col_type, flags, lengths.get(col_type, 512), 31 if col_type == ColumnType.DOUBLE else 0


@dataclass(frozen=True)
class WireColumn:
    """A result column with its full MySQL column definition."""

    name: str
    col_type: ColumnType
    flags: ColumnDefinition
    length: int
    decimals: int

    @property
    def is_text(self) -> bool:
        return self.col_type in (ColumnType.VAR_STRING, ColumnType.STRING)

    @property
    def charset(self) -> CharacterSet:
        """Charset announced in the column definition (binary for numbers)."""
        return CharacterSet.utf8mb4 if self.is_text else CharacterSet.binary

    def result_column(self) -> ResultColumn:
        return ResultColumn(self.name, self.col_type, CharacterSet.utf8mb4)

    @property
    def display_length(self) -> int:
        return self.length * 4 if self.is_text else self.length
