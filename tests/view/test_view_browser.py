"""The cluster view in headless Chromium against ndbsim and the exporter as real processes."""

from __future__ import annotations

import asyncio
import dataclasses
import re
import threading
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from ndb_harness import running_ndbsim
from ndbinfo_exporter.targets import TargetConfig, Targets

from tests.health.scrape_data import cluster, gauge, placement_rows, replica_rows
from tests.support.app_server import serving_app
from tests.support.planted_alerts import alert, prometheus_with_alerts
from tests.view.recorded_scraper import RecordedScraper, recorded_manager, view_app
from tests.view.view_stack import running_stack

pytestmark = [pytest.mark.integration, pytest.mark.browser, pytest.mark.long(minutes=3)]

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
    # A column per node group; each table's replicas per data node, P primaries, B backups.
    assert page.locator("#placement th.ng").count() == len(cluster["topology"]["node_groups"])
    for table in placement["tables"][:5]:
        row = page.get_by_test_id(f"table-{table['db']}.{table['table']}")
        for share in table["nodes"]:
            slot = row.locator(f".slot[data-node='{share['node_id']}']")
            assert slot.inner_text() == f"P{share['primaries']} B{share['backups']}"
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
    assert all(any(n["node_id"] == 3 for n in t["nodes"]) for t in body["tables"])
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
            n
            for t in placement["tables"]
            for n in t["nodes"]
            if n["node_id"] == 2 and n["primaries"] + n["backups"] > 0
        ]
        assert alive_on_2 == []
        assert sum(t["dead_replicas"] for t in placement["tables"]) > 0
        # A table's fragments mark the replicas on node 2 dead.
        dead_table = next(t for t in placement["tables"] if t["dead_replicas"])
        key = f"{dead_table['db']}.{dead_table['table']}"
        page.get_by_test_id("filter-table").fill(dead_table["table"])
        page.get_by_test_id(f"open-{key}").click()
        fragments = page.locator(f"[data-testid='fragments-{key}'][data-loaded]")
        fragments.wait_for(timeout=CHANGE_TIMEOUT_MS)  # the placement may be read first
        dead = fragments.get_by_test_id("dead-replica")
        assert dead.count() == dead_table["dead_replicas"]
        assert {dead.nth(i).inner_text() for i in range(dead.count())} == {"2"}
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
        findings = httpx.get(f"{small.url}/api/v1/findings").json()
        assert (findings["up"], findings["findings"]) == (False, [])
        assert findings["error"]


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
        # the pill follows the cluster model, refreshed apart from the findings
        page.wait_for_function(
            "t => document.querySelector('[data-testid=up]').innerText === t",
            arg="SQL node up · no data node ready",
            timeout=CHANGE_TIMEOUT_MS,
        )
        assert "pill down" in page.get_by_test_id("up").get_attribute("class")
        assert "Every parameter has its default" not in page.get_by_test_id("config").inner_text()
        api = httpx.get(f"{small.url}/api/v1/findings").json()
        assert api["findings"][0]["id"] == "cluster_not_visible"
        assert not any(f["status"] == "ok" for f in api["findings"])


def test_a_rolling_upgrade_left_half_done_is_two_findings(page, stack):
    try:
        load(page, stack.url)
        stack.sim.fault("old-version", node=2)
        stack.sim.fault("old-config-generation", node=3)
        versions = page.locator("[data-testid=finding-version_skew][data-status=problem]")
        versions.wait_for(timeout=CHANGE_TIMEOUT_MS)
        generations = page.locator(
            "[data-testid=finding-config_generation_skew][data-status=problem]"
        )
        generations.wait_for(timeout=CHANGE_TIMEOUT_MS)
        found = {f["id"]: f for f in httpx.get(f"{stack.url}/api/v1/findings").json()["findings"]}
        evidence = {e["label"]: e["value"] for e in found["version_skew"]["evidence"]}
        assert "data node 2" in evidence.values()
        assert {e["label"]: e["value"] for e in found["config_generation_skew"]["evidence"]} == {
            "generation 2": "data nodes 1, 2 and 4",
            "generation 1": "data node 3",
        }
    finally:
        stack.sim.reset()


