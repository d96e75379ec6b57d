"""A restarting data node's current step and the estimate of its restart, read back from the
restart_info collector's series for the view and ``report``: the estimate itself is computed
once, by the collector (collectors/_restart_progress.py)."""

from __future__ import annotations

from collections.abc import Iterable

from ndbinfo_exporter.health.models import RestartProgress
from ndbinfo_exporter.health.samples import Samples


def restarts(samples: Samples, starting: Iterable[int]) -> dict[int, RestartProgress]:
    """node id -> its restart, for each node the collector estimated and each node in
    ``starting`` with a restart_info status."""
    statuses = {
        int(labels["node_id"]): labels.get("status", "")
        for labels, _ in samples.select("ndb_restart_status")
    }
    ratios = samples.by_node("ndb_restart_progress_ratio")
    remaining = samples.by_node("ndb_restart_remaining_seconds")
    nodes = set(ratios) | (set(starting) & set(statuses))
    return {
        node: RestartProgress(
            status=statuses.get(node),
            progress=ratios.get(node),
            remaining_seconds=remaining.get(node),
        )
        for node in sorted(nodes)
    }
