"""The words of MySQL's replication statements, which mysqld 8.0.22 renamed (SHOW REPLICA
STATUS for SHOW SLAVE STATUS, SHOW REPLICAS for SHOW SLAVE HOSTS, Source_ and Replica_ for
Master_ and Slave_ in their columns); mysqld 5.7 (NDB 7.5, 7.6) knows only the old ones and
8.4 only the new. A collector of such a statement sends the form of the target's version and
reads a column under either name."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .base import Row, TargetInfo

REPLICA_WORDS_FROM = (8, 0, 22)


def by_version(new: str, old: str) -> Callable[[TargetInfo], str]:
    """The ``sql`` of a collector: ``new`` from mysqld 8.0.22, ``old`` before."""

    def sql(target: TargetInfo) -> str:
        return new if target.server_version >= REPLICA_WORDS_FROM else old

    return sql


def column_value(row: Row, column: str, old_names: Mapping[str, str]) -> Any:
    """The row's ``column`` (its new name), or its old name in ``old_names`` when the row has
    the old form's columns."""
    return row[column] if column in row else row[old_names[column]]
