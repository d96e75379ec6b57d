"""End to end: the exporter in front of a real MariaDB server, which has neither the ndbcluster
engine nor the ndbinfo schema, as a SQL node restarted without NDB looks (ndbsim always has
both, so it cannot show this).

The exporter answers `ndb_up 1` with every collector skipped and says why: the state
`engine_absent`, one warning in its log, the cluster view's header model and a critical
finding; Prometheus servers (one of each build) loaded with the NDB rules fire
NdbEngineUnavailable after its `for`, and no other alert is ever pending or firing.

Then ndbsim, whose exporter account loses SELECT on ndbinfo while it is being scraped: the
exporter notices without a restart (`privilege_missing`), NdbEngineUnavailable's expression is
true and no other alert's is, and the view says that the privilege is missing.
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pymysql
import pytest
from ndb_harness import HOST, Exporter, MysqlAccount, Ndbsim, running_exporter, running_ndbsim
from ndbinfo_exporter.collectors.registry import all_collectors
from ndbinfo_exporter.scrape.ndb_visibility import CAUSES, PRIVILEGE_MISSING
from prometheus_client.parser import text_string_to_metric_families

from tests.support.live_stack import (
    Prometheus,
    running_prometheus_builds,
    wait_until,
    wait_until_quiet,
)
from tests.support.private_mariadb import MariaDB, running_with_account
from tests.support.readme_grants import readme_grants

pytestmark = [pytest.mark.integration, pytest.mark.long(minutes=3)]

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


def exporter_of(port: int, tmp_path_factory, name: str) -> Iterator[Exporter]:
    account = MysqlAccount(HOST, port, USER, PASSWORD)
    workdir = tmp_path_factory.mktemp(name)
    with running_exporter(mysqld=account, log_dir=workdir) as running:
        yield running


def prometheus_builds(exporter: Exporter, tmp_path_factory, name: str) -> Iterator[dict]:
    """One Prometheus of each build scraping `exporter`, as cluster `name`."""
    workdir = tmp_path_factory.mktemp(f"{name}-prometheus")
    targets = {exporter.address: {"cluster": name}}
    with running_prometheus_builds(targets, workdir, SCRAPE_INTERVAL) as running:
        yield running


@pytest.fixture(scope="module")
def exporter(mariadb: MariaDB, tmp_path_factory) -> Iterator[Exporter]:
    yield from exporter_of(mariadb.port, tmp_path_factory, "e2e-engine")


@pytest.fixture(scope="module")
def servers(exporter: Exporter, tmp_path_factory) -> Iterator[dict[str, Prometheus]]:
    yield from prometheus_builds(exporter, tmp_path_factory, "e2e-engine")


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


def not_visible_first(base: str, summary: str) -> list[dict]:
    """The view's findings, the first of them the critical ndb_not_visible problem whose
    summary starts with `summary`."""
    findings = httpx.get(f"{base}/findings", timeout=30).json()["findings"]
    first = findings[0]
    assert (first["id"], first["status"], first["severity"]) == (
        "ndb_not_visible",
        "problem",
        "critical",
    )
    assert first["summary"].startswith(summary)
    return findings


def test_the_view_says_why(exporter, mariadb):
    base = f"http://{exporter.address}/api/v1"
    cluster = httpx.get(f"{base}/cluster", timeout=30).json()
    assert cluster["up"] is True
    assert cluster["sql_node"]["ndb_visibility"] == "engine_absent"
    findings = not_visible_first(
        base,
        f"NDB is not visible through SQL node 127.0.0.1:{mariadb.port}: the SQL node has no"
        " ndbcluster storage engine",
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


# --- ndbsim: the exporter's account loses SELECT on ndbinfo ---------------------------------

NOTICE_SECONDS = 60.0


@pytest.fixture(scope="module")
def sim() -> Iterator[Ndbsim]:
    with running_ndbsim(data_nodes=2, seed=1) as running:
        admin(running, f"CREATE USER '{USER}'@'%' IDENTIFIED BY '{PASSWORD}'")
        for grant in readme_grants(f"'{USER}'@'%'"):  # the README's account, every grant
            admin(running, grant)
        yield running


def admin(sim: Ndbsim, sql: str) -> None:
    """A statement of ndbsim's own account, which holds every privilege."""
    connection = pymysql.connect(host=sim.host, port=sim.port, user=sim.user, password=sim.password)
    try:
        with connection.cursor() as cursor:
            cursor.execute(sql)
    finally:
        connection.close()


