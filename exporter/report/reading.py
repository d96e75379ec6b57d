"""One read of a SQL node for ``report`` and ``check``: the collectors the selected checks
need (the scrape core's ``collect[]`` selection), and the cluster and configuration models and
the checks' findings built from them by the view's own path (``health.assessment.assess``),
all as model objects.

With management servers (``--mgmd.address``), their `get status` and what the cluster log
subscription, held for the run, received (the backups' outcomes during ``--interval``) go to
the checks as they go to the view's.

``--interval`` reads twice, that long apart, so that the rates measure that window. The whole
run is bounded by ``-t``: each stage gets what is left of it, and a run that runs out says
which stage it was waiting for.
"""

from __future__ import annotations

import asyncio
import functools
import time
from collections.abc import Sequence
from dataclasses import dataclass

from ndbinfo_exporter.collectors.base import Collector
from ndbinfo_exporter.health.alerts import NO_ALERTS, AlertSource, public
from ndbinfo_exporter.health.assessment import assess
from ndbinfo_exporter.health.findings.alerting import alert_findings, with_alerts
from ndbinfo_exporter.health.findings.check import Check
from ndbinfo_exporter.health.findings.inputs import Inputs
from ndbinfo_exporter.health.models import AlertsView, ClusterView, ConfigView, Finding
from ndbinfo_exporter.health.placement import Placement
from ndbinfo_exporter.health.placement_read import PlacementUnavailable, fold_on, read_placement
from ndbinfo_exporter.scrape.mgmd.client import Address, address_name
from ndbinfo_exporter.scrape.mgmd.reader import ManagementState, MgmdReader
from ndbinfo_exporter.scrape.pool import Pools
from ndbinfo_exporter.scrape.scraper import Scraper, ScrapeResult
from ndbinfo_exporter.settings import Settings
from ndbinfo_exporter.targets import TargetConfig

# The collectors every run reads: the SQL node, the data nodes, every node slot, node groups.
BASE = ("status", "nodes", "processes", "membership")
# Left of -t for printing the answer once the read gave up.
MARGIN_SECONDS = 0.3


@dataclass(frozen=True)
class Reading:
    result: ScrapeResult
    cluster: ClusterView
    inputs: Inputs | None  # None when the SQL node did not answer
    findings: list[Finding]
    interval: float | None  # seconds between the two reads, None for one read
    collectors: tuple[str, ...]  # the collectors read
    timed_out: str | None = None  # the stage the run gave up in
    management: ManagementState | None = None  # None: no management server is read

    @property
    def config(self) -> ConfigView | None:
        return self.inputs.config if self.inputs is not None else None


@dataclass
class Stage:
    """What the run waits for now, named for a timeout, and when -t runs out
    (time.monotonic())."""

    deadline: float
    now: str = "starting"

    def left(self) -> float:
        return max(0.0, self.deadline - time.monotonic())


def needed(
    checks: Sequence[Check],
    collectors: Sequence[Collector],
    off: set[str],
    extra: Sequence[str] = (),
) -> list[str]:
    """The collectors the checks read, the base ones and ``extra``, except those turned off by
    a flag; a collector the exporter leaves off by default is read when a selected check needs
    it."""
    names = {*BASE, *extra, *(name for check in checks for name in check.reads)}
    return [c.name for c in collectors if c.name in names and c.name not in off]


def scraper_for(settings: Settings, collectors: Sequence[Collector]) -> Scraper:
    return Scraper(
        collectors,
        {c.name: settings.options_for(c) for c in collectors},
        max_connections=1,
        query_timeout=settings.query_timeout,
        refresh_max_age=settings.refresh_max_age,
        renders=False,
    )


async def _scrape(
    scraper: Scraper, target: TargetConfig, names: Sequence[str], stage: Stage
) -> ScrapeResult:
    stage.now = f"the SQL node {target.name} to read ndbinfo ({', '.join(names)})"
    return await scraper.scrape(target, max(0.1, stage.left() - MARGIN_SECONDS), frozenset(names))


def stalled(result: ScrapeResult) -> str | None:
    """What the read ran out of time waiting for: the SQL node, or collectors' queries."""
    if not result.up and (result.error or "").startswith("timed out"):
        return f"the SQL node {result.target} to answer"
    late = sorted(name for name, e in result.collector_errors.items() if e.startswith("timed out"))
    if late:
        return f"ndbinfo through the SQL node {result.target} (collectors {', '.join(late)})"
    return None