def placement_renders(page) -> int:
    return int(page.get_by_test_id("placement").get_attribute("data-renders") or 0)


def test_opening_a_table_reads_its_fragments_once(page, stack):
    details: list[str] = []
    page.on(
        "request",
        lambda r: details.append(r.url) if re.search(r"/api/v1/placement/\d+", r.url) else None,
    )
    load(page, stack.url)
    placement = httpx.get(f"{stack.url}/api/v1/placement").json()
    table = placement["tables"][0]
    key = f"{table['db']}.{table['table']}"
    opener = page.get_by_test_id(f"open-{key}")
    assert opener.get_attribute("aria-expanded") == "false"
    assert page.locator("[data-testid^=fragments-]").count() == 0
    assert details == []
    with page.expect_response(
        lambda r: urlsplit(r.url).path == f"/api/v1/placement/{table['table_id']}"
    ) as answer:
        opener.click()
    detail = answer.value.json()
    fragments = page.locator(f"[data-testid='fragments-{key}'][data-loaded]")
    fragments.wait_for()
    assert page.get_by_test_id(f"open-{key}").get_attribute("aria-expanded") == "true"

    def shown() -> list[str]:
        chips = fragments.locator("[data-testid^=fragment-]")
        return [chips.nth(i).inner_text() for i in range(chips.count())]

    expected = [
        " ".join([f"#{f['fragment_id']}", "·".join(map(str, [f["primary"], *f["backups"]]))])
        for f in detail["fragments"]
    ]
    assert len(detail["fragments"]) == table["fragments"]
    assert shown() == expected
    assert details == [answer.value.url]

    # The page refreshes the placement every 10 s: the open table keeps its fragments
    # and they are not read again.
    renders = placement_renders(page)
    page.wait_for_function(
        "n => Number(document.querySelector('[data-testid=placement]').dataset.renders) > n",
        arg=renders,
        timeout=CHANGE_TIMEOUT_MS,
    )
    assert shown() == expected
    assert len(details) == 1

    page.get_by_test_id(f"open-{key}").click()  # close
    assert page.locator("[data-testid^=fragments-]").count() == 0
    assert page.get_by_test_id(f"open-{key}").get_attribute("aria-expanded") == "false"
    with page.expect_response(lambda r: "/api/v1/placement/" in r.url):
        page.get_by_test_id(f"open-{key}").click()  # open again: read again
    fragments.wait_for()
    assert shown() == expected
    assert len(details) == 2


def test_target_picker_shows_allowed_sql_nodes_and_refuses_others(page):
    with (
        running_ndbsim("--data-nodes", "2", "--tables", "5") as other,
        running_stack(
            "--data-nodes",
            "4",
            "--tables",
            "5",
            exporter_args=("--probe.allowed-targets", f"127.0.0.1:{other.port},10.0.*:3306"),
        ) as stack,
    ):
        default, second = f"127.0.0.1:{stack.sim.port}", f"127.0.0.1:{other.port}"
        api_calls: list[str] = []
        page.on("request", lambda r: api_calls.append(r.url) if "/api/v1/" in r.url else None)
        load(page, stack.url)
        assert page.get_by_test_id("target").inner_text() == default
        select = page.get_by_test_id("target-select")
        options = select.locator("option")
        labels = [options.nth(i).inner_text() for i in range(options.count())]
        assert labels == [f"{default} · default target", f"{second} · allowed target"]
        assert select.evaluate("el => el.selectedOptions[0].textContent").startswith(default)
        assert page.locator("[data-testid^=data-node-]").count() == 4

        api_calls.clear()
        with page.expect_navigation():
            select.select_option(label=f"{second} · allowed target")
        assert parse_qs(urlsplit(page.url).query) == {"target": [second]}
        page.wait_for_selector("body[data-loaded]")
        assert page.get_by_test_id("target").inner_text() == second
        assert page.locator("[data-testid^=data-node-]").count() == 2
        assert page.get_by_test_id("banner").is_hidden()
        for path in ("cluster", "placement", "findings", "config"):
            calls = [u for u in api_calls if urlsplit(u).path == f"/api/v1/{path}"]
            assert calls and all(parse_qs(urlsplit(u).query)["target"] == [second] for u in calls)

        # Other targets may be typed in (a pattern allows them); the default is one of them.
        page.get_by_test_id("target-input").fill(default)
        with page.expect_navigation():
            page.get_by_test_id("target-input").press("Enter")
        assert parse_qs(urlsplit(page.url).query) == {"target": [default]}
        page.wait_for_selector("body[data-loaded]")
        assert page.locator("[data-testid^=data-node-]").count() == 4

        refused = page.goto(f"{stack.url}/?target=10.9.9.9:3306")
        assert refused.status == 403
        banner = page.get_by_test_id("banner")
        banner.wait_for(state="visible")
        assert "10.9.9.9:3306" in banner.inner_text()
        assert "is not in the allowed probe targets" in banner.inner_text()
        assert banner.get_attribute("data-kind") == "refused"
        assert page.get_by_test_id("up").inner_text() == "no SQL node shown"
        assert page.locator("#main").is_hidden()
        assert page.get_by_test_id("target-select").is_visible()


