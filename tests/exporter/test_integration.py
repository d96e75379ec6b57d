"""The exporter process against ndbsim processes: healthy scrapes, faults, limits, secrets."""

from __future__ import annotations

import concurrent.futures

import httpx
import pytest
from ndb_harness import running_exporter, running_ndbsim
from ndbinfo_exporter.collectors.registry import all_collectors

from tests.exporter.exposition_samples import metrics, per_collector
from tests.support.tcp_counter import CountingRelay

pytestmark = pytest.mark.integration

PASSWORD = "sim-pw-R4nd0m-never-logged"
WRONG_PASSWORD = "wrong-pw-Z9-never-logged"


@pytest.fixture(scope="module")
def sim():
    with running_ndbsim(password=PASSWORD) as handle:
        yield handle


@pytest.fixture(scope="module")
def relay(sim):
    counting = CountingRelay(sim.port)
    yield counting
    counting.close()


@pytest.fixture(scope="module")
def exporter(sim, relay, tmp_path_factory):
    cnf = tmp_path_factory.mktemp("exporter") / "my.cnf"
    cnf.write_text(
        f"[client]\nuser = {sim.user}\n\n"
        f"[client.alt]\nuser = {sim.user}\npassword = {PASSWORD}\n"
        f"host = 127.0.0.1\nport = {relay.port}\n\n"
        f"[client.wrong]\nuser = {sim.user}\npassword = {WRONG_PASSWORD}\n"
        f"host = 127.0.0.1\nport = {relay.port}\n"
    )
    args = [
        "--config.my-cnf",
        str(cnf),
        f"--mysqld.address=127.0.0.1:{relay.port}",
        "--exporter.max-connections=3",
    ]
    with running_exporter(args, env={"NDB_EXPORTER_PASSWORD": PASSWORD}) as process:
        process.responses = []
        yield process
    for text in [process.log, *process.responses]:
        assert PASSWORD not in text
        assert WRONG_PASSWORD not in text


def get(exporter, path: str, timeout: float = 10, **params) -> httpx.Response:
    response = httpx.get(
        f"http://{exporter.address}{path}",
        params=params,
        headers={"X-Prometheus-Scrape-Timeout-Seconds": str(timeout)},
        timeout=timeout + 30,
    )
    exporter.responses.append(response.text)
    return response


def test_healthy_cluster(exporter):
    parsed = metrics(get(exporter, "/metrics").text)
    assert parsed["ndb_up"] == {(): 1}
    expected = {c.name for c in all_collectors() if c.default_enabled}
    success = per_collector(parsed, "ndb_exporter_collector_success")
    skipped = {n for n, v in per_collector(parsed, "ndb_exporter_collector_skipped").items() if v}
    assert set(success) | skipped == expected
    assert {name for name, value in success.items() if value != 1} == set()
    assert dict(list(parsed["ndb_version_info"])[0]) == {
        "ndb_version": "8.4.3",
        "version": "8.4.3-cluster",
        "flavour": "mysql",
        "flavour_version": "8.4.3",
    }


def test_probe(exporter, relay):
    allowed = get(exporter, "/probe", target=f"127.0.0.1:{relay.port}", auth_module="alt")
    assert allowed.status_code == 200
    assert metrics(allowed.text)["ndb_up"] == {(): 1}
    refused = get(exporter, "/probe", target="127.0.0.2:3306")
    assert refused.status_code == 403
    # Wrong credentials: the node is "down" for this scrape, and the password stays hidden.
    wrong = get(exporter, "/probe", target=f"127.0.0.1:{relay.port}", auth_module="wrong")
    assert metrics(wrong.text)["ndb_up"] == {(): 0}


