"""A data node restarting on ndbsim, read through the exporter: the estimate of its restart
grows while it starts and is gone once it has started; a start held in a start phase shows
its step and estimate in the cluster view's API."""

from __future__ import annotations

import time

import httpx
import pytest
from ndb_harness import running_exporter, running_ndbsim
from ndbinfo_exporter.collectors.registry import all_collectors
from prometheus_client.parser import text_string_to_metric_families

pytestmark = pytest.mark.integration

COLLECTORS = ("nodes", "restart_info")
NODE = "2"  # node 1 restarted before (seed 1): its restart is the one compared with
RATIO = "ndb_restart_progress_ratio"
REMAINING = "ndb_restart_remaining_seconds"
HELD_STEP = "Restore fragments ongoing"  # restart_info's status in start phase 5


@pytest.fixture
def stack():
    with running_ndbsim(speed=2) as sim:
        args = [f"--no-collector.{c.name}" for c in all_collectors() if c.name not in COLLECTORS]
        with running_exporter(args, mysqld=sim.account()) as exporter:
            yield sim, exporter


def node_samples(exporter) -> dict[str, float | str]:
    """Node 2's estimate and restart_info status in one scrape of /metrics."""
    text = httpx.get(f"{exporter.url}/metrics", timeout=30).raise_for_status().text
    found: dict[str, float | str] = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            if s.labels.get("node_id") != NODE:
                continue
            if s.name in (RATIO, REMAINING):
                found[s.name] = s.value
            elif s.name == "ndb_restart_status":
                found["status"] = s.labels["status"]
    return found


def started(sim) -> bool:
    return any(n["node_id"] == int(NODE) and n["state"] == "STARTED" for n in sim.status()["nodes"])


def test_the_ratio_grows_while_the_node_starts_and_is_gone_once_started(stack):
    sim, exporter = stack
    sim.stop_node(int(NODE))
    assert node_samples(exporter) == {"status": "Node failure handling complete"}
    sim.start_node(int(NODE))
    seen = []
    deadline = time.monotonic() + 60
    while not started(sim):
        assert time.monotonic() < deadline, "node 2 did not start"
        found = node_samples(exporter)
        if RATIO in found:
            seen.append((found[RATIO], found[REMAINING]))
        time.sleep(0.2)
    ratios = [ratio for ratio, _ in seen]
    assert len(set(ratios)) >= 3, seen
    assert ratios == sorted(ratios) and ratios[0] >= 0 and ratios[-1] <= 0.99
    assert all(remaining >= 0 for _, remaining in seen)
    assert node_samples(exporter) == {"status": "Restart completed"}


def test_a_held_start_shows_its_step_and_estimate_in_the_view(stack):
    sim, exporter = stack
    sim.stop_node(int(NODE))
    sim.fault("stuck-start", node=int(NODE), phase=5)
    sim.start_node(int(NODE))
    deadline = time.monotonic() + 30
    while True:
        view = httpx.get(f"{exporter.url}/api/v1/cluster", timeout=30).raise_for_status().json()
        topology = view["topology"]
        listed = [n for g in topology["node_groups"] for n in g["nodes"]]
        nodes = {n["node_id"]: n for n in [*listed, *topology["unassigned_data_nodes"]]}
        restart = nodes[int(NODE)]["restart"] or {}
        if restart.get("status") == HELD_STEP and restart["progress"] is not None:
            break
        assert time.monotonic() < deadline, f"not held in the view: {nodes[int(NODE)]}"
        time.sleep(0.5)
    assert 0 < restart["progress"] <= 0.99 and restart["remaining_seconds"] >= 0
    assert [n for n, node in nodes.items() if node["restart"] is not None] == [int(NODE)]
