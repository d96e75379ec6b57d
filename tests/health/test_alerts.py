"""The view's alerts from a Prometheus or Alertmanager answer (recorded shapes of both APIs)."""

from __future__ import annotations

import httpx
import pytest
from ndbinfo_exporter.health.alerts import AlertSource, AlertsUrlError, parse_url, public

PROMETHEUS = {
    "status": "success",
    "data": {
        "alerts": [
            {
                "labels": {
                    "alertname": "NdbDataNodeDown",
                    "severity": "critical",
                    "cluster": "demo",
                    "node_id": "2",
                },
                "annotations": {
                    "summary": "Data node 2 is down",
                    "runbook_url": "https://x/runbook#ndbdatanodedown",
                },
                "state": "pending",
                "activeAt": "2026-11-23T16:00:00Z",
                "value": "1e+00",
            },
            {
                "labels": {
                    "alertname": "NdbNoArbitrator",
                    "severity": "warning",
                    "cluster": "demo",
                },
                "annotations": {"summary": "The cluster has no running arbitrator"},
                "state": "firing",
                "activeAt": "2026-11-23T15:58:00Z",
                "value": "1e+00",
            },
            {
                "labels": {
                    "alertname": "NdbNoArbitrator",
                    "severity": "warning",
                    "cluster": "other",
                },
                "annotations": {},
                "state": "firing",
                "activeAt": "2026-11-23T15:58:00Z",
                "value": "1e+00",
            },
            {"labels": {"alertname": "Watchdog"}, "annotations": {}, "state": "firing"},
        ]
    },
}
ALERTMANAGER = [
    {
        "labels": {"alertname": "NdbClusterDown", "severity": "critical", "cluster": "demo"},
        "annotations": {"summary": "No data node is ready"},
        "startsAt": "2026-11-23T16:01:00Z",
        "generatorURL": "http://prometheus:9090/graph?g0.expr=...",
        "status": {"state": "active"},
    }
]


def transport(routes: dict[str, tuple[int, object]], seen: list[str]) -> httpx.MockTransport:
    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(str(request.url))
        status, body = routes.get(request.url.path, (404, {"error": "not found"}))
        return httpx.Response(status, json=body)

    return httpx.MockTransport(answer)


async def test_prometheus_alerts_firing_first_only_ndb_and_matching_labels():
    seen: list[str] = []
    source = AlertSource(
        'http://user:secret@prom:9090/?filter=cluster="demo"',
        10.0,
        clock=lambda: 0.0,
        transport=transport({"/api/v1/alerts": (200, PROMETHEUS)}, seen),
    )
    view = await source.alerts()
    assert view.source == "http://prom:9090"
    assert view.error is None
    assert [(a.name, a.state) for a in view.alerts] == [
        ("NdbNoArbitrator", "firing"),
        ("NdbDataNodeDown", "pending"),
    ]
    assert view.alerts[1].runbook_url == "https://x/runbook#ndbdatanodedown"
    assert view.alerts[0].link == "http://prom:9090/alerts"
    await source.alerts()
    assert len(seen) == 1  # kept for the refresh interval


async def test_alertmanager_alerts_and_an_unreachable_source():
    seen: list[str] = []
    routes = {"/api/v2/alerts": (200, ALERTMANAGER)}
    view = await AlertSource("http://am:9093", 10.0, transport=transport(routes, seen)).alerts()
    assert [(a.name, a.state, a.link) for a in view.alerts] == [
        ("NdbClusterDown", "firing", "http://prometheus:9090/graph?g0.expr=...")
    ]
    assert "silenced=false" in seen[-1]
    broken = await AlertSource("http://am:9093", 10.0, transport=transport({}, [])).alerts()
    assert (broken.alerts, broken.error) == ([], "cannot read alerts from http://am:9093: HTTP 404")
    assert (await AlertSource(None, 10.0).alerts()).source is None


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("prom:9090", "'prom:9090' is not an http:// or https:// URL"),
        ("http://prom:9090/?match=x", "query match='x': only filter=label=\"value\" is understood"),
        (
            "http://prom:9090/?filter=cluster",
            "query filter='cluster': only filter=label=\"value\" is understood",
        ),
    ],
)
def test_bad_urls_are_one_line(url, message):
    with pytest.raises(AlertsUrlError) as raised:
        parse_url(url)
    assert str(raised.value) == message


def test_credentials_never_shown():
    assert public("https://u:p@[::1]:9093/am/") == "https://[::1]:9093/am"
