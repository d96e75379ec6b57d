"""The HTTP endpoints, served in-process against a MySQL-protocol server."""

from __future__ import annotations

import logging
import socket

import httpx
import pytest
from ndb_harness import running_exporter
from ndbinfo_exporter import logs
from ndbinfo_exporter.app import create_app, scrape_timeout
from ndbinfo_exporter.mycnf import ClientSection
from ndbinfo_exporter.scrape.scraper import Scraper
from ndbinfo_exporter.settings import Settings
from ndbinfo_exporter.targets import build
from prometheus_client.parser import text_string_to_metric_families

from tests.support.exporter_app import exporter_client, fake_node  # noqa: F401 (fixtures)
from tests.support.scraping import PASSWORD, gauge_collector


def parse(text: str) -> dict[str, list]:
    return {f.name: f.samples for f in text_string_to_metric_families(text)}


async def test_metrics(client):
    response = await client.get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain; version=0.0.4")
    families = parse(response.text)
    assert families["ndb_up"][0].value == 1
    assert {s.labels["collector"]: s.value for s in families["ndb_exporter_collector_success"]} == {
        "fast": 1
    }
    assert PASSWORD not in response.text


async def test_openmetrics_when_asked(client):
    response = await client.get(
        "/metrics", headers={"Accept": "application/openmetrics-text; version=1.0.0"}
    )
    assert response.headers["content-type"].startswith("application/openmetrics-text")
    assert response.text.rstrip().endswith("# EOF")


async def test_gzip_when_asked(client):
    """Prometheus sends Accept-Encoding: gzip; curl without --compressed does not."""
    zipped = await client.get("/metrics", headers={"Accept-Encoding": "gzip"})
    plain = await client.get("/metrics", headers={"Accept-Encoding": "identity"})
    assert zipped.headers["content-encoding"] == "gzip"
    assert "content-encoding" not in plain.headers
    assert "ndb_up 1.0" in zipped.text and "ndb_up 1.0" in plain.text


async def test_probe_allowed_target(client, node):
    response = await client.get("/probe", params={"target": f"127.0.0.1:{node.port}"})
    assert response.status_code == 200
    assert parse(response.text)["ndb_up"][0].value == 1


@pytest.mark.parametrize("accept", ["text/plain", "application/openmetrics-text"])
async def test_process_metrics_on_metrics_only(client, node, accept):
    """The exporter's own process metrics, as every exporter serves them, but not in a probe
    of another target."""
    own = ("process_cpu_seconds", "process_resident_memory_bytes", "python_info")
    metrics = await client.get("/metrics", headers={"Accept": accept})
    probe = await client.get("/probe", params={"target": f"127.0.0.1:{node.port}"})
    assert all(name in parse(metrics.text) for name in own)
    assert not any(name in parse(probe.text) for name in own)
    assert metrics.text.count("# EOF") == (1 if "openmetrics" in accept else 0)


async def test_probe_with_auth_module(client, node):
    response = await client.get(
        "/probe", params={"target": f"127.0.0.1:{node.port}", "auth_module": "other"}
    )
    assert response.status_code == 200
    assert parse(response.text)["ndb_up"][0].value == 1


@pytest.mark.parametrize("module", ["third", "THIRD"])
async def test_probe_never_sends_an_auth_module_elsewhere(client, node, module):
    """[client.third] names db8 only: its credentials go nowhere else, even to an allowed
    target."""
    response = await client.get(
        "/probe", params={"target": f"127.0.0.1:{node.port}", "auth_module": module}
    )
    assert response.status_code == 403
    assert "does not apply" in response.text
    assert node.queries == []  # no connection was even made


@pytest.mark.parametrize(
    "target", ["10.0.0.1:3306", "example.org:3306", "127.0.0.1.evil.example:3306", "db7:3306"]
)
async def test_probe_refuses_other_targets(client, target):
    response = await client.get("/probe", params={"target": target})
    assert response.status_code == 403
    assert "not in the allowed probe targets" in response.text
    assert len(response.text.splitlines()) == 1


async def test_probe_of_an_auth_module_host_is_allowed(client):
    # db7:3307 is the host:port of [client.other]; it does not resolve here, so the node is down.
    response = await client.get("/probe", params={"target": "db7:3307", "auth_module": "other"})
    assert response.status_code == 200
    assert parse(response.text)["ndb_up"][0].value == 0


