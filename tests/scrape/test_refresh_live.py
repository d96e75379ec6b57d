"""Refresh on change against ndbsim: the ndbinfo rows steady scrapes cost the cluster (its
cost meter) over a window three times the maximum age, on average and at the largest, and a
stopped data node showing in the very next scrape."""

from __future__ import annotations

import time
from collections.abc import Iterator

import httpx
import pytest
from ndb_harness import Ndbsim, running_exporter, running_ndbsim
from prometheus_client.parser import text_string_to_metric_families

pytestmark = pytest.mark.integration

# The maximum age is lowered from 120 s so that a one-minute window holds three of them:
# every safety read falls in it, as in 330 s at the default.
MAX_AGE = 20
WINDOW_SECONDS = 3 * MAX_AGE
SCRAPE_INTERVAL = 1.0  # from the start of one scrape to the next, as Prometheus schedules them
# At 8 data nodes and 2,000 tables; a full read is about 646,000.
ROWS_PER_SCRAPE = 10_000
LARGEST_SCRAPE = 64_000


@pytest.fixture(scope="module")
def stack() -> Iterator[tuple[Ndbsim, str]]:
    with running_ndbsim(data_nodes=8, tables=2000, seed=1) as sim:
        args = [
            f"--mysqld.address={sim.host}:{sim.port}",
            f"--mysqld.username={sim.user}",
            f"--exporter.refresh-max-age={MAX_AGE}",
        ]
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


def rows_read(sim: Ndbsim) -> dict[str, int]:
    return sim.stats()["ndbinfo_rows_read_by_table"]


def difference(after: dict[str, int], before: dict[str, int]) -> dict[str, int]:
    return {name: rows - before.get(name, 0) for name, rows in after.items()}


def warm_up(url: str) -> None:
    """Scrape until every collector succeeded once (a statement given up on a busy machine is
    read again at the next scrape)."""
    for _ in range(5):
        samples = scrape(url)
        success = [
            v for (name, _), v in samples.items() if name == "ndb_exporter_collector_success"
        ]
        if success and all(success):
            return
    raise AssertionError("a collector kept failing")


def test_steady_scrapes_read_a_small_share_of_the_first(stack):
    """Safety reads included: the dictionary's fingerprint and the aged collectors, one per
    scrape; the distribution is not read again without a change."""
    sim, url = stack
    before = rows_read(sim)
    warm_up(url)
    warm = previous = rows_read(sim)
    per_scrape = []
    start = time.monotonic()
    while (began := time.monotonic()) < start + WINDOW_SECONDS:
        scrape(url)
        now = rows_read(sim)
        per_scrape.append(sum(difference(now, previous).values()))
        previous = now
        time.sleep(max(0.0, began + SCRAPE_INTERVAL - time.monotonic()))
    steady = difference(previous, warm)
    assert sum(difference(warm, before).values()) > 500_000
    assert sum(per_scrape) / len(per_scrape) <= ROWS_PER_SCRAPE, steady
    assert max(per_scrape) <= LARGEST_SCRAPE, per_scrape
    assert steady.get("ndb$table_fragments", 0) == 0, steady
    assert steady.get("ndb$table_distribution_status", 0) > 0, "read at the maximum age"


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
