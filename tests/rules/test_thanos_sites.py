"""Two data centers on Thanos: the source cluster of a replication pair scraped by site A's
Prometheus (an HA pair, external labels site and replica), its replica cluster by site B's,
each Prometheus with a Thanos sidecar and the rule files that read one cluster; Thanos Query
over the sidecars (strict: a missing site is an error or a warning, never left out unsaid)
deduplicating the HA pair; Thanos Ruler over Query evaluating the groups that join the two
clusters (partial_response_strategy abort) and those that must run while a site is missing
(warn): the missing side's alert and the verdict (ndb_harness.thanos.RULER_GROUPS).

The Ruler's copies run on a clock SPEED times faster (their `for` and windows divided by it:
NdbReplicationLagHigh's 10 minutes are 30 s), so that its alerts fire, not only go pending,
within the test; the sites' rules are the shipped ones.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass

import pytest
import yaml
from ndb_harness import Ndbsim, running_ndbsim
from ndb_harness.thanos import (
    RULER_GROUPS,
    Site,
    ThanosComponent,
    running_sites,
    split_for_sites,
)

from tests.support.compressed_clock import compress_rules
from tests.support.live_stack import (
    PROMETHEUS_BUILDS,
    RULE_FILES,
    THANOS_PROGRAM,
    evaluating_config,
    require_programs,
    running_pair_exporters,
    shared_scrapes,
    wait_until,
)

SOURCE, REPLICA = "site-a", "site-b-dr"
SPEED = 20  # the Ruler's clock: NdbReplicationLagHigh's `for: 10m` is 30 s
SCRAPE_INTERVAL = "3s"
SOURCE_COLLECTORS = ("status", "binlog", "nodes", "processes", "membership", "memoryusage")
REPLICA_COLLECTORS = ("status", "binlog", "replica_status", "apply_status", "nodes")
HEALTHY_SECONDS = 20.0
FIRE_SECONDS = 90.0


@dataclass
class TwoSites:
    sim: Ndbsim
    a: Site
    b: Site
    query: ThanosComponent
    ruler: ThanosComponent

    def ruler_alerts(self) -> dict[str, list[dict[str, str]]]:
        """Alert name -> the labels of its alerts in the Ruler, with their state."""
        found: dict[str, list[dict[str, str]]] = {}
        for alert in self.ruler.alert_instances():
            found.setdefault(alert["labels"]["alertname"], []).append(
                {**alert["labels"], "state": alert["state"]}
            )
        return found

    def site_alerts(self) -> set[str]:
        """The alerts pending or firing on any site's Prometheus, for the two clusters."""
        return {
            labels["alertname"]
            for site in (self.a, self.b)
            for server in site.servers
            for labels in server.alerts()
            if labels.get("cluster") in (SOURCE, REPLICA)
        }

    def rule_errors(self) -> list[tuple[str, str]]:
        """(rule, lastError) of every rule of the Ruler and the sites that is not healthy."""
        groups = [
            group
            for server in (self.ruler, *self.a.servers, *self.b.servers)
            for group in server.rule_groups()
        ]
        return [
            (rule["name"], rule.get("lastError", ""))
            for group in groups
            for rule in group["rules"]
            if rule["health"] != "ok"
        ]

    def state(self) -> tuple[list, dict, set]:
        return self.rule_errors(), self.ruler_alerts(), self.site_alerts()

    def quiet(self) -> bool:
        return self.state() == ([], {}, set())

    def firing(self, name: str) -> list[dict[str, str]]:
        return [a for a in self.ruler_alerts().get(name, []) if a["state"] == "firing"]


@pytest.fixture(scope="module")
def sites(tmp_path_factory) -> Iterator[TwoSites]:
    require_programs(THANOS_PROGRAM)
    workdir = tmp_path_factory.mktemp("thanos-sites")
    compressed = compress_rules(RULE_FILES, SPEED, workdir / "compressed")
    site_files = split_for_sites(RULE_FILES, workdir / "unused")[0]
    ruler_files = split_for_sites(compressed, workdir / "ruler-rules")[1]
    with ExitStack() as running:
        sim = running.enter_context(
            running_ndbsim("--data-nodes", "2", "--tables", "4", replica=True)
        )
        source, replica = running_pair_exporters(
            running, sim, workdir, SOURCE_COLLECTORS, REPLICA_COLLECTORS
        )
        max_age = 0.9 * float(SCRAPE_INTERVAL.removesuffix("s"))
        front = running.enter_context(shared_scrapes(source.address, max_age))
        a_target = {front: {"instance": source.address, "cluster": SOURCE}}
        b_target = {
            replica.address: {
                "instance": replica.address,
                "cluster": REPLICA,
                "source_cluster": SOURCE,
            }
        }
        build = PROMETHEUS_BUILDS[-1]
        build.require()
        thanos = running.enter_context(
            running_sites(
                THANOS_PROGRAM,
                build.prometheus,
                {
                    "a": (evaluating_config(a_target, SCRAPE_INTERVAL, site_files), 2),
                    "b": (evaluating_config(b_target, SCRAPE_INTERVAL, site_files), 1),
                },
                ruler_files,
                workdir,
                SCRAPE_INTERVAL,
            )
        )
        query, ruler = thanos.query, thanos.ruler
        stack = TwoSites(sim, thanos.sites["a"], thanos.sites["b"], query, ruler)
        wait_until(
            lambda: query.query("cluster:ndb_replica_applied_gci:lag"),
            60.0,
            "the Ruler's lag of the replica cluster, read back through Query",
        )
        yield stack


