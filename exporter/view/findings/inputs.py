"""What every check reads: the cluster view, the scrape's samples, the configuration and the
fragment placement."""

from __future__ import annotations

from dataclasses import dataclass

from ndbinfo_exporter.view.models import ClusterView, ConfigView
from ndbinfo_exporter.view.placement import Placement
from ndbinfo_exporter.view.samples import Samples


@dataclass(frozen=True)
class Inputs:
    cluster: ClusterView
    samples: Samples
    config: ConfigView
    placement: Placement | None
    previous: Samples | None = None  # the scrape before, for counter increases
