"""collect[] URL parameters on /metrics and /probe: a scrape job runs part of the collectors."""

from __future__ import annotations

import httpx
import pytest
from ndbinfo_exporter.app import create_app
from ndbinfo_exporter.mycnf import ClientSection
from ndbinfo_exporter.scrape.scraper import Scraper
from ndbinfo_exporter.settings import Settings
from ndbinfo_exporter.targets import build
from prometheus_client.parser import text_string_to_metric_families

from tests.support.fake_sql_node import Answer, FakeSqlNode, RunningFakeSqlNode
from tests.support.scraping import PASSWORD, gauge_collector

NODES = "SELECT node_id FROM ndbinfo.nodes"


@pytest.fixture
async def http():
    fake = FakeSqlNode(password=PASSWORD, answers={NODES: Answer(["node_id"], [(1,), (2,)])})
    with RunningFakeSqlNode(fake) as node:
        settings = Settings(probe_allowed_targets=("127.0.0.*:*",))
        address = f"127.0.0.1:{node.port}"
        sections = {"client": ClientSection(user="exporter", password=PASSWORD)}
        targets = build(sections, address, None, None, settings.probe_allowed_targets)
        names = ("status", "nodes", "fragments")
        scraper = Scraper(
            [gauge_collector(n, NODES) for n in names], {}, 2, 5, settings.refresh_max_age
        )
        app = create_app(settings, targets, scraper)
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://e") as client:
            yield client, address
        scraper.close()


def successes(text: str) -> dict[str, float]:
    for family in text_string_to_metric_families(text):
        if family.name == "ndb_exporter_collector_success":
            return {s.labels["collector"]: s.value for s in family.samples}
    return {}


async def test_collect_runs_the_named_collectors_alone(http):
    client, address = http
    response = await client.get("/metrics", params={"collect[]": "status"})
    assert response.status_code == 200
    assert successes(response.text) == {"status": 1}
    assert "process_cpu_seconds_total" not in response.text
    probe = await client.get(
        "/probe", params=[("target", address), ("collect[]", "nodes"), ("collect[]", "fragments")]
    )
    assert successes(probe.text) == {"nodes": 1, "fragments": 1}
    everything = await client.get("/metrics")
    assert successes(everything.text) == {"status": 1, "nodes": 1, "fragments": 1}


async def test_collect_mgmd_names_the_management_server_not_a_collector(http):
    client, _ = http
    response = await client.get("/metrics", params=[("collect[]", "status"), ("collect[]", "mgmd")])
    assert response.status_code == 200
    assert successes(response.text) == {"status": 1}
    alone = await client.get("/metrics", params={"collect[]": "mgmd"})
    assert alone.status_code == 200 and successes(alone.text) == {}


async def test_unknown_collector_is_a_bad_request_with_one_line(http):
    client, address = http
    for path, params in (
        ("/metrics", {"collect[]": "no_such"}),
        ("/probe", {"target": address, "collect[]": "no_such"}),
    ):
        response = await client.get(path, params=params)
        assert response.status_code == 400
        assert response.text == "collect[]: 'no_such' is not an enabled collector\n"
