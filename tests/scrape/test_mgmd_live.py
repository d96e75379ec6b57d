"""The exporter reads ndbsim's management server (--mgmd.address): backups aborted and
completed, a slow backup's progress, a forced stop in a start phase, a subscription the server drops, counted and
re-established while every scrape succeeds; and the cluster log's lines (--mgmd.event-log)
as the OpenTelemetry Collector configuration of docs/mgmd.md reads them."""

from __future__ import annotations

import datetime
import json
import re
import threading
import time
from pathlib import Path

import httpx
import pytest
import yaml
from ndb_harness import running_exporter, running_ndbsim
from ndbinfo_exporter.collectors.registry import all_collectors
from prometheus_client.parser import text_string_to_metric_families

from tests.scrape.mgm_proxy import CountingMgmProxy
from tests.view.counting_proxy import counting_proxy

pytestmark = pytest.mark.integration


# Only ndbinfo.backup_id besides the management server: short scrapes. At 10 cluster
# seconds per second a backup completes in 0.3 s.
COLLECTORS = ("backup",)
SPEED = 10


DOC = Path(__file__).resolve().parents[2] / "docs" / "mgmd.md"


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    event_log = tmp_path_factory.mktemp("mgmd") / "cluster-log.jsonl"
    with running_ndbsim(speed=SPEED) as sim:
        args = [
            f"--mgmd.address={sim.host}:{sim.mgm_port}",
            f"--mgmd.event-log={event_log}",
            *(f"--no-collector.{c.name}" for c in all_collectors() if c.name not in COLLECTORS),
        ]
        with running_exporter(args, mysqld=sim.account()) as exporter:
            yield sim, exporter, event_log


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
    sim, exporter, _ = stack
    samples = _wait(exporter, lambda s: _value(s, "ndb_mgmd_subscription_up") == 1)
    address = f"{sim.host}:{sim.mgm_port}"
    assert _value(samples, "ndb_mgmd_up", address=address) == 1
    states = [k for k, v in samples.items() if k[0] == "ndb_mgmd_node_status" and v == 1]
    assert len(states) == len(sim.status()["nodes"])


def test_completed_and_aborted_backups(stack):
    sim, exporter, _ = stack
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
    sim, exporter, _ = stack
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


def test_a_forced_stop_in_start_phase_5_in_the_metrics_and_the_cluster_log_lines(stack):
    sim, exporter, event_log = stack
    _wait(exporter, lambda s: _value(s, "ndb_mgmd_subscription_up") == 1)
    sim.stop_node(2)
    sim.fault("data-node-crash", node=2, error=2303, phase=5)
    try:
        sim.start_node(2)
        samples = _wait(
            exporter, lambda s: _value(s, "ndb_mgmd_node_forced_stop_error", node_id="2") == 2303
        )
    finally:
        sim.clear("data-node-crash")
        sim.start_node(2)
        _until_started(sim, 2)
    assert _value(samples, "ndb_mgmd_node_forced_stop_start_phase", node_id="2") == 5
    (info,) = [dict(k[1]) for k in samples if k[0] == "ndb_mgmd_node_last_forced_stop_info"]
    assert info["message"].startswith("System error, node killed during node restart")
    records = [_as_filelog_receives(line) for line in event_log.read_text().splitlines()]
    stop = next(r for r in records if r["attributes"]["type"] == "NDBStopForced")
    assert stop["attributes"]["node"] == 2 and stop["severity"] == "fatal"
    assert stop["attributes"]["fields"] == {
        "action": stop["attributes"]["fields"]["action"],
        "signum": 0,
        "error": 2303,
        "sphase": 5,
        "extra": 0,
    }
    assert "Occurred during startphase 5. Caused by error 2303: 'System error" in stop["body"]
    card = httpx.get(f"{exporter.url}/api/v1/management", timeout=30).json()
    (crash,) = [s for s in card["forced_stops"] if s["node_id"] == 2]
    assert (crash["error"], crash["start_phase"]) == (2303, 5)
    assert all(r["timestamp"] <= datetime.datetime.now(datetime.UTC) for r in records)


