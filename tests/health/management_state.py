"""What the management server reader keeps of one cluster (ManagementState), for the tests of
the cards and the report built from it: one management server that answered, the nodes and
forced stops given, no backup or event."""

from __future__ import annotations

from collections.abc import Sequence

from ndbinfo_exporter.scrape.mgmd.events import ForcedStop
from ndbinfo_exporter.scrape.mgmd.protocol import NodeStatus
from ndbinfo_exporter.scrape.mgmd.reader import ManagementState


def management_state(
    nodes: Sequence[NodeStatus] = (), forced_stops: Sequence[ForcedStop] = ()
) -> ManagementState:
    return ManagementState(
        read_at=1000.0,
        answered=(("mgm1:1186", True),),
        nodes=tuple(nodes),
        subscription_up=True,
        listening_since=900.0,
        last_backup=None,
        backups_aborted=0,
        backups_failed_to_start=0,
        last_backup_failure=None,
        events=(),
        forced_stops=tuple(forced_stops),
    )