async def test_probe_bad_requests(client):
    assert (await client.get("/probe")).status_code == 400
    unknown = await client.get("/probe", params={"target": "127.0.0.1:1", "auth_module": "nope"})
    assert unknown.status_code == 400


async def test_healthz_and_landing(client):
    assert (await client.get("/healthz")).text == "ok\n"
    landing = await client.get("/")
    assert landing.status_code == 200
    assert "/metrics" in landing.text


def test_scrape_timeout_from_prometheus_header():
    assert scrape_timeout("15", 0.5) == 14.5
    assert scrape_timeout(None, 0.5) == 9.5
    assert scrape_timeout("nonsense", 0.5) == 9.5
    assert scrape_timeout("0.4", 0.5) == 0.4  # offset larger than the timeout: not applied


async def test_down_target_error_is_redacted(node):
    logs.add_secret(PASSWORD)
    settings = Settings()
    targets = build({}, "127.0.0.1:1", "exporter", PASSWORD, ())
    scraper = Scraper(
        [], {}, max_connections=1, query_timeout=2, refresh_max_age=settings.refresh_max_age
    )
    app = create_app(settings, targets, scraper)
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://exporter"
    ) as http:
        response = await http.get("/metrics")
    scraper.close()
    assert parse(response.text)["ndb_up"][0].value == 0
    assert PASSWORD not in response.text
    assert PASSWORD not in (scraper.last("127.0.0.1:1").error or "")


@pytest.fixture
def connections(monkeypatch) -> list:
    """The address of every socket connection this process opens while the test runs."""
    opened: list = []
    connect = socket.socket.connect

    def counting(sock: socket.socket, address) -> None:
        opened.append(address)
        connect(sock, address)

    monkeypatch.setattr(socket.socket, "connect", counting)
    return opened


@pytest.mark.parametrize("accept", ["text/plain", "application/openmetrics-text"])
async def test_probe_only_metrics_connect_nowhere(node, connections, caplog, accept):
    """Without --mysqld.address and without host, port or socket in [client], /metrics serves
    the exporter's own metrics, as blackbox_exporter does: no connection, no log line."""
    caplog.set_level(logging.DEBUG)
    client_sections = {"client": ClientSection(user="exporter", password=PASSWORD)}
    targets = build(client_sections, None, None, None, ("127.0.0.*:*",))
    scraper = Scraper([gauge_collector("fast", "SELECT node_id FROM ndbinfo.nodes")], {}, 2, 5)
    app = create_app(Settings(), targets, scraper)
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://exporter"
    ) as http:
        responses = [await http.get("/metrics", headers={"Accept": accept}) for _ in range(3)]
        assert connections == []
        # httpx logs the test's own requests.
        assert [r.getMessage() for r in caplog.records if r.name != "httpx"] == []
        probe = await http.get("/probe", params={"target": f"127.0.0.1:{node.port}"})
        local = await http.get("/probe", params={"target": "localhost:3306"})
    scraper.close()
    for response in responses:
        assert response.status_code == 200
        families = parse(response.text)
        assert {"ndb_exporter_build_info", "process_cpu_seconds", "python_info"} <= set(families)
        assert "ndb_up" not in families
    assert parse(probe.text)["ndb_up"][0].value == 1 and connections  # connections are seen
    assert local.status_code == 403  # no default target to probe


@pytest.mark.parametrize(
    ("address", "client"),
    [
        ("db1:3306", ClientSection(user="u")),
        (None, ClientSection(user="u", host="db1")),
        (None, ClientSection(user="u", port=3307)),
        (None, ClientSection(user="u", socket="/run/mysqld/mysqld.sock")),
    ],
)
def test_an_address_or_a_client_server_is_a_default_target(address, client):
    assert not build({"client": client}, address, None, None, ()).probe_only


@pytest.mark.integration
def test_probe_only_exporter_logs_nothing_per_scrape():
    with running_exporter(
        ["--mysqld.username=exporter"], env={"NDB_EXPORTER_PASSWORD": PASSWORD}
    ) as exporter:
        for _ in range(3):
            response = httpx.get(f"http://{exporter.address}/metrics", timeout=30)
            assert response.status_code == 200 and "ndb_exporter_build_info" in response.text
    (line,) = [line for line in exporter.lines if "logger=ndbinfo_exporter" in line]
    assert "starting ndbinfo-exporter" in line and " target=none " in line