def test_a_slow_backup_shows_its_progress_and_nothing_is_asked_while_none_runs(stack):
    """Through a proxy that counts the exporter's commands: a backup of 150 cluster seconds
    (15 s here) shows a ratio that grows to 1 (the same size as the backup before it, all
    written once its data scan ends at 90 % of its time), then the completed backup; `dump
    events` is sent only while it runs."""
    sim = stack[0]
    args = [*(f"--no-collector.{c.name}" for c in all_collectors() if c.name not in COLLECTORS)]
    with (
        counting_proxy(sim.mgm_port, CountingMgmProxy) as proxy,
        running_exporter(
            [f"--mgmd.address=127.0.0.1:{proxy.port}", *args], mysqld=sim.account()
        ) as exporter,
    ):
        _wait(exporter, lambda s: _value(s, "ndb_mgmd_subscription_up") == 1)
        first = sim.start_backup()["backup_id"]
        _wait(exporter, lambda s: _value(s, "ndb_mgmd_backup_last_completed_id") == first)
        _wait(exporter, lambda s: _value(s, "ndb_mgmd_backup_running") == 0)
        asked = proxy.seen("dump events")
        for _ in range(5):
            assert _value(_samples(exporter), "ndb_mgmd_backup_progress_ratio") is None
        assert proxy.seen("dump events") == asked
        sim.fault("slow-backup", seconds=150)
        try:
            slow = sim.start_backup()["backup_id"]
        finally:
            sim.clear("slow-backup")
        ratios: list[float] = []

        def watched(samples) -> bool:
            ratio = _value(samples, "ndb_mgmd_backup_progress_ratio")
            if ratio is not None:
                ratios.append(ratio)
            return _value(samples, "ndb_mgmd_backup_last_completed_id") == slow

        done = _wait(exporter, watched, timeout=40.0)
        assert _value(done, "ndb_mgmd_backup_running") == 0
        during = proxy.seen("dump events")
        assert during > asked
        for _ in range(5):
            _samples(exporter)
        assert proxy.seen("dump events") == during
    assert ratios == sorted(ratios) and ratios[-1] == 1.0
    assert len({r for r in ratios if 0 < r < 1}) >= 3


def _until_started(sim, node_id: int, timeout: float = 30.0) -> None:
    """The other tests of the module find every data node started."""
    deadline = time.monotonic() + timeout
    while next(n for n in sim.status()["nodes"] if n["node_id"] == node_id)["state"] != "STARTED":
        assert time.monotonic() < deadline, f"data node {node_id} did not start again"
        time.sleep(0.2)


def _receiver() -> dict:
    (config,) = re.findall(r"```yaml\n(receivers:.*?)```", DOC.read_text(), re.S)
    return yaml.safe_load(config)["receivers"]["filelog/ndb"]


def _as_filelog_receives(line: str) -> dict:
    """One line through the documented receiver's operators, as the filelog receiver runs
    them: json_parser into attributes with the time and severity parsed (the Go layout the
    docs give), then move."""
    parser, move = _receiver()["operators"]
    assert (parser["type"], move["type"]) == ("json_parser", "move")
    attributes = json.loads(line)
    timestamp = parser["timestamp"]
    assert (timestamp["layout_type"], timestamp["layout"]) == (
        "gotime",
        "2006-01-02T15:04:05.000Z07:00",
    )
    stamp = attributes[timestamp["parse_from"].removeprefix("attributes.")]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", stamp), stamp
    severity = parser["severity"]
    value = attributes[severity["parse_from"].removeprefix("attributes.")]
    (level,) = [name for name, given in severity["mapping"].items() if given == value]
    body = attributes.pop(move["from"].removeprefix("attributes."))
    assert move["to"] == "body"
    return {
        "timestamp": datetime.datetime.fromisoformat(stamp),
        "severity": level,
        "body": body,
        "attributes": attributes,
    }