pytestmark = [pytest.mark.integration, pytest.mark.long(minutes=3)]


def test_split_gives_the_ruler_the_cross_site_groups_and_the_verdict(tmp_path):
    sites, ruler = split_for_sites(RULE_FILES, tmp_path)
    assert {path.name for path in ruler} == {"ndb-cross-site.yml", "ndb-verdict.yml"}
    assert {path.name for path in sites} | {path.name for path in ruler} == {
        path.name for path in RULE_FILES
    }
    strategies = {
        group["name"]: group["partial_response_strategy"]
        for path in ruler
        for group in yaml.safe_load(path.read_text())["groups"]
    }
    assert strategies == RULER_GROUPS


def test_a_site_missing_pages_and_no_lag_alert_resolves_silently(sites: TwoSites):
    """Healthy: no alert anywhere, no rule with an error, the HA pair deduplicated. A replica
    behind: NdbReplicationLagHigh fires from the Ruler, in seconds and in GCIs, and the
    verdict of the replica cluster is DEGRADED. Site A's Prometheus servers stopped: the lag
    group fails (abort) and keeps its alerts firing, NdbReplicationLagUnknown fires. Site A
    back and the fault cleared: all quiet again."""
    source_up = f'up{{cluster="{SOURCE}"}}'
    wait_until(
        lambda: len(sites.query.query(source_up, dedup="false")) == 2,
        30.0,
        "both Prometheus servers of site A's HA pair in Query",
    )
    assert len(sites.query.query(source_up)) == 1, "the HA pair deduplicated"
    wait_until(sites.quiet, HEALTHY_SECONDS * 3, "no alert and no rule error")
    deadline = time.monotonic() + HEALTHY_SECONDS
    while time.monotonic() < deadline:
        assert sites.state() == ([], {}, set()), "healthy: no rule error, no alert"
        time.sleep(2.0)

    sites.sim.fault("replica-behind", seconds=900)
    lag = wait_until(
        lambda: (found := sites.firing("NdbReplicationLagHigh")) and len(found) == 2 and found,
        FIRE_SECONDS,
        "NdbReplicationLagHigh firing in the Ruler, in seconds and in GCIs",
    )
    assert {alert["cluster"] for alert in lag} == {REPLICA}
    assert {alert.get("source_cluster") for alert in lag} == {SOURCE}
    wait_until(
        lambda: (
            [
                s["value"][1]
                for s in sites.query.query(f'cluster:ndb_status:min{{cluster="{REPLICA}"}}')
            ]
            == ["4"]
        ),
        30.0,
        "the replica cluster's verdict DEGRADED",
    )

    sites.a.stop()
    unknown = wait_until(
        lambda: sites.firing("NdbReplicationLagUnknown"),
        FIRE_SECONDS,
        "NdbReplicationLagUnknown firing with site A missing",
    )
    assert [(a["cluster"], a["source_cluster"]) for a in unknown] == [(REPLICA, SOURCE)]
    errors = dict(sites.rule_errors())
    assert "cluster:ndb_replica_applied_gci:lag" in errors, "the lag group aborts"
    assert len(sites.firing("NdbReplicationLagHigh")) == 2, "no lag alert resolved silently"

    sites.a.start()
    wait_until(
        lambda: not sites.ruler_alerts().get("NdbReplicationLagUnknown"),
        FIRE_SECONDS,
        "NdbReplicationLagUnknown resolved with site A back",
    )
    assert len(sites.firing("NdbReplicationLagHigh")) == 2
    sites.sim.reset()
    wait_until(sites.quiet, FIRE_SECONDS, "all quiet again")
