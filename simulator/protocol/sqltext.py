"""Statement text as mysqld's lexer sees it: what lies outside quotes and comments."""

from __future__ import annotations

from collections.abc import Iterator


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
