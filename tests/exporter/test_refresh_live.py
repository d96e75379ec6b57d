"""Refresh on change against ndbsim: the ndbinfo rows a steady scrape costs the cluster (its
cost meter), and a stopped data node showing in the very next scrape."""

from __future__ import annotations

import time
from collections.abc import Iterator

import httpx
import pytest
from ndbinfo_exporter.testing import running_exporter
from ndbsim.testing import NdbsimHandle, running_ndbsim
from prometheus_client.parser import text_string_to_metric_families

pytestmark = pytest.mark.integration

STEADY_SCRAPES = 10
ROWS_PER_SCRAPE = 31_000  # at 8 data nodes and 2,000 tables; a full read is about 635,000


@pytest.fixture(scope="module")
def stack() -> Iterator[tuple[NdbsimHandle, str]]:
    with running_ndbsim(data_nodes=8, tables=2000, seed=1) as sim:
        args = [f"--mysqld.address={sim.host}:{sim.port}", f"--mysqld.username={sim.user}"]
        with running_exporter(args, {"NDB_EXPORTER_PASSWORD": sim.password}) as exporter:
            yield sim, f"http://{exporter.address}/metrics"


def scrape(url: str) -> dict[tuple[str, tuple], float]:
    response = httpx.get(url, timeout=120)
    assert response.status_code == 200
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(response.text)
        for sample in family.samples
    }


def rows_read(sim: NdbsimHandle) -> int:
    return sim.stats()["ndbinfo_rows_read"]


def test_steady_scrapes_read_a_small_share_of_the_first(stack):
    sim, url = stack
    before = rows_read(sim)
    scrape(url)
    first = rows_read(sim) - before
    for _ in range(STEADY_SCRAPES):
        time.sleep(1)
        scrape(url)
    steady = (rows_read(sim) - before - first) / STEADY_SCRAPES
    assert first > 500_000
    assert steady <= ROWS_PER_SCRAPE


def test_a_stopped_data_node_shows_in_the_next_scrape(stack):
    sim, url = stack
    scrape(url)
    sim.stop_node(2)
    down = scrape(url)
    assert down["ndb_fragments_with_dead_replicas", ()] > 0
    assert down["ndb_fragment_primaries", (("node_id", "2"),)] == 0
    assert down["ndb_replicas", (("node_id", "2"), ("state", "dead"))] > 0
    assert down["ndb_node_connected", (("node_id", "2"), ("node_type", "NDB"))] == 0
    sim.start_node(2)
    sim.wait_for(
        lambda s: {n["node_id"]: n["state"] for n in s["nodes"]}.get(2) == "STARTED", timeout=120
    )
    up = scrape(url)
    assert up["ndb_fragments_with_dead_replicas", ()] == 0
    assert up["ndb_replicas", (("node_id", "2"), ("state", "dead"))] == 0
    assert up["ndb_fragment_primaries", (("node_id", "2"),)] > 0
    assert up["ndb_node_connected", (("node_id", "2"), ("node_type", "NDB"))] == 1
