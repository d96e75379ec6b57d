"""/docs (Swagger UI) renders with no network: its files come from the exporter itself."""

from __future__ import annotations

import pytest
from ndb_harness import running_exporter

pytestmark = [pytest.mark.integration, pytest.mark.browser]


def test_docs_render_without_any_request_off_the_exporter(page):
    args = ["--mysqld.address=127.0.0.1:1", "--mysqld.username=exp"]
    with running_exporter(args) as exporter:
        base = f"http://{exporter.address}"
        elsewhere: list[str] = []

        def only_the_exporter(route):
            if route.request.url.startswith(base + "/"):
                route.continue_()
            else:  # no network: anything off the exporter fails, and is recorded
                elsewhere.append(route.request.url)
                route.abort("internetdisconnected")

        page.route("**/*", only_the_exporter)
        page.goto(f"{base}/docs")
        page.locator(".swagger-ui .info .title").wait_for(timeout=30_000)
        assert "ndbinfo-exporter" in page.locator(".swagger-ui .info .title").inner_text()
        page.locator(".opblock-summary-path", has_text="/api/v1/findings").wait_for()
        assert page.locator(".opblock").count() >= 5
        assert elsewhere == []
