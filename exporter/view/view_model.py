"""What the view's API serves for one scrape result and one placement, built once.

``build`` runs on a worker thread and does everything that costs in proportion to the series:
the cluster, the findings and the configuration, each serialized once with its ETag. Placement
pages are computed on demand, off the event loop, from a selection (the tables matching a
filter, with their sums) kept per filter, so that turning a page serializes one page only.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field

from ndbinfo_exporter.health import placement as placement_model
from ndbinfo_exporter.health.assessment import assess
from ndbinfo_exporter.health.findings.alerting import with_alerts
from ndbinfo_exporter.health.management import management_view
from ndbinfo_exporter.health.models import AlertsView, ClusterView, Finding
from ndbinfo_exporter.health.placement import Placement, TableSelection
from ndbinfo_exporter.scrape.mgmd.reader import ManagementState
from ndbinfo_exporter.scrape.scraper import ScrapeResult
from ndbinfo_exporter.view.body import Body
from ndbinfo_exporter.view.models import FindingsView

SELECTIONS_KEPT = 16


class Unavailable(Exception):
    """The data cannot be produced now; the message says why in one line."""


class PageOutOfRange(ValueError):
    """A placement page past the last one; the message says which is the last."""


@dataclass
class ViewModel:
    """Everything the API serves for one scrape result and one placement."""

    result: ScrapeResult
    previous: ScrapeResult | None  # the result before, for counter increases
    cluster: ClusterView
    placement: Placement | None
    placement_error: str | None
    bodies: dict[str, Body]
    findings: FindingsView  # the checks' findings (none while the SQL node is down)
    management: ManagementState | None = None
    _with_alerts: tuple[AlertsView, Body] | None = field(default=None, repr=False)
    _selections: OrderedDict[tuple, TableSelection] = field(default_factory=OrderedDict, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def findings_body(self, alerts: AlertsView) -> Body:
        """The findings with the firing alerts' (health.findings.alerting), serialized once
        per answer of the alert source. While the SQL node does not answer, the checks judge
        nothing (``up`` false) and the alerts still say what paged."""
        kept = self._with_alerts
        if kept is not None and kept[0] is alerts:
            return kept[1]
        findings = with_alerts(self.findings.findings, alerts)
        body = Body.of(self.findings.model_copy(update=counted(findings)))
        self._with_alerts = (alerts, body)
        return body

    def require_placement(self) -> Placement:
        """The placement, or Unavailable saying why there is none."""
        if self.placement is None:
            raise Unavailable(self.placement_error or "no placement has been read yet")
        return self.placement

    def page(
        self, db: str | None, table: str | None, node: int | None, page: int, page_size: int
    ) -> Body:
        """One placement page. Blocking: call it on a worker thread."""
        selection = self._selection(db, table, node)
        pages = selection.pages(page_size)
        if page > pages:
            raise PageOutOfRange(f"page {page} is past the last page ({pages})")
        return Body.of(
            placement_model.page_view(selection, self.result.target, page=page, page_size=page_size)
        )

    def _selection(self, db: str | None, table: str | None, node: int | None) -> TableSelection:
        key = (db, table, node)
        with self._lock:
            found = self._selections.get(key)
            if found is not None:
                self._selections.move_to_end(key)
                return found
        found = placement_model.select(
            self.require_placement(), self._data_nodes(), db=db, table=table, node=node
        )
        with self._lock:
            self._selections[key] = found
            if len(self._selections) > SELECTIONS_KEPT:
                self._selections.popitem(last=False)
        return found

    def _data_nodes(self) -> dict[int, tuple[int | None, bool]]:
        topology = self.cluster.topology
        nodes = {n.node_id: (g.nodegroup, n.running) for g in topology.node_groups for n in g.nodes}
        nodes.update({n.node_id: (None, n.running) for n in topology.unassigned_data_nodes})
        return nodes


def build(
    result: ScrapeResult,
    previous: ScrapeResult | None,
    groups: dict[int, int],
    placement: Placement | None,
    placement_error: str | None,
    management: ManagementState | None = None,
) -> ViewModel:
    """Runs on a worker thread: everything O(series) happens here, once per model (the
    assessment ``check`` and ``report`` print, serialized). The samples' index is dropped
    when the model is built."""
    judged = assess(result, previous, placement, management, groups)
    bodies = {"cluster": Body.of(judged.cluster)}
    if management is not None:
        bodies["management"] = Body.of(management_view(result.target, management))
    if judged.config is not None:
        bodies["config"] = Body.of(judged.config)
    findings = FindingsView(
        target=result.target,
        up=result.up,
        error=result.error,
        scraped_at=result.finished_at,
        **counted(judged.findings),
    )
    return ViewModel(
        result, previous, judged.cluster, placement, placement_error, bodies, findings, management
    )


def counted(findings: list[Finding]) -> dict:
    """The findings and their counts, as FindingsView holds them."""
    return {
        "findings": findings,
        "problems": sum(1 for f in findings if f.status == "problem"),
        "unknown": sum(1 for f in findings if f.status == "unknown"),
    }


def previous_of(model: ViewModel | None, result: ScrapeResult) -> ScrapeResult | None:
    """The scrape result before ``result``: the last model's, when it was another result of
    a reachable SQL node; otherwise the one that model had."""
    if model is None:
        return None
    if model.result is not result and model.result.up:
        return model.result
    return model.previous