def test_without_a_default_sql_node_the_page_asks_for_one(page, stack):
    """An exporter without a default target (its /api/v1/targets says so, here stubbed) gets
    a prompt and the picker, and the page asks no SQL node's API."""
    listing = {
        "default": None,
        "targets": [{"name": "db7:3306", "label": "my.cnf [client.db7]", "auth_module": "db7"}],
        "typed": False,
    }
    page.route("**/api/v1/targets", lambda route: route.fulfill(json=listing))
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if "/api/v1/" in r.url else None)
    page.goto(stack.url + "/")
    banner = page.get_by_test_id("banner")
    banner.wait_for(state="visible")
    assert "no default SQL node" in banner.inner_text()
    assert banner.get_attribute("data-kind") == "prompt"
    select = page.get_by_test_id("target-select")
    assert select.evaluate("el => el.value") == ""
    assert select.locator("option").nth(1).inner_text() == "db7:3306 · my.cnf [client.db7]"
    assert page.get_by_test_id("target-input").count() == 0
    assert page.locator("#main").is_hidden()
    assert [urlsplit(u).path for u in asked] == ["/api/v1/targets"]
    with page.expect_request(lambda r: urlsplit(r.url).path == "/") as navigation:
        select.select_option(label="db7:3306 · my.cnf [client.db7]")
    query = parse_qs(urlsplit(navigation.value.url).query)
    assert query == {"target": ["db7:3306"], "auth_module": ["db7"]}


# ---- the page's own behaviour, over recorded data (no ndbsim needed) ----


def recorded_view(alerts_url: str | None = None, manager=None, extra=()):
    """The view over scrape_data's cluster, with the metric families ``extra`` added."""
    result = cluster()
    result = dataclasses.replace(result, families=[*result.families, *extra])
    scraper = RecordedScraper(result, placement_rows(tables=30), replica_rows(tables=30))
    scraper.manager = manager
    targets = Targets(
        default=TargetConfig("127.0.0.1", 3306, "exporter"), auth_modules={}, allowed_patterns=()
    )
    return view_app(scraper, targets, alerts_url)


