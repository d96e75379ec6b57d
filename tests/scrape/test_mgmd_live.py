"""The exporter reads ndbsim's management server (--mgmd.address): backups aborted and
completed, and a subscription the server drops, counted and re-established while every
scrape succeeds."""

from __future__ import annotations

import threading
import time

import httpx
import pytest
from ndb_harness import running_exporter, running_ndbsim
from ndbinfo_exporter.collectors.registry import all_collectors
from prometheus_client.parser import text_string_to_metric_families

pytestmark = pytest.mark.integration


# Only ndbinfo.backup_id besides the management server: short scrapes. At 10 cluster
# seconds per second a backup completes in 0.3 s.
COLLECTORS = ("backup",)
SPEED = 10


@pytest.fixture(scope="module")
def stack():
    with running_ndbsim(speed=SPEED) as sim:
        args = [
            f"--mgmd.address={sim.host}:{sim.mgm_port}",
            *(f"--no-collector.{c.name}" for c in all_collectors() if c.name not in COLLECTORS),
        ]
        with running_exporter(args, mysqld=sim.account()) as exporter:
            yield sim, exporter


def _samples(exporter) -> dict[tuple[str, tuple], float]:
    response = httpx.get(f"{exporter.url}/metrics", timeout=30)
    response.raise_for_status()
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(response.text)
        for s in family.samples
    }


def _value(samples, name: str, **labels) -> float | None:
    return samples.get((name, tuple(sorted(labels.items()))))


def _wait(exporter, check, timeout: float = 15.0):
    deadline = time.monotonic() + timeout
    while True:
        samples = _samples(exporter)
        if check(samples):
            return samples
        assert time.monotonic() < deadline, "condition not reached"
        time.sleep(0.2)


def test_node_statuses_and_the_subscription(stack):
    sim, exporter = stack
    samples = _wait(exporter, lambda s: _value(s, "ndb_mgmd_subscription_up") == 1)
    address = f"{sim.host}:{sim.mgm_port}"
    assert _value(samples, "ndb_mgmd_up", address=address) == 1
    states = [k for k, v in samples.items() if k[0] == "ndb_mgmd_node_status" and v == 1]
    assert len(states) == len(sim.status()["nodes"])


def test_completed_and_aborted_backups(stack):
    sim, exporter = stack
    _wait(exporter, lambda s: _value(s, "ndb_mgmd_subscription_up") == 1)
    backup_id = sim.start_backup()["backup_id"]
    samples = _wait(exporter, lambda s: _value(s, "ndb_mgmd_backup_last_completed_id") == backup_id)
    assert _value(samples, "ndb_mgmd_backup_last_completed_bytes") > 0
    assert _value(samples, "ndb_mgmd_backup_last_completed_records") > 0
    sim.fault("backup-abort")
    try:
        aborted = sim.start_backup()["backup_id"]
        _wait(exporter, lambda s: _value(s, "ndb_mgmd_backups_aborted_total") == 1)
    finally:
        sim.clear("backup-abort")
    samples = _samples(exporter)
    assert _value(samples, "ndb_mgmd_events_total", type="BackupAborted", node_id="1") == 1
    assert _value(samples, "ndb_backup_last_id") == aborted  # ndbinfo agrees with the log


def test_dropped_subscription_is_counted_and_recovered_while_scrapes_succeed(stack):
    sim, exporter = stack
    _wait(exporter, lambda s: _value(s, "ndb_mgmd_subscription_up") == 1)
    failures: list[str] = []
    stop = threading.Event()

    def scrape_meanwhile() -> None:
        while not stop.is_set():
            try:
                _samples(exporter)
            except Exception as exc:  # any failed scrape fails the test
                failures.append(repr(exc))
            time.sleep(0.2)

    scraper = threading.Thread(target=scrape_meanwhile)
    scraper.start()
    try:
        sim.drop_listeners()
        dropped = time.monotonic()
        samples = _wait(
            exporter,
            lambda s: (
                _value(s, "ndb_mgmd_subscription_drops_total") == 1
                and _value(s, "ndb_mgmd_subscription_up") == 1
            ),
        )
        assert time.monotonic() - dropped < 10
    finally:
        stop.set()
        scraper.join()
    assert failures == []
    assert _value(samples, "ndb_mgmd_subscription_gap_seconds_total") < 10
