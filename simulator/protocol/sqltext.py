"""Statement text as mysqld's lexer sees it (what lies outside quotes and comments), and its
placeholders bound to values."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from decimal import Decimal
from typing import Any


def _outside_quotes(sql: str) -> Iterator[tuple[int, str]]:
    """(offset, character) of every character outside quoted text and comments."""
    i, n = 0, len(sql)
    while i < n:
        c = sql[i]
        if c in "'\"`":
            i += 1
            while i < n and sql[i] != c:
                i += 2 if sql[i] == "\\" and c != "`" else 1
        elif c == "#" or (c == "-" and sql.startswith("-- ", i)):
            end = sql.find("\n", i)
            i = n if end < 0 else end
        elif c == "/" and sql.startswith("/*", i) and not sql.startswith("/*!", i):
            end = sql.find("*/", i + 2)
            i = n if end < 0 else end + 1
        else:
            yield i, c
        i += 1


def placeholders(sql: str) -> list[int]:
    """Offsets of the `?` placeholders of a statement to prepare."""
    return [i for i, c in _outside_quotes(sql) if c == "?"]


def sql_literal(value: Any) -> str:
    """A parameter's value as a literal of the statement text."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return str(int(value))  # MySQL's TRUE is 1
    if isinstance(value, (int, Decimal)):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, (dt.date, dt.timedelta)):
        return f"'{value}'"
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    escaped = str(value).replace("\\", "\\\\").replace("'", "\\'").replace("\x00", "\\0")
    return f"'{escaped}'"


def bind(sql: str, offsets: list[int], values: list[Any]) -> str:
    """The statement text with the placeholder at each offset replaced by its value."""
    parts, last = [], 0
    for offset, value in zip(offsets, values, strict=True):
        parts.append(sql[last:offset])
        parts.append(sql_literal(value))
        last = offset + 1
    parts.append(sql[last:])
    return "".join(parts)


def nesting_depth(sql: str) -> int:
    """The deepest parenthesis nesting of a statement."""
    depth = deepest = 0
    for _, c in _outside_quotes(sql):
        if c == "(":
            depth += 1
            deepest = max(deepest, depth)
        elif c == ")":
            depth -= 1
    return deepest