@pytest.fixture(scope="module")
def sim_exporter(sim: Ndbsim, tmp_path_factory) -> Iterator[Exporter]:
    yield from exporter_of(sim.port, tmp_path_factory, "e2e-privilege")


@pytest.fixture(scope="module")
def sim_servers(sim_exporter: Exporter, tmp_path_factory) -> Iterator[dict[str, Prometheus]]:
    yield from prometheus_builds(sim_exporter, tmp_path_factory, "e2e-privilege")


def true_alerts(prometheus: Prometheus, exporter: Exporter) -> set[str]:
    return {
        alert["alertname"]
        for alert in prometheus.alerts()
        if alert.get("instance", exporter.address) == exporter.address
    }


@pytest.fixture(scope="module")
def revoked(sim, sim_exporter, sim_servers) -> dict[str, Prometheus]:
    """SELECT on ndbinfo revoked once Prometheus has seen NDB visible and no alert expression
    true (a healthy cluster)."""
    visible = f'ndb_engine_visibility{{state="ok", instance="{sim_exporter.address}"}} == 1'
    for name, prometheus in sim_servers.items():
        wait_until(lambda p=prometheus: p.query(visible), NOTICE_SECONDS, f"NDB seen on {name}")
        wait_until_quiet(
            lambda p=prometheus: true_alerts(p, sim_exporter),
            NOTICE_SECONDS,
            f"no true alert on {name} before the revoke",
        )
    admin(sim, f"REVOKE SELECT ON ndbinfo.* FROM '{USER}'@'%'")
    return sim_servers


def test_the_exporter_notices_the_revoke_without_a_restart(revoked, sim_exporter):
    def state() -> float:
        return metrics(sim_exporter)["ndb_engine_visibility"][(("state", PRIVILEGE_MISSING),)]

    wait_until(lambda: state() == 1.0, NOTICE_SECONDS, "privilege_missing", 1.0)
    found = metrics(sim_exporter)
    assert found["ndb_up"] == {(): 1.0}
    # the collectors reading ndbinfo are skipped; the others still succeed
    skipped = {
        dict(k)["collector"] for k, v in found["ndb_exporter_collector_skipped"].items() if v
    }
    assert {c.name for c in all_collectors() if c.reads and c.default_enabled} <= skipped
    assert set(found["ndb_exporter_collector_success"].values()) == {1.0}
    warnings = [line for line in sim_exporter.lines if "NDB not visible" in line]
    assert len(warnings) == 1 and CAUSES[PRIVILEGE_MISSING] in warnings[0]


def test_engine_unavailable_is_the_one_true_alert_expression(revoked, sim_exporter):
    for name, prometheus in revoked.items():
        wait_until(
            lambda p=prometheus: true_alerts(p, sim_exporter) == {ALERT},
            NOTICE_SECONDS,
            f"{ALERT} alone true on {name}",
            1.0,
        )
        (alert,) = [a for a in prometheus.alerts() if a["alertname"] == ALERT]
        assert alert["state"] == PRIVILEGE_MISSING


def test_the_view_says_the_privilege_is_missing(revoked, sim_exporter, sim):
    base = f"http://{sim_exporter.address}/api/v1"
    wait_until(
        lambda: (
            httpx.get(f"{base}/cluster", timeout=30).json()["sql_node"]["ndb_visibility"]
            == PRIVILEGE_MISSING
        ),
        NOTICE_SECONDS,
        "the view to see privilege_missing",
        1.0,
    )
    not_visible_first(
        base,
        f"NDB is not visible through SQL node 127.0.0.1:{sim.port}: {CAUSES[PRIVILEGE_MISSING]}",
    )
