"""The view's HTTP side over a scraper that serves recorded data and counts what it is asked."""

from __future__ import annotations

import asyncio
import dataclasses
import re

import httpx
import pytest
from ndbinfo_exporter.health import thresholds
from ndbinfo_exporter.scrape.mgmd import protocol
from ndbinfo_exporter.targets import TargetConfig, Targets
from ndbinfo_exporter.view import source as source_module
from ndbinfo_exporter.view.source import LAST_REFRESH
from prometheus_client.core import GaugeMetricFamily

from tests.health.scrape_data import Result, cluster, placement_rows, replica_rows
from tests.view.recorded_scraper import RecordedScraper, clock, recorded_manager, view_app


@pytest.fixture
def scraper():
    shape = {"tables": 5, "dbs": ("app", "shop")}
    return RecordedScraper(cluster(), placement_rows(**shape), replica_rows(**shape))


@pytest.fixture
def app(scraper, monkeypatch):
    monkeypatch.setattr(clock, "now", 1000.0)
    targets = Targets(
        default=TargetConfig("127.0.0.1", 3306, "exporter"),
        auth_modules={},
        allowed_patterns=("10.0.0.*:3306", "db7:3306"),
    )
    return view_app(scraper, targets)


@pytest.fixture
async def client(app):
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://view") as http:
        yield http


async def test_landing_page_keeps_the_links(client):
    page = await client.get("/")
    assert page.status_code == 200
    for link in ('href="/metrics"', 'href="/healthz"', 'href="/docs"', "0.1.0"):
        assert link in page.text
    # The page's bars turn amber and red at the findings' thresholds.
    levels = (
        f'data-data-memory="{thresholds.DATA_MEMORY_WARNING} {thresholds.DATA_MEMORY_CRITICAL}"'
    )
    assert levels in page.text
    assert f'data-redo="{thresholds.REDO_WARNING} {thresholds.REDO_CRITICAL}"' in page.text
    assert "script-src 'self'" in page.headers["content-security-policy"]
    missing = await client.get("/static/view/../view.py")
    assert missing.status_code == 404


async def test_the_page_script_and_every_module_it_imports_are_served_as_javascript(client):
    wanted, seen = ["view.js"], set()
    while wanted:
        name = wanted.pop()
        seen.add(name)
        answer = await client.get(f"/static/view/{name}")
        assert answer.status_code == 200, name
        assert "javascript" in answer.headers["content-type"], name
        imported = re.findall(r'^import .* from "\./([\w.]+)";$', answer.text, re.M)
        wanted += [module for module in imported if module not in seen]
    assert len(seen) > 1


async def test_openapi_describes_the_api(client):
    schema = (await client.get("/openapi.json")).json()
    for path in ("/api/v1/cluster", "/api/v1/placement", "/api/v1/findings", "/api/v1/config"):
        assert path in schema["paths"]
    assert "PlacementView" in schema["components"]["schemas"]
    assert (await client.get("/docs")).status_code == 200


def distribution_read_at(result: Result, at: float) -> Result:
    """``result`` saying that the scrape read fragments and replicas at ``at``."""
    family = GaugeMetricFamily(LAST_REFRESH, "t", labels=["collector"])
    for name in ("fragments", "replicas"):
        family.add_metric([name], at)
    return dataclasses.replace(result, families=[*result.families, family])


async def refreshed(client) -> None:
    """Returns once the view's background refresh has finished (the counts are then final)."""
    for _ in range(500):
        if (await client.get("/api/v1/cluster")).headers["x-view-refreshing"] == "false":
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the view's refresh never finished")


async def test_concurrent_viewers_cause_one_collection_per_interval(client, scraper):
    """One scrape per interval, and the placement read again only when the scrape read the
    distribution again."""
    scraper.result = distribution_read_at(scraper.result, 900.0)
    paths = ["/api/v1/cluster", "/api/v1/placement", "/api/v1/findings", "/api/v1/config"] * 10
    answers = await asyncio.gather(*(client.get(p) for p in paths))
    assert {a.status_code for a in answers} == {200}
    assert (scraper.scrapes, len(scraper.queries)) == (1, 1)
    clock.now += 5  # within the interval: served from the cache
    await asyncio.gather(*(client.get(p) for p in paths))
    await refreshed(client)
    assert (scraper.scrapes, len(scraper.queries)) == (1, 1)
    clock.now += 10
    await asyncio.gather(*(client.get(p) for p in paths))
    await refreshed(client)
    assert (scraper.scrapes, len(scraper.queries)) == (2, 1)  # the distribution is the same
    scraper.result = distribution_read_at(cluster(), 1010.0)
    clock.now += 10
    await asyncio.gather(*(client.get(p) for p in paths))
    await refreshed(client)
    assert (scraper.scrapes, len(scraper.queries)) == (3, 2)