def test_connection_limit_under_twenty_concurrent_scrapes(sim, relay, exporter):
    sim.fault("slow-ndbinfo", seconds=0.1)
    relay.reset_peak()
    try:
        requests = [
            ("/metrics", {}),
            ("/probe", {"target": f"127.0.0.1:{relay.port}", "auth_module": "alt"}),
            ("/probe", {"target": f"127.0.0.1:{relay.port}"}),
        ]
        with concurrent.futures.ThreadPoolExecutor(20) as pool:
            futures = [
                pool.submit(get, exporter, requests[i % 3][0], 30, **requests[i % 3][1])
                for i in range(20)
            ]
            responses = [f.result() for f in futures]
    finally:
        sim.clear("slow-ndbinfo")
    assert all(metrics(r.text)["ndb_up"] == {(): 1} for r in responses)
    assert 2 <= relay.peak <= 3


def test_slow_table_fails_only_its_collector(sim, exporter):
    sim.fault("slow-ndbinfo", seconds=8, table="threadstat")
    try:
        parsed = metrics(get(exporter, "/metrics", timeout=3).text)
    finally:
        sim.clear("slow-ndbinfo")
    assert parsed["ndb_up"] == {(): 1}
    success = per_collector(parsed, "ndb_exporter_collector_success")
    slowed = {c.name for c in all_collectors() if "threadstat" in c.reads}
    assert "threads" in slowed
    assert {success.pop(name) for name in slowed if name in success} == {0}
    assert set(success.values()) == {1}


def test_sql_node_down_and_back():
    """The mysqld stops (its port refuses connections, and stays its own: ndbsim holds it) and
    starts again on the same port."""
    with running_ndbsim(password=PASSWORD) as sim:
        args = [f"--mysqld.address=127.0.0.1:{sim.port}", f"--mysqld.username={sim.user}"]
        mysqld = sim.status()["sql_node_id"]
        with running_exporter(args, env={"MYSQLD_EXPORTER_PASSWORD": PASSWORD}) as exporter:
            exporter.responses = []
            assert metrics(get(exporter, "/metrics").text)["ndb_up"] == {(): 1}
            sim.stop_node(mysqld)
            assert metrics(get(exporter, "/metrics").text)["ndb_up"] == {(): 0}
            sim.start_node(mysqld)
            assert metrics(get(exporter, "/metrics").text)["ndb_up"] == {(): 1}
        assert PASSWORD not in exporter.log
        assert all(PASSWORD not in text for text in exporter.responses)


def test_refused_connections_mean_down(sim):
    args = [f"--mysqld.address=127.0.0.1:{sim.port}", f"--mysqld.username={sim.user}"]
    with running_exporter(args, env={"NDB_EXPORTER_PASSWORD": PASSWORD}) as exporter:
        exporter.responses = []
        assert metrics(get(exporter, "/metrics").text)["ndb_up"] == {(): 1}
        sim.fault("refuse-connections")
        sim.fault("drop-connections")
        try:
            assert metrics(get(exporter, "/metrics").text)["ndb_up"] == {(): 0}
        finally:
            sim.clear("refuse-connections")
            sim.clear("drop-connections")
        assert metrics(get(exporter, "/metrics").text)["ndb_up"] == {(): 1}
    assert PASSWORD not in exporter.log


def test_old_ndb_version_skips_what_it_lacks():
    with running_ndbsim(password=PASSWORD, ndb_version="7.5.4") as sim:
        args = [f"--mysqld.address=127.0.0.1:{sim.port}", f"--mysqld.username={sim.user}"]
        with running_exporter(args, env={"NDB_EXPORTER_PASSWORD": PASSWORD}) as exporter:
            exporter.responses = []
            parsed = metrics(get(exporter, "/metrics").text)
    (labels,) = parsed["ndb_version_info"]
    assert dict(labels)["ndb_version"] == "7.5.4"
    assert dict(labels)["version"].startswith("5.7.16-ndb-7.5.4")
    skipped = {n for n, v in per_collector(parsed, "ndb_exporter_collector_skipped").items() if v}
    assert {"backup", "processes"} <= skipped
    success = per_collector(parsed, "ndb_exporter_collector_success")
    assert not skipped & set(success)
    assert set(success.values()) == {1}