async def _read_placement(
    target: TargetConfig, result: ScrapeResult, stage: Stage
) -> Placement | None:
    """The placement as the view reads it (``health.placement_read``), on a connection of its
    own; None when the SQL node cannot show it or the read fails (the findings then go without
    it)."""
    if not result.up:
        return None
    stage.now = f"the SQL node {target.name} to read the fragment placement"
    pools = Pools(1, max(0.1, stage.left()))
    pool, _ = pools.get(target.name)
    try:
        return await read_placement(
            functools.partial(fold_on, pool, target),
            result,
            max(0.1, stage.left() - MARGIN_SECONDS),
            time.time(),
        )
    except PlacementUnavailable:  # a report without the placement has every other finding
        return None
    finally:
        pools.close()


class AlertsRead:
    """The firing alerts of the Prometheus or Alertmanager at ``url`` (None: none are read),
    read beside the cluster within AlertSource's own timeout, so that a slow SQL node does not
    leave them without time; what they say counts even when -t runs out before the cluster
    is read."""

    def __init__(self, url: str | None) -> None:
        self.url = url
        self._task: asyncio.Future[AlertsView] | None = None

    def start(self) -> None:
        self._task = asyncio.ensure_future(AlertSource(self.url, interval=0.0).alerts())

    async def result(self, stage: Stage) -> AlertsView:
        assert self._task is not None
        if self.url is not None and not self._task.done():
            stage.now = f"the alerts at {public(self.url)}"
        return await self._task

    def so_far(self) -> list[Finding]:
        """The alerts' findings if they were read by now, else none."""
        task = self._task
        if task is None or not task.done() or task.cancelled() or task.exception() is not None:
            return []
        return alert_findings(task.result())

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()


async def read(
    scraper: Scraper,
    target: TargetConfig,
    checks: Sequence[Check],
    interval: float | None,
    stage: Stage,
    placement: bool = False,
    managers: Sequence[Address] = (),
    alerts: AlertsRead | None = None,
) -> Reading:
    """``placement``: also read the fragment placement (the report: the tables behind dead
    replicas and hot tables; a check never reads it). ``managers``: the cluster's
    management servers. ``alerts``: the firing alerts that are findings too
    (health.findings.alerting)."""
    manager = MgmdReader(managers) if managers else None
    alerts = alerts or AlertsRead(None)
    alerts.start()
    try:
        if manager is not None:
            manager.subscription.start()
        names = [c.name for c in scraper.collectors]
        result = await _scrape(scraper, target, names, stage)
        previous = None
        if interval is not None and result.up and stalled(result) is None:
            stage.now = f"the {interval:g} s between the two reads"
            await asyncio.sleep(interval)
            previous, result = result, await _scrape(scraper, target, names, stage)
        placed = await _read_placement(target, result, stage) if placement else None
        management = await _management(manager, stage)
        firing = await alerts.result(stage)
    finally:
        alerts.stop()
        if manager is not None:
            await manager.close()
    return modelled(result, previous, checks, tuple(names), interval, placed, management, firing)


async def _management(manager: MgmdReader | None, stage: Stage) -> ManagementState | None:
    if manager is None:
        return None
    stage.now = f"the management servers {', '.join(map(address_name, manager.addresses))}"
    return await manager.current(max(0.1, stage.left() - MARGIN_SECONDS), max_age=0.0)


def modelled(
    result: ScrapeResult,
    previous: ScrapeResult | None,
    checks: Sequence[Check],
    collectors: tuple[str, ...],
    interval: float | None = None,
    placement: Placement | None = None,
    management: ManagementState | None = None,
    alerts: AlertsView = NO_ALERTS,
) -> Reading:
    """The assessment of one scrape result (and the one before it) with the findings of
    ``checks`` and of the firing ``alerts``, built as the view builds it."""
    judged = assess(result, previous, placement, management, checks=checks)
    return Reading(
        result=result,
        cluster=judged.cluster,
        inputs=judged.inputs,
        findings=with_alerts(judged.findings, alerts),
        interval=interval if previous is not None else None,
        collectors=collectors,
        timed_out=stalled(result),
        management=management,
    )
