"""The start phase a starting data node is in, as ndbinfo.nodes, ndb_mgmd's `get status`
and the cluster log's start phase events show it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ndbsim.model.faults import START_PHASES

if TYPE_CHECKING:
    from ndbsim.model.cluster import Cluster


def start_phase(c: Cluster, node_id: int) -> int:
    """1..START_PHASES, by the share of its restart the node has done."""
    return min(START_PHASES, 1 + int(START_PHASES * c.restart_progress(node_id)))