async def test_viewers_share_one_model_per_scrape(client, scraper, monkeypatch):
    builds = []
    build = source_module.build
    monkeypatch.setattr(source_module, "build", lambda *args: builds.append(1) or build(*args))
    paths = ["/api/v1/cluster", "/api/v1/findings", "/api/v1/config"] * 30
    await asyncio.gather(*(client.get(p) for p in paths))
    assert len(builds) == 2  # the first scrape's model, then the same with its placement
    await asyncio.gather(*(client.get(p) for p in paths))
    assert len(builds) == 2


async def test_an_unchanged_answer_is_a_304(client):
    first = await client.get("/api/v1/cluster")
    etag = first.headers["etag"]
    again = await client.get("/api/v1/cluster", headers={"If-None-Match": etag})
    assert (again.status_code, again.content, again.headers["etag"]) == (304, b"", etag)
    page = await client.get("/api/v1/placement", params={"page_size": 2})
    again = await client.get(
        "/api/v1/placement",
        params={"page_size": 2},
        headers={"If-None-Match": page.headers["etag"]},
    )
    assert again.status_code == 304
    other = await client.get("/api/v1/placement", params={"page_size": 3})
    assert other.headers["etag"] != page.headers["etag"]


async def test_fragments_of_one_table_are_read_when_asked_for_once(client, scraper):
    listed = (await client.get("/api/v1/placement", params={"db": "shop"})).json()
    table = listed["tables"][0]
    assert table["fragments"] == 4
    assert {n["node_id"] for n in table["nodes"]} == {1, 2, 3, 4}
    opened = await asyncio.gather(
        *(client.get(f"/api/v1/placement/{table['table_id']}") for _ in range(20))
    )
    assert {answer.status_code for answer in opened} == {200}
    for _ in range(3):
        detail = (await client.get(f"/api/v1/placement/{table['table_id']}")).json()
        assert [f["fragment_id"] for f in detail["fragments"]] == [0, 1, 2, 3]
        assert (detail["db"], detail["table"]) == ("shop", table["table"])
    assert sum("f.table_id =" in q for q in scraper.queries) == 1
    missing = await client.get("/api/v1/placement/999")
    assert (missing.status_code, missing.json()) == (404, {"error": "no user table with id 999"})


async def test_targets_follow_the_probe_allowlist(client, scraper):
    listing = (await client.get("/api/v1/targets")).json()
    assert listing["default"] == "127.0.0.1:3306"
    assert [t["name"] for t in listing["targets"]] == ["127.0.0.1:3306", "db7:3306"]
    assert listing["typed"] is True
    refused = await client.get("/api/v1/cluster", params={"target": "10.0.1.5:3306"})
    assert refused.status_code == 403
    assert "not in the allowed probe targets" in refused.json()["error"]
    assert (await client.get("/", params={"target": "10.0.1.5:3306"})).status_code == 403
    assert scraper.scrapes == 0
    allowed = await client.get("/api/v1/cluster", params={"target": "10.0.0.8:3306"})
    assert allowed.status_code == 200
    page = await client.get("/", params={"target": "db7:3306"})
    assert page.status_code == 200 and "db7:3306" in page.text


async def test_second_scrape_gives_a_window(client):
    first = (await client.get("/api/v1/cluster")).json()
    assert first["sql_efficiency"]["basis"] == "since SQL node start"
    clock.now += 11
    await refreshed(client)  # under load the refresh may outlast the viewer's grace
    second = (await client.get("/api/v1/cluster")).json()
    assert second["sql_efficiency"]["basis"] == "two scrapes"
    assert second["sql_efficiency"]["window_seconds"] == 11


