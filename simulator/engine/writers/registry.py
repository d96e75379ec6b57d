"""The table of the writers of engine/writers, filled by their decorators."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ndbsim.model.cluster import Cluster

# what a per-fragment table may follow: the node states, the LCP, the LCP marks, the master
FOLLOWS = ("state", "lcp", "marks", "master")


@dataclass(frozen=True)
class Select:
    """Column expressions over a FROM clause of the tables of schema `sim`."""

    columns: dict[str, str]
    source: str

    def select_list(self, names: list[str]) -> str:
        return ", ".join(f'{self.columns[name]} AS "{name}"' for name in names)


@dataclass(frozen=True)
class FragmentTable:
    follows: tuple[str, ...]
    select: Callable[[Cluster, int, tuple[bool, float]], Select]  # (cluster, master, LCP)


FRAGMENT_TABLES: dict[str, FragmentTable] = {}
FRAGMENT_VIEWS: dict[str, Callable[[Cluster], Select]] = {}
WRITTEN_ONCE: dict[str, Callable[[Cluster], list[dict]]] = {}


def fragment_table(name: str, follows: tuple[str, ...]):
    """Register the Select that fills table `name` (given the master node and the LCP view),
    rewritten whenever one of `follows` (of FOLLOWS) changes."""
    assert set(follows) <= set(FOLLOWS), follows

    def register(select: Callable[[Cluster, int, tuple[bool, float]], Select]):
        FRAGMENT_TABLES[name] = FragmentTable(follows, select)
        return select

    return register


def fragment_view(name: str):
    """Register the Select that table `name` becomes a view of."""

    def register(select: Callable[[Cluster], Select]):
        FRAGMENT_VIEWS[name] = select
        return select

    return register


def written_once(name: str):
    """Register the rows (dicts by column name) table `name` gets as the model starts."""

    def register(rows: Callable[[Cluster], list[dict]]):
        WRITTEN_ONCE[name] = rows
        return rows

    return register
