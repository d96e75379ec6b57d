"""The findings of ``report`` are those the view's /api/v1/findings serves for the same scrape."""

from __future__ import annotations

import httpx
import pytest
from ndb_harness import running_ndbsim
from ndbinfo_exporter.app import create_app
from ndbinfo_exporter.collectors.registry import all_collectors
from ndbinfo_exporter.report import document, render
from ndbinfo_exporter.report.options import parse_options
from ndbinfo_exporter.report.reading import read, scraper_for
from ndbinfo_exporter.targets import build

from tests.report.report_cli import of

pytestmark = pytest.mark.integration

PASSWORD = "report-api-pw-3h8"


async def test_report_findings_equal_the_api_findings(monkeypatch):
    monkeypatch.setenv("NDB_EXPORTER_PASSWORD", PASSWORD)
    with running_ndbsim(password=PASSWORD) as sim:
        sim.stop_node(2)  # a problem with evidence from the scrape and the placement
        options = parse_options("report", of(sim), all_collectors())
        settings = options.settings
        targets = build({}, settings.mysqld_address, settings.mysqld_username, PASSWORD, ())
        scraper = scraper_for(settings, all_collectors())
        app = create_app(settings, targets, scraper)
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://view") as client:
            api = (await client.get("/api/v1/findings")).json()
        scraped = scraper.last(targets.default.name)
        reading = await read(scraper, targets.default, settings, None)
        scraper.close()
    assert reading.result is scraped  # the same scrape
    report = document.build(reading)
    extra = {"family", "needs_history"}
    assert [f.model_dump(mode="json", exclude=extra) for f in report.findings] == api["findings"]
    assert any(f["status"] == "problem" for f in api["findings"])
    text = render.text(report)
    for finding in api["findings"]:
        assert finding["summary"] in text