async def test_placement_api_pages_and_filters(client):
    body = (await client.get("/api/v1/placement", params={"db": "shop", "page_size": 2})).json()
    assert (body["matched_tables"], body["pages"], len(body["tables"])) == (5, 3, 2)
    assert body["tables"][0]["db"] == "shop"
    assert [n["node_id"] for n in body["nodes"]] == [1, 2, 3, 4]


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ({"page": "0"}, "page: Input should be greater than or equal to 1"),
        ({"page_size": "100000"}, "page_size"),
        ({"node": "x"}, "node: Input should be a valid integer"),
        ({"page": "99"}, "page 99 is past the last page (1)"),
    ],
)
async def test_bad_parameters_are_clear_json_errors(client, query, message):
    answer = await client.get("/api/v1/placement", params=query)
    assert answer.status_code == 400
    assert message in answer.json()["error"]


async def test_unknown_endpoint_is_a_json_404(client):
    answer = await client.get("/api/v1/nothing")
    assert answer.status_code == 404
    assert answer.json() == {"error": "no API endpoint /api/v1/nothing"}


async def test_docs_use_swagger_ui_files_served_here(client):
    page = (await client.get("/docs")).text
    assert "cdn" not in page.lower()
    for name in ("swagger-ui-bundle.js", "swagger-ui.css", "favicon.png"):
        assert f'"/static/docs/{name}"' in page
        answer = await client.get(f"/static/docs/{name}")
        assert answer.status_code == 200
        assert len(answer.content) > 1000
    assert (await client.get("/static/docs/../routes.py")).status_code == 404


async def test_api_root_lists_the_endpoints(client):
    answer = await client.get("/api/v1/")
    assert answer.status_code == 200
    assert answer.json()["endpoints"] == [
        "/api/v1/alerts",
        "/api/v1/cluster",
        "/api/v1/config",
        "/api/v1/findings",
        "/api/v1/management",
        "/api/v1/nodes/{node_id}/restart-done",
        "/api/v1/nodes/{node_id}/safe-to-stop",
        "/api/v1/placement",
        "/api/v1/placement/{table_id}",
        "/api/v1/targets",
    ]
    alerts = (await client.get("/api/v1/alerts")).json()
    assert alerts == {"source": None, "alerts": [], "error": None}


async def test_collectors_that_failed_are_named_in_every_answer(client, scraper):
    error = "1296 (HY000): Got error 4009 'Cluster Failure' from NDB"
    scraper.result = dataclasses.replace(
        scraper.result, collector_errors={"config": error, "membership": error}
    )
    cluster_answer = (await client.get("/api/v1/cluster")).json()
    assert cluster_answer["collectors_failed"] == [
        {"collector": "config", "error": error},
        {"collector": "membership", "error": error},
    ]
    found = (await client.get("/api/v1/findings")).json()
    first = found["findings"][0]
    assert (first["id"], first["status"]) == ("cluster_not_visible", "problem")
    assert found["unknown"] == sum(1 for f in found["findings"] if f["status"] == "unknown")
    assert found["unknown"] >= 2
    config = (await client.get("/api/v1/config")).json()
    assert config["unknown"] == f"the config collector failed: {error}"


async def test_unreachable_sql_node(client, scraper):
    scraper.result = Result(
        up=False, error="Can't connect to MySQL server on '127.0.0.1:3306' (111)"
    )
    cluster_answer = await client.get("/api/v1/cluster")
    assert cluster_answer.status_code == 200
    assert cluster_answer.json()["up"] is False
    for path in ("/api/v1/placement", "/api/v1/config"):
        answer = await client.get(path)
        assert answer.status_code == 503
        assert answer.json()["error"].startswith(
            "SQL node 127.0.0.1:3306 is unreachable: Can't connect"
        )
    # The findings say why nothing is judged (and carry the alerts' verdict, if any).
    findings = (await client.get("/api/v1/findings")).json()
    assert (findings["up"], findings["findings"]) == (False, [])
    assert findings["error"].startswith("Can't connect")


async def test_failed_placement_query_is_reported_once_per_interval(client, scraper):
    async def refuse(target, sql, timeout):
        scraper.queries.append(sql)
        raise RuntimeError("1296 (HY000): Got error 157 'Connection to NDB failed' from NDBINFO")

    scraper.query = refuse
    for _ in range(3):
        answer = await client.get("/api/v1/placement")
        assert answer.status_code == 503
        assert "Connection to NDB failed" in answer.json()["error"]
    assert len(scraper.queries) == 1
    assert (await client.get("/api/v1/findings")).status_code == 200


