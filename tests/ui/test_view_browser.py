"""The cluster view in headless Chromium against ndbsim and the exporter as real processes."""

from __future__ import annotations

import httpx
import pytest
from view_stack import running_stack

pytestmark = [pytest.mark.integration, pytest.mark.browser]

# Long enough for the view's 10 s refresh interval plus the page's own 10 s refresh.
CHANGE_TIMEOUT_MS = 45_000


@pytest.fixture(scope="module")
def stack():
    with running_stack("--data-nodes", "4", "--tables", "30") as running:
        yield running


def load(page, url):
    page.goto(url + "/")
    page.wait_for_selector("body[data-loaded]")


def test_page_renders_the_topology(page, stack):
    load(page, stack.url)
    groups = page.locator("[data-testid^=nodegroup-]")
    assert groups.count() == 2
    for node in (1, 2, 3, 4):
        tile = page.get_by_test_id(f"data-node-{node}")
        assert tile.get_attribute("data-state") == "STARTED"
    assert page.get_by_test_id("up").inner_text() == "SQL node up"
    assert page.locator("#topology .chip").count() >= 2  # management and SQL nodes
    assert page.locator("[data-testid^=finding-]").count() >= 9
    assert page.get_by_test_id("banner").is_hidden()
    footer = page.locator("footer").inner_text()
    for link in ("Metrics", "Health", "API docs (OpenAPI)", "0.1.0"):
        assert link in footer


def test_numbers_on_the_page_match_the_api(page, stack):
    for _ in range(3):  # the data may refresh between reading the page and the API
        load(page, stack.url)
        shown_at = page.get_by_test_id("scraped-at").get_attribute("data-value")
        cluster = httpx.get(f"{stack.url}/api/v1/cluster").json()
        placement = httpx.get(f"{stack.url}/api/v1/placement").json()
        findings = httpx.get(f"{stack.url}/api/v1/findings").json()
        if str(cluster["scraped_at"]) == shown_at:
            break
    else:
        pytest.fail("the view refreshed on every attempt")
    lcp = cluster["lcp"]
    assert page.get_by_test_id("lcp-id").inner_text() == f"{lcp['lcp_id']:,}"
    assert page.get_by_test_id("lcp-ongoing").inner_text() == f"{lcp['replicas_lcp_ongoing']:,}"
    for resources in cluster["resources"]:
        cell = page.get_by_test_id(f"data-memory-{resources['node_id']}")
        assert cell.inner_text().startswith(f"{resources['data_memory_ratio'] * 100:.1f} %")
    ready = cluster["sql_node"]["data_nodes_ready"]
    assert page.get_by_test_id("data-nodes-ready").inner_text().startswith(f"{ready} /")
    assert (
        page.get_by_test_id("placement-count")
        .inner_text()
        .startswith(f"{placement['matched_tables']:,} of {placement['total_tables']:,} tables")
    )
    for node in placement["nodes"]:
        heat = page.get_by_test_id(f"heat-{node['node_id']}")
        assert heat.get_attribute("data-primaries") == str(node["primaries"])
        assert heat.get_attribute("data-replicas") == str(node["replicas"])
    shown_rows = page.locator("#placement tr[data-testid^=table-]").count()
    assert shown_rows == len(placement["tables"])
    problems = sum(1 for f in findings["findings"] if f["status"] == "problem")
    assert page.get_by_test_id("findings-count").inner_text().startswith(f"{problems} problem")


def test_filters_narrow_the_placement_map(page, stack):
    load(page, stack.url)
    with page.expect_response(
        lambda r: "/api/v1/placement" in r.url and "node=3" in r.url
    ) as answer:
        page.get_by_test_id("filter-node").select_option("3")
    body = answer.value.json()
    expected = f"{body['matched_tables']:,} of {body['total_tables']:,} tables"
    page.wait_for_function(
        "t => document.querySelector('[data-testid=placement-count]').innerText.startsWith(t)",
        arg=expected,
    )
    assert all(
        any(3 in [f["primary"], *f["backups"], *f["dead"]] for f in t["fragments"])
        for t in body["tables"]
    )
    tables = {f"{t['db']}.{t['table']}" for t in body["tables"]}
    rows = page.locator("#placement tr[data-testid^=table-]")
    shown = {
        rows.nth(i).get_attribute("data-testid").removeprefix("table-") for i in range(rows.count())
    }
    assert shown == tables


