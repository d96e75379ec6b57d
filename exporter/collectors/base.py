"""What a collector declares, and what it is handed when it runs.

A collector module defines one ``COLLECTOR = Collector(...)``: its name, one-line help,
whether it is on by default, the ndbinfo objects and columns its SQL reads with the
minimum NDB version, the SQL itself (one statement: at most one query per collector
per scrape) and a ``collect`` function that turns the fetched rows into metric families.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from prometheus_client.core import Metric

Row = Mapping[str, Any]
Version = tuple[int, int, int]


@dataclass(frozen=True)
class Option:
    """A collector-specific flag, exposed as ``--collector.<collector>.<name>``."""

    name: str
    help: str
    default: Any
    type: Callable[[str], Any] = str


@dataclass(frozen=True)
class TargetInfo:
    """What the exporter learned about a SQL node once per connection."""

    version: str  # @@version, e.g. "8.4.3-cluster" or "5.7.16-ndb-7.5.4-cluster-gpl"
    ndb_version: Version  # e.g. (8, 4, 3)
    objects: frozenset[str]  # ndbinfo tables and views present, e.g. {"nodes", "ndb$nodes", ...}


@dataclass(frozen=True)
class Context:
    target: TargetInfo
    options: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Collector:
    name: str
    help: str
    default_enabled: bool
    # ndbinfo object -> columns the SQL reads; empty for SHOW STATUS style collectors.
    reads: Mapping[str, tuple[str, ...]]
    min_version: Version
    sql: str
    collect: Callable[[list[Row], Context], Iterable[Metric]]
    # Values for %s placeholders in ``sql``, computed from the collector's options.
    params: Callable[[Context], tuple[Any, ...]] | None = None
    options: tuple[Option, ...] = ()

    def available(self, target: TargetInfo) -> bool:
        """True when the target has every object this collector reads, at a high enough version."""
        return target.ndb_version >= self.min_version and all(
            obj in target.objects for obj in self.reads
        )


def number(value: Any) -> float | None:
    """ndbinfo numbers arrive as int, Decimal (SUM over BIGINT UNSIGNED) or text; None stays None."""
    if value is None or value == "":
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, (bytes, bytearray)):
        value = value.decode()
    return float(Decimal(str(value).strip()))


def text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, (bytes, bytearray)):
        return value.decode("utf-8", "replace")
    return str(value)