async def test_a_failure_inside_the_view_is_a_json_500(client, scraper):
    scraper.result = dataclasses.replace(scraper.result, families=None)
    answer = await client.get("/api/v1/config")
    assert answer.status_code == 500
    assert answer.json() == {"error": "internal error (TypeError); see the exporter's log"}


async def test_a_probe_only_exporter_asks_for_a_target(scraper):
    targets = Targets(
        default=TargetConfig("localhost", 3306, "exporter"),
        auth_modules={},
        allowed_patterns=("db7:3306",),
        probe_only=True,
    )
    application = view_app(scraper, targets)
    transport = httpx.ASGITransport(app=application)
    async with httpx.AsyncClient(transport=transport, base_url="http://view") as http:
        listing = (await http.get("/api/v1/targets")).json()
        assert (listing["default"], [t["name"] for t in listing["targets"]]) == (
            None,
            ["db7:3306"],
        )
        answer = await http.get("/api/v1/cluster")
        assert answer.status_code == 400
        assert "choose one with ?target=" in answer.json()["error"]
        assert (await http.get("/")).status_code == 200
        assert (await http.get("/api/v1/cluster", params={"target": "db7:3306"})).status_code == 200
        assert scraper.scrapes == 1


async def test_cluster_answer_carries_the_replication_card(client, scraper):
    from tests.health.scrape_data import Channel, replication

    quiet = (await client.get("/api/v1/cluster")).json()["replication"]
    assert quiet == {
        "replicating": False,
        "channels": [],
        "applied": [],
        "binlog": None,
        "conflicts": None,
    }
    scraper.result = replication(
        cluster(current_gci=5040),
        channels=(
            Channel(
                sql="no",
                sql_error=1590,
                behind=None,
                relay_log_space=618373,
                retries=0,
                workers=((1, "off", 0),),
            ),
        ),
        applied={1: 4990},
        binlog={"buffered": 5040, "received": 5039, "handled": 5039, "written": 5039},
        server_id=2,
    )
    clock.now += 11  # the next scrape
    await refreshed(client)  # under load the refresh may outlast the viewer's grace
    card = (await client.get("/api/v1/cluster")).json()["replication"]
    assert card["replicating"] is True
    assert card["channels"] == [
        {
            "channel": "",
            "io_thread": "yes",
            "sql_thread": "no",
            "last_io_error_number": 0,
            "last_sql_error_number": 1590,
            "seconds_behind_source": None,
            "source_server_id": 1,
            "relay_log_space_bytes": 618373,
            "transaction_retries": 0,
            "workers": [{"worker": 1, "state": "off", "last_error_number": 0}],
        }
    ]
    assert card["applied"] == [{"server_id": 1, "applied_gci": 4990}]
    assert card["binlog"] == {
        "server_id": 2,
        "buffered_gci": 5040,
        "received_gci": 5039,
        "handled_gci": 5039,
        "written_gci": 5039,
        "committed_gci": 5040,
        "injector_lag_gcis": 1,
        "event_buffer_gcis": 1,
    }
    found = {f["id"]: f for f in (await client.get("/api/v1/findings")).json()["findings"]}
    assert found["binlog_gap"]["status"] == found["replication_stopped"]["status"] == "problem"
    assert found["binlog_injector_behind"]["status"] == "ok"
    schema = (await client.get("/openapi.json")).json()["components"]["schemas"]
    assert {"Replication", "ReplicaChannel", "ApplierWorker", "BinlogInjector"} <= set(schema)


async def test_management_card_shows_nodes_backup_and_latest_events(scraper, client, monkeypatch):
    """What the management server reader keeps (the last get status, the backups, the events
    newest first) is what /api/v1/management serves; without a reader it is a 404."""
    missing = await client.get("/api/v1/management")
    assert missing.status_code == 404 and "--mgmd.address" in missing.json()["error"]
    scraper.manager = recorded_manager(monkeypatch)
    clock.now += 60  # past the view's interval: the next request refreshes
    await client.get("/api/v1/management")
    await refreshed(client)
    answer = (await client.get("/api/v1/management")).json()

    assert answer["servers"] == [{"address": "mgm1:1186", "answered": True}]
    nodes = {n["node_id"]: n for n in answer["nodes"]}
    assert sorted(nodes) == [1, 2, 49, 50]
    assert (nodes[2]["status"], nodes[49]["node_type"]) == ("NO_CONTACT", "MGM")
    assert nodes[1]["version"] == "8.2.16" and nodes[50]["start_phase"] is None
    assert answer["last_backup"]["backup_id"] == 7
    assert (answer["last_backup"]["bytes"], answer["last_backup"]["records"]) == (
        2**32 + 2**20,
        5000,
    )
    assert (answer["backups_aborted"], answer["backups_failed_to_start"]) == (1, 0)
    events = answer["events"]
    assert [e["type"] for e in events] == [
        "BackupAborted",
        "NodeFailCompleted",
        "NDBStopStarted",
        "BackupCompleted",
        "BackupStarted",
    ]
    assert [e["severity"] for e in events[:3]] == ["ALERT", "ALERT", "INFO"]
    assert events[0]["text"] == "Backup 8 started from 50 has been aborted. Error: 1326"
    assert events[1]["text"] == "Node failure of node 2 completed"
    assert events[3]["text"].endswith(f"{2**32 + 2**20} bytes")


