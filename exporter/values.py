"""How the values a SQL node answers are read: numbers (ndbinfo's ints, Decimals and text),
text, and the version @@version starts with. The collectors and the view read rows alike."""

from __future__ import annotations

import re
from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from typing import Any

Row = Mapping[str, Any]
Version = tuple[int, int, int]

_LEADING_VERSION = re.compile(r"^(\d+)\.(\d+)\.(\d+)")


def leading_version(text: str) -> Version | None:
    """The version @@version starts with: (5, 7, 16) from "5.7.16-ndb-7.5.4-cluster-gpl"."""
    match = _LEADING_VERSION.match(text)
    return (int(match[1]), int(match[2]), int(match[3])) if match else None


def version_text(version: Version) -> str:
    """(8, 4, 3) -> "8.4.3"."""
    return ".".join(str(part) for part in version)


class BadValue(ValueError):
    """A column that should hold a number holds something else: the row is skipped."""


def number(value: Any) -> float | None:
    """ndbinfo numbers arrive as int, Decimal (SUM over BIGINT UNSIGNED) or text. None (SQL
    NULL) stays None and means "no sample", never 0; anything else raises BadValue."""
    if value is None or value == "":
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, Decimal):
        return float(value)
    try:
        if isinstance(value, (bytes, bytearray)):
            value = value.decode()
        return float(Decimal(str(value).strip()))
    except (InvalidOperation, ValueError) as exc:
        raise BadValue(f"not a number: {str(value)[:40]!r}") from exc


def text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, (bytes, bytearray)):
        return value.decode("utf-8", "replace")
    return str(value)
