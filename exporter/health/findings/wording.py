"""How the findings write numbers and lists."""

from __future__ import annotations

NAMES_SHOWN = 20  # the longest list of tables or links a finding spells out


def percent(value: float | None) -> str:
    return "n/a" if value is None else f"{value * 100:.1f} %"


def count(value: float | None) -> str:
    return "n/a" if value is None else f"{value:,.0f}"


def gcis(value: int) -> str:
    """1 GCI / 31 GCIs"""
    return f"{value:,} GCI" if value == 1 else f"{value:,} GCIs"


def joined(items: list) -> str:
    """1 / 1 and 2 / 1, 2 and 3"""
    words = [str(item) for item in items]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def named_nodes(kind: str, ids: list[int]) -> str:
    """data node 2 / data nodes 1 and 2: an id never reads like a count."""
    return f"{kind}{'s' if len(ids) > 1 else ''} {joined(ids)}"
