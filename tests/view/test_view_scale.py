"""The cluster view of 48 data nodes (24 node groups) and 2,000 tables in headless Chromium:
every part stays within a 1400 px wide window.

    NDB_VIEW_SCREENSHOTS=1 .venv/bin/python -m pytest tests/view/test_view_scale.py

also writes docs/screenshots/view-48-nodes.png.
"""

from __future__ import annotations

import os
from pathlib import Path

import httpx
import pytest

from tests.view.view_stack import running_stack

pytestmark = [pytest.mark.integration, pytest.mark.browser]

SCREENSHOT_ENV = "NDB_VIEW_SCREENSHOTS"
SCREENSHOT = Path(__file__).resolve().parents[2] / "docs" / "screenshots" / "view-48-nodes.png"
# ndbsim takes a minute to build this cluster, the first scrape may take a few more.
FIRST_LOAD_MS = 600_000
QUERY_TIMEOUT = "120"


def test_forty_eight_data_nodes_and_two_thousand_tables(page):
    with running_stack(
        "--data-nodes",
        "48",
        "--tables",
        "2000",
        exporter_args=("--exporter.query-timeout", QUERY_TIMEOUT),
    ) as big:
        page.set_default_timeout(FIRST_LOAD_MS)
        page.goto(big.url + "/", timeout=FIRST_LOAD_MS)
        page.wait_for_selector("body[data-loaded]")
        # The placement is read after the first scrape; the page shows it once it is there.
        page.wait_for_function(
            "document.querySelectorAll('#placement tr[data-testid^=table-]').length === 50"
        )
        assert page.get_by_test_id("up").inner_text().startswith("SQL node up")

        assert page.locator("[data-testid^=nodegroup-]").count() == 24
        assert page.locator("[data-testid^=data-node-]").count() == 48
        assert page.locator("#resources tr[data-testid^=resources-]").count() == 48
        assert page.locator("#resources tr[data-testid^=group-resources-]").count() == 24
        # Node 47 is listed under the header of its node group.
        assert (
            page.locator("[data-testid=group-resources-23] ~ tr[data-testid=resources-47]").count()
            == 1
        )

        placement = httpx.get(f"{big.url}/api/v1/placement", timeout=120).json()
        assert placement["total_tables"] >= 2000
        assert page.get_by_test_id("page").inner_text() == f"page 1 of {placement['pages']}"
        assert page.locator("#placement th.ng").count() == 24
        assert page.locator("[data-testid^=heatgroup-]").count() == 24
        for node in placement["nodes"]:
            heat = page.get_by_test_id(f"heat-{node['node_id']}")
            assert heat.get_attribute("data-primaries") == str(node["primaries"])
        first = placement["tables"][0]
        row = page.get_by_test_id(f"table-{first['db']}.{first['table']}")
        for share in first["nodes"]:  # primaries alone, the rest in the tooltip
            slot = row.locator(f".slot[data-node='{share['node_id']}']")
            assert slot.inner_text() == str(share["primaries"])
            assert f"{share['backups']} backup" in slot.get_attribute("title")

        # Parameters: each value with its data nodes rather than a column per data node.
        config = httpx.get(f"{big.url}/api/v1/config", timeout=120).json()
        assert page.locator("[data-testid^=config-node-]").count() == 0
        for param in config["params"]:
            if not param["inconsistent"] and len(param["values"]) == 48:
                value = f"{param['values'][0]['value']:,.0f}"
                row = page.get_by_test_id(f"config-{param['param']}")
                assert row.locator("td.values").inner_text() == f"{value} on all 48"

        # Nothing is much wider than the window, and neither the placement nor the parameters
        # need a sideways scroll.
        width, window = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        assert width <= 1.1 * window, (width, window)
        table, box = page.locator("#placement").evaluate(
            "el => [el.scrollWidth, el.parentElement.clientWidth]"
        )
        assert table <= box, (table, box)
        table, box = page.locator("#config").evaluate(
            "el => [el.scrollWidth, el.parentElement.clientWidth]"
        )
        assert table <= box, (table, box)

        # One table's fragments at this size.
        key = f"{first['db']}.{first['table']}"
        page.get_by_test_id(f"open-{key}").click()
        fragments = page.locator(f"[data-testid='fragments-{key}'][data-loaded]")
        fragments.wait_for()
        assert fragments.locator("[data-testid^=fragment-]").count() == first["fragments"]
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 1.1 * window, (width, window)

        if os.environ.get(SCREENSHOT_ENV):
            SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SCREENSHOT), full_page=True)