async def test_management_card_has_a_card_per_data_node_that_stopped_by_force(
    scraper, client, monkeypatch
):
    """/api/v1/management: node 2's last NDBStopForced, its exit code in NDB's words, what it
    usually means and its status at the last get status."""
    scraper.manager = recorded_manager(monkeypatch)
    crash = "type=59\ntime=0\nsource_nodeid=2\naction=0\nsignum=0\nerror=2305\nsphase=255"
    scraper.manager.state.record(protocol.event(crash.split("\n")))
    clock.now += 60
    await client.get("/api/v1/management")
    await refreshed(client)
    (card,) = (await client.get("/api/v1/management")).json()["forced_stops"]
    assert (card["node_id"], card["error"], card["signal"], card["start_phase"]) == (
        2,
        2305,
        0,
        None,
    )
    assert card["message"].startswith("Node lost connection to other nodes")
    assert (card["classification"], card["status_text"]) == (
        "arbitration_error",
        "Temporary error, restart node",
    )
    assert "arbitration" in card["meaning"] and card["status_now"] == "NO_CONTACT"
    schema = (await client.get("/openapi.json")).json()["components"]["schemas"]
    assert "ForcedStop" in schema


async def test_nodes_answer_whether_a_node_may_stop_and_whether_it_is_done(client, scraper):
    """/api/v1/nodes/N/safe-to-stop and /restart-done answer as check --safe-to-stop and
    --restart-done do (the health layer's one judgement); an id that names no node is a 404."""
    from tests.health.scrape_data import arbitration

    await refreshed(client)  # the healthy cluster first: the view keeps node 2's node group
    scraper.result = arbitration(cluster(stopped=(2,)), 49)
    clock.now += 11  # the next scrape
    await refreshed(client)
    lost = (await client.get("/api/v1/nodes/1/safe-to-stop")).json()
    assert (lost["state"], lost["node"], lost["question"]) == (
        "CRITICAL",
        "data node 1",
        "safe-to-stop",
    )
    assert lost["reasons"][0].startswith("node group 0 would be lost with it")
    assert (await client.get("/api/v1/nodes/3/safe-to-stop")).json()["state"] == "OK"
    gone = (await client.get("/api/v1/nodes/2/restart-done")).json()
    assert (gone["state"], gone["reasons"]) == ("CRITICAL", ["data node 2 is not connected"])
    missing = await client.get("/api/v1/nodes/99/safe-to-stop")
    assert missing.status_code == 404
    assert missing.json()["error"].startswith("node 99 is not a node of this cluster")
    assert (await client.get("/api/v1/nodes/0/restart-done")).status_code == 400


async def test_cluster_answer_lists_the_schema_changes_under_way(client, scraper):
    assert (await client.get("/api/v1/cluster")).json()["schema_changes"] == []
    moving = GaugeMetricFamily(
        "ndb_table_reorganize_progress_ratio", "t", labels=["database", "table"]
    )
    moving.add_metric(["shop", "orders"], 0.5)
    scraper.result = dataclasses.replace(cluster(), families=[*cluster().families, moving])
    clock.now += 11  # the next scrape
    await refreshed(client)
    found = (await client.get("/api/v1/cluster")).json()["schema_changes"]
    assert [(c["kind"], c["database"], c["table"], c["progress"]) for c in found] == [
        ("reorganize", "shop", "orders", 0.5)
    ]
    schema = (await client.get("/openapi.json")).json()["components"]["schemas"]
    assert "SchemaChange" in schema
