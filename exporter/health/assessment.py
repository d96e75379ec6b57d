"""The one path from a scrape result to what is judged of the cluster: the cluster model, the
configuration and the findings. The view serializes what it returns (``view.view_model``);
``check`` and ``report`` print it (``report.reading``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ndbinfo_exporter.health.cluster import cluster_view, node_groups_seen
from ndbinfo_exporter.health.findings.check import Check
from ndbinfo_exporter.health.findings.evaluation import CHECKS, evaluated
from ndbinfo_exporter.health.findings.inputs import Inputs
from ndbinfo_exporter.health.models import ClusterView, ConfigView, Finding
from ndbinfo_exporter.health.parameters import config_view
from ndbinfo_exporter.health.placement import Placement
from ndbinfo_exporter.health.samples import Samples
from ndbinfo_exporter.scrape.mgmd.reader import ManagementState, active_family
from ndbinfo_exporter.scrape.scraper import ScrapeResult


@dataclass(frozen=True)
class Assessment:
    cluster: ClusterView
    inputs: Inputs | None  # None when the SQL node did not answer
    findings: list[Finding]  # empty when the SQL node did not answer

    @property
    def config(self) -> ConfigView | None:
        return self.inputs.config if self.inputs is not None else None


def assess(
    result: ScrapeResult,
    previous: ScrapeResult | None = None,
    placement: Placement | None = None,
    management: ManagementState | None = None,
    groups: Mapping[int, int] | None = None,
    checks: Sequence[Check] = CHECKS,
) -> Assessment:
    """The models of one scrape result (and of the one before it, for counter increases) and
    the findings of ``checks``. ``groups``: the node group of data nodes seen running before
    (a stopped node keeps it); the placement's replica sets place those never seen running."""
    # which data nodes are active, as the management server's configuration says (RonDB)
    configured = [active_family(management.configured)] if management is not None else []
    samples = Samples([*result.families, *configured])
    before = Samples(previous.families) if previous is not None else None
    known = {**(groups or {}), **node_groups_seen(samples)}
    cluster = cluster_view(
        result, samples, before, previous, {**known, **groups_from(placement, known)}
    )
    if not result.up:
        return Assessment(cluster, None, [])
    inputs = Inputs(cluster, samples, config_view(result, samples), placement, before, management)
    return Assessment(cluster, inputs, evaluated(checks, inputs))


def groups_from(placement: Placement | None, known: Mapping[int, int]) -> dict[int, int]:
    """Node groups of data nodes not seen running, from the placement's replica sets."""
    found: dict[int, int] = {}
    if placement is None:
        return found
    for nodes in placement.node_groups:
        groups = {known[n] for n in nodes if n in known}
        if len(groups) == 1:
            group = groups.pop()
            found.update({node: group for node in nodes if node not in known})
    return found
