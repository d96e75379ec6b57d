"""Statement text as mysqld's lexer sees it (what lies outside quotes and comments, its first
word, versioned comments, names and literals), its placeholders bound to values, and mysqld's
syntax error."""

from __future__ import annotations

import datetime as dt
import re
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


NAME = r"(?:`[^`]+`|[\w$]+)(?:\.(?:`[^`]+`|[\w$]+))?"
_WORD = re.compile(r"^\s*(?:/\*.*?\*/\s*|--[^\n]*\n\s*|#[^\n]*\n\s*)*\(*\s*(\w+)", re.S)
_VERSIONED = re.compile(r"/\*!(\d{5,6})?(.*?)\*/", re.S)
_HINTS = re.compile(r"/\*\+.*?\*/", re.S)


def versioned_comments(sql: str, server: int) -> str:
    """mysqld runs the text of /*!NNNNN ... */ when its version is at least NNNNN (and of
    /*! ... */ always); optimizer hints /*+ ... */ change nothing here."""
    sql = _HINTS.sub(" ", sql)
    return _VERSIONED.sub(
        lambda m: f" {m[2]} " if m[1] is None or int(m[1]) <= server else " ", sql
    )


def first_keyword(sql: str) -> str:
    m = _WORD.match(sql)
    return m.group(1).lower() if m else ""


def words(sql: str) -> str:
    """The statement with its whitespace collapsed and its trailing semicolons dropped."""
    return " ".join(sql.strip().rstrip(";").split())


def unquote(name: str) -> str:
    return name[1:-1] if name.startswith("`") and name.endswith("`") else name


def split_name(text: str) -> tuple[str, str | None]:
    """'db.table' / '`db`.`table`' / 'table' -> (table, db)."""
    m = re.match(r"^(`[^`]+`|[\w$]+)(?:\.(`[^`]+`|[\w$]+))?$", text)
    if not m:
        return unquote(text), None
    if m.group(2):
        return unquote(m.group(2)), unquote(m.group(1))
    return unquote(m.group(1)), None


def literal(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    return text


def string_literal(text: str) -> str | None:
    """The value of a quoted SQL string ('...' or "..."), None if it is not one."""
    text = text.strip()
    if len(text) < 2 or text[0] not in "'\"" or text[-1] != text[0]:
        return None
    q = text[0]
    body = text[1:-1].replace(q + q, q)
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t", "0": "\0"}.get(m[1], m[1]), body)


def like_regex(pattern: str) -> re.Pattern:
    out = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\" and i + 1 < len(pattern):
            out.append(re.escape(pattern[i + 1]))
            i += 2
            continue
        out.append(".*" if ch == "%" else "." if ch == "_" else re.escape(ch))
        i += 1
    return re.compile("^" + "".join(out) + "$", re.I | re.S)


def syntax_near(sql: str) -> str:
    near = sql.strip().rstrip(";")[:80]
    return (
        "You have an error in your SQL syntax; check the manual that corresponds to your MySQL "
        f"server version for the right syntax to use near '{near}' at line 1"
    )
