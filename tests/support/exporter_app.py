"""The exporter's HTTP app served in-process against a fake SQL node: the fixtures `node` and
`client` of the tests of its endpoints. A module uses them by importing ``fake_node`` and
``exporter_client``."""

from __future__ import annotations

import httpx
import pytest
from ndbinfo_exporter.app import create_app
from ndbinfo_exporter.mycnf import ClientSection
from ndbinfo_exporter.scrape.scraper import Scraper
from ndbinfo_exporter.settings import Settings
from ndbinfo_exporter.targets import build

from tests.support.fake_sql_node import Answer, FakeSqlNode, RunningFakeSqlNode
from tests.support.scraping import PASSWORD, gauge_collector


@pytest.fixture(name="node")
def fake_node():
    """A fake SQL node whose ndbinfo.nodes lists data nodes 1 and 2."""
    fake = FakeSqlNode(
        password=PASSWORD,
        answers={"SELECT node_id FROM ndbinfo.nodes": Answer(["node_id"], [(1,), (2,)])},
    )
    with RunningFakeSqlNode(fake) as running:
        yield running


@pytest.fixture(name="client")
async def exporter_client(node):
    """An HTTP client of the exporter's app in-process: `node` is the default target, the auth
    modules are client.other and client.third, and /probe may reach 127.0.0.*."""
    settings = Settings(probe_allowed_targets=("127.0.0.*:*",))
    client_sections = {
        "client": ClientSection(user="exporter", password=PASSWORD),
        "client.other": ClientSection(
            user="other",
            password=PASSWORD,
            host="db7",
            port=3307,
            probe_targets=(f"127.0.0.1:{node.port}",),
        ),
        "client.third": ClientSection(user="third", password="third-secret", host="db8"),
    }
    targets = build(
        client_sections, f"127.0.0.1:{node.port}", None, None, settings.probe_allowed_targets
    )
    scraper = Scraper(
        [gauge_collector("fast", "SELECT node_id FROM ndbinfo.nodes")],
        {},
        max_connections=2,
        query_timeout=5,
        refresh_max_age=settings.refresh_max_age,
    )
    app = create_app(settings, targets, scraper)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://exporter") as http:
        yield http
    scraper.close()
