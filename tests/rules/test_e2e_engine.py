"""End to end: the exporter in front of a real MariaDB server, which has neither the ndbcluster
engine nor the ndbinfo schema, as a SQL node restarted without NDB looks (ndbsim always has
both, so it cannot show this).

The exporter answers `ndb_up 1` with every collector skipped and says why: the state
`engine_absent`, one warning in its log, the cluster view's header model and a critical
finding; Prometheus servers (one of each build) loaded with the NDB rules fire
NdbEngineUnavailable after its `for`, and no other alert is ever pending or firing.
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from live_stack import Exporter, Prometheus, running_exporter, running_prometheus_builds, wait_until
from private_mariadb import MariaDB, running_with_account
from prometheus_client.parser import text_string_to_metric_families

pytestmark = pytest.mark.integration

USER, PASSWORD = "exporter", "engine-test-pw-41x"
ALERT = "NdbEngineUnavailable"
SCRAPE_INTERVAL = "3s"
FIRING_SECONDS = 200.0  # the alert's `for` of 2 minutes, and a few scrapes and evaluations
WARNING = "NDB not visible: the SQL node has no ndbcluster storage engine, or it is disabled"


@pytest.fixture(scope="module")
def mariadb(tmp_path_factory) -> Iterator[MariaDB]:
    # MariaDB has no ndbinfo to grant SELECT on: the account gets a grant of another kind.
    datadir = tmp_path_factory.mktemp("mariadb")
    with running_with_account(datadir, USER, PASSWORD, "PROCESS ON *.*") as server:
        yield server


@pytest.fixture(scope="module")
def exporter(mariadb: MariaDB, tmp_path_factory) -> Iterator[Exporter]:
    workdir = tmp_path_factory.mktemp("e2e-engine")
    with running_exporter(mariadb.port, USER, PASSWORD, workdir) as running:
        yield running


@pytest.fixture(scope="module")
def servers(exporter: Exporter, tmp_path_factory) -> Iterator[dict[str, Prometheus]]:
    workdir = tmp_path_factory.mktemp("e2e-engine-prometheus")
    targets = {exporter.address: {"cluster": "e2e-engine"}}
    with running_prometheus_builds(targets, workdir, SCRAPE_INTERVAL) as running:
        yield running


def metrics(exporter: Exporter) -> dict[str, dict[tuple, float]]:
    body = httpx.get(f"http://{exporter.address}/metrics", timeout=30).text
    assert PASSWORD not in body
    return {
        family.name: {tuple(sorted(s.labels.items())): s.value for s in family.samples}
        for family in text_string_to_metric_families(body)
    }


def test_sql_node_answers_and_every_collector_is_skipped_because_the_engine_is_absent(exporter):
    found = metrics(exporter)
    assert found["ndb_up"] == {(): 1.0}
    assert found["ndb_engine_visibility"] == {
        (("state", "ok"),): 0.0,
        (("state", "engine_absent"),): 1.0,
        (("state", "ndbinfo_absent"),): 0.0,
        (("state", "privilege_missing"),): 0.0,
    }
    skipped = found["ndb_exporter_collector_skipped"]
    assert skipped and set(skipped.values()) == {1.0}
    assert not found.get("ndb_exporter_collector_success")


def test_the_cause_is_logged_once(exporter):
    for _ in range(3):
        metrics(exporter)
    warnings = [line for line in exporter.lines if "NDB not visible" in line]
    assert len(warnings) == 1, exporter.log
    assert WARNING in warnings[0] and "state=engine_absent" in warnings[0]
    assert PASSWORD not in exporter.log


def test_the_view_says_why(exporter, mariadb):
    base = f"http://{exporter.address}/api/v1"
    cluster = httpx.get(f"{base}/cluster", timeout=30).json()
    assert cluster["up"] is True
    assert cluster["sql_node"]["ndb_visibility"] == "engine_absent"
    findings = httpx.get(f"{base}/findings", timeout=30).json()["findings"]
    first = findings[0]
    assert (first["id"], first["status"], first["severity"]) == (
        "ndb_not_visible",
        "problem",
        "critical",
    )
    assert first["summary"].startswith(
        f"NDB is not visible through SQL node 127.0.0.1:{mariadb.port}: the SQL node has no"
        " ndbcluster storage engine"
    )
    assert [f["id"] for f in findings if f["status"] == "problem"] == ["ndb_not_visible"]
    assert [f["id"] for f in findings if f["status"] == "ok"] == []
    placement = httpx.get(f"{base}/placement", timeout=30)
    assert placement.status_code == 503
    assert placement.json() == {"error": "NDB is not visible (engine_absent): no placement map"}


def firing(prometheus: Prometheus) -> list[dict]:
    return prometheus.query(f'ALERTS{{alertname="{ALERT}", alertstate="firing"}}')


def test_engine_unavailable_fires_and_no_other_alert(servers, exporter):
    for name, prometheus in servers.items():
        (alert,) = wait_until(
            lambda p=prometheus: firing(p), FIRING_SECONDS, f"{ALERT} to fire on {name}", 2.0
        )
        labels = alert["metric"]
        assert (labels["instance"], labels["state"], labels["severity"]) == (
            exporter.address,
            "engine_absent",
            "critical",
        )
        # no other alert was pending or firing at any evaluation since Prometheus started
        assert prometheus.query(f'count_over_time(ALERTS{{alertname!="{ALERT}"}}[1h])') == []