def test_stopped_data_node_and_its_dead_replicas(page, stack):
    stack.sim.stop_node(2)
    try:
        load(page, stack.url)
        page.wait_for_selector(
            "[data-testid=data-node-2][data-state=STOPPED]", timeout=CHANGE_TIMEOUT_MS
        )
        page.wait_for_selector("[data-testid=dead-replica]", timeout=CHANGE_TIMEOUT_MS)
        group = page.locator("[data-testid^=nodegroup-]", has=page.get_by_test_id("data-node-2"))
        assert "1/2 running" in group.inner_text()
        assert int(page.get_by_test_id("heat-2").get_attribute("data-dead")) > 0
        # The stopped node keeps its column in the parameters table; tiles do not wrap.
        assert page.get_by_test_id("config-node-2").inner_text() == "Node 2 (stopped)"
        heat = page.get_by_test_id("heat-1")
        assert heat.evaluate("el => getComputedStyle(el).whiteSpace") == "nowrap"
        dead = page.get_by_test_id("finding-dead_replicas")
        assert dead.get_attribute("data-status") == "problem"
        placement = httpx.get(f"{stack.url}/api/v1/placement", params={"node": 2}).json()
        alive_on_2 = [
            f
            for t in placement["tables"]
            for f in t["fragments"]
            if 2 in [f["primary"], *f["backups"]]
        ]
        assert alive_on_2 == []
        assert sum(t["dead_replicas"] for t in placement["tables"]) > 0
    finally:
        stack.sim.start_node(2)


def test_unreachable_sql_node_shows_a_clear_message(page):
    with running_stack("--data-nodes", "2", "--tables", "5") as small:
        load(page, small.url)
        assert page.get_by_test_id("banner").is_hidden()
        small.sim.fault("refuse-connections")
        small.sim.fault("drop-connections")
        banner = page.get_by_test_id("banner")
        banner.wait_for(state="visible", timeout=CHANGE_TIMEOUT_MS)
        assert "is unreachable (ndb_up 0)" in banner.inner_text()
        assert page.get_by_test_id("up").inner_text() == "SQL node down"
        answer = httpx.get(f"{small.url}/api/v1/findings")
        assert answer.status_code == 503
        assert "unreachable" in answer.json()["error"]


def test_outage_and_lost_arbitrator_are_findings_never_no_problems(page):
    with running_stack("--data-nodes", "2", "--tables", "5") as small:
        load(page, small.url)
        assert page.get_by_test_id("up").inner_text() == "SQL node up"
        small.sim.fault("arbitrator-lost")
        lost = page.locator("[data-testid=finding-no_arbitrator][data-status=problem]")
        lost.wait_for(timeout=CHANGE_TIMEOUT_MS)
        small.sim.stop_node(1)
        small.sim.stop_node(2)
        down = page.locator("[data-testid=finding-cluster_not_visible][data-status=problem]")
        down.wait_for(timeout=CHANGE_TIMEOUT_MS)
        assert down.locator(".sev").inner_text().lower() == "critical"
        assert "No data node is ready" in down.inner_text()
        assert "1296" in down.inner_text()
        findings = page.get_by_test_id("findings").inner_text()
        assert "No problems found" not in findings
        assert page.locator("[data-testid=passed-checks] [data-status=ok]").count() == 0
        assert page.locator("[data-testid=unknown-checks] [data-status=unknown]").count() >= 5
        assert page.get_by_test_id("up").inner_text() == "SQL node up · no data node ready"
        assert "pill down" in page.get_by_test_id("up").get_attribute("class")
        assert "Every parameter has its default" not in page.get_by_test_id("config").inner_text()
        api = httpx.get(f"{small.url}/api/v1/findings").json()
        assert api["findings"][0]["id"] == "cluster_not_visible"
        assert not any(f["status"] == "ok" for f in api["findings"])
