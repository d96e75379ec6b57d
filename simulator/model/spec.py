"""What a simulated cluster is made of: ``ClusterSpec``, each setting declared once with its
default and its range. ndbsim's command line is generated from it (the settings with a
``help`` text become options), and ``validate`` checks the same ranges for every other
caller."""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields
from typing import Any

from ndbsim.model.topology import MAX_DATA_NODES

SYSTEM_NAME = "MC_20240115093012"


@dataclass(frozen=True)
class Bounds:
    """The values a setting takes: ``low``..``high``, ``low`` itself left out when
    ``low_open``."""

    low: float
    high: float = math.inf
    low_open: bool = False

    def __contains__(self, value: float) -> bool:
        above = value > self.low if self.low_open else value >= self.low
        return above and value <= self.high

    def __str__(self) -> str:
        if self.high == math.inf:
            return f">= {self.low:g}"
        if self.low_open:
            return f"> {self.low:g} and <= {self.high:g}"
        return f"{self.low:g}..{self.high:g}"


@dataclass(frozen=True)
class Setting:
    """A setting's range and, for one the command line offers, what it is (its help)."""

    bounds: Bounds | None
    help: str | None = None


def setting(
    default: Any, bounds: Bounds | None = None, help: str | None = None
) -> Any:  # a dataclass field
    return field(default=default, metadata={"setting": Setting(bounds, help)})


@dataclass
class ClusterSpec:
    data_nodes: int = setting(
        2, Bounds(1, MAX_DATA_NODES), "data nodes, a multiple of the replicas"
    )
    replicas: int = setting(2, Bounds(1, 4), "NoOfReplicas")
    tables: int = setting(20, Bounds(1, 20000), "user tables")
    sql_nodes: int = 2
    mgm_nodes: int = 1
    ldm_threads: int = setting(4, Bounds(1, 32))
    speed: float = setting(
        1.0, Bounds(0, 10000, low_open=True), "cluster seconds per wall-clock second"
    )
    ops_per_second: float = setting(
        2000.0,
        Bounds(0, 10_000_000),
        "NDB API operations per second of the application, cluster-wide",
    )
    pruned_scan_share: float = setting(0.6, Bounds(0, 1), "share of scans pruned to one partition")
    batching: float = setting(4.0, Bounds(1, 1000), "operations per round trip")
    seed: int = setting(1, None, "seed of the simulation")
    config: dict[str, str] = field(default_factory=dict)  # "Param" or "Param@node" -> value
    free_api_slots: int = 3
    restart_seconds: float = setting(12.0, Bounds(0))  # cluster seconds a node restart takes
    system_name: str = SYSTEM_NAME  # Ndb_system_name: the cluster's name, set when it was made

    def validate(self) -> None:
        """ValueError with a one-line message for values outside their ranges (how the numbers
        of nodes fit together is the topology's to say)."""
        for each in fields(self):
            declared = each.metadata.get("setting")
            if declared is None or declared.bounds is None:
                continue
            value = getattr(self, each.name)
            if value not in declared.bounds:
                what = each.name.replace("_", " ")
                raise ValueError(f"{what} must be {declared.bounds}, got {value:g}")


def command_line_settings() -> list[tuple[str, Any, Setting]]:
    """(name, default, setting) of every setting the command line offers, in order."""
    return [
        (each.name, each.default, each.metadata["setting"])
        for each in fields(ClusterSpec)
        if each.metadata.get("setting") is not None and each.metadata["setting"].help
    ]
