"""What every check reads: the cluster view, the scrape's samples, the configuration, the
fragment placement, and what the management server reader keeps of the cluster when one is
read."""

from __future__ import annotations

from dataclasses import dataclass

from ndbinfo_exporter.health.models import ClusterView, ConfigView
from ndbinfo_exporter.health.placement import Placement
from ndbinfo_exporter.health.samples import Samples
from ndbinfo_exporter.scrape.mgmd.reader import ManagementState


@dataclass(frozen=True)
class Inputs:
    cluster: ClusterView
    samples: Samples
    config: ConfigView
    placement: Placement | None
    previous: Samples | None = None  # the scrape before, for counter increases
    management: ManagementState | None = None  # None: no management server is read