def test_alert_links_are_http_only_and_the_page_works_under_its_csp(page, monkeypatch):
    violations: list[str] = []
    dialogs: list[str] = []
    page.on(
        "console",
        lambda m: violations.append(m.text) if "Content Security Policy" in m.text else None,
    )
    page.on("dialog", lambda d: dialogs.append(d.message) or d.dismiss())
    planted = prometheus_with_alerts(
        [
            alert("NdbDataNodeDown", "javascript:alert(1)"),
            alert("NdbDataMemoryHigh", "https://runbooks.example/memory"),
        ]
    )
    manager = recorded_manager(monkeypatch)
    with (
        serving_app(planted) as alerts_url,
        serving_app(recorded_view(alerts_url, manager)) as url,
    ):
        answer = page.goto(url + "/")
        policy = answer.headers["content-security-policy"]
        assert "script-src 'self'" in policy and "unsafe-inline" not in policy
        page.wait_for_selector("body[data-loaded]")
        planted_alert = page.get_by_test_id("alert-NdbDataNodeDown")
        planted_alert.wait_for()
        assert planted_alert.get_by_test_id("runbook").count() == 0
        # A firing alert is a finding too, at its severity: the findings say what paged.
        card = page.get_by_test_id("finding-alert_NdbDataNodeDown")
        assert card.get_attribute("class") == "finding critical"
        hrefs = page.locator("#alerts a").evaluate_all("links => links.map(a => a.href)")
        assert hrefs and all(h.startswith(("http://", "https://")) for h in hrefs)
        assert "https://runbooks.example/memory" in hrefs
        # Styles set from the script (the bars' widths) work under the policy.
        widths = page.locator(".bar > span").evaluate_all("s => s.map(e => e.style.width)")
        assert widths and all(w.endswith("%") for w in widths)
        # The management server's card: the newest event first, coloured by its severity.
        assert page.get_by_test_id("management-section").is_visible()
        newest = page.get_by_test_id("event-0")
        assert newest.get_attribute("data-value") == "BackupAborted"
        assert newest.evaluate("r => getComputedStyle(r).backgroundColor") != "rgba(0, 0, 0, 0)"
        assert page.locator("#events tbody tr").count() == 5
        assert page.get_by_test_id("managed-node-2").get_attribute("data-value") == "NO_CONTACT"
        assert page.get_by_test_id("backup-id").get_attribute("data-value") == "7"
    assert (violations, dialogs) == ([], [])


def test_a_restarting_data_node_shows_its_step_and_estimate(page):
    restart = [
        gauge("ndb_restart_status", {"node_id": "3", "status": "Restore fragments ongoing"}),
        gauge("ndb_restart_progress_ratio", {"node_id": "3"}, 0.42),
        gauge("ndb_restart_remaining_seconds", {"node_id": "3"}, 95),
    ]
    with serving_app(recorded_view(extra=restart)) as url:
        load(page, url)
        shown = page.get_by_test_id("restart-3").inner_text()
        assert shown == "Restore fragments ongoing · 42 % done · about 95 s left"
        assert page.locator("[data-testid^=restart-]").count() == 1


def test_a_finding_opened_stays_open_across_refreshes(page):
    page.clock.install()
    with serving_app(recorded_view()) as url:
        load(page, url)
        problem = page.locator("#findings > [data-testid^=finding-]").first
        problem.locator("summary").click()
        page.get_by_test_id("passed-checks").locator("> summary").click()
        opened = problem.get_attribute("data-testid")
        for _ in range(3):
            refreshes = int(page.locator("body").get_attribute("data-refreshes"))
            page.clock.run_for(10_000)
            page.wait_for_function(
                "n => Number(document.body.dataset.refreshes) > n", arg=refreshes
            )
        assert page.get_by_test_id(opened).evaluate("d => d.open")
        assert page.get_by_test_id("passed-checks").evaluate("d => d.open")


def test_a_filter_typed_fast_shows_the_answer_to_the_last_keystroke(page):
    """The answer to "t" comes after the answer to "t1": the page keeps showing "t1"."""
    application = recorded_view()
    slow_done = threading.Event()

    @application.middleware("http")
    async def slow_first_keystroke(request, call_next):
        response = await call_next(request)
        if request.query_params.get("table") == "t":
            await asyncio.sleep(1.0)
            slow_done.set()
        return response

    page.clock.install()
    with serving_app(application) as url:
        load(page, url)
        box = page.get_by_test_id("filter-table")
        box.press_sequentially("t")
        with page.expect_request(lambda r: "table=t&" in r.url or r.url.endswith("table=t")):
            page.clock.run_for(300)  # the filter waits 250 ms after a keystroke
        box.press_sequentially("1")
        page.clock.run_for(300)
        placement = page.get_by_test_id("placement")
        page.wait_for_function(
            "() => (document.querySelector('[data-testid=placement]').dataset.query || '')"
            ".endsWith('table=t1')"
        )
        assert slow_done.wait(10)
        page.wait_for_timeout(300)  # room for the slow answer to land, were it to be shown
        assert placement.get_attribute("data-query").endswith("table=t1")
        names = page.locator("#placement .tname").all_inner_texts()
        assert names and all("t1" in name for name in names)
