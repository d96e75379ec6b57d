"""The replication card in headless Chromium against ndbsim --replica: an exporter, with its
view, for each SQL node of the pair, the source's (the binlog server, server_id 1) and the
replica's.

    NDB_VIEW_SCREENSHOTS=1 .venv/bin/python -m pytest tests/view/test_view_replication_live.py

also writes docs/screenshots/view-replica-stopped.png: the replica's page, its SQL thread
stopped on error 1032, down to the replication card.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from ndb_harness import Ndbsim, running_exporter, running_ndbsim

pytestmark = [pytest.mark.integration, pytest.mark.browser]

SCREENSHOT_ENV = "NDB_VIEW_SCREENSHOTS"
SCREENSHOT = (
    Path(__file__).resolve().parents[2] / "docs" / "screenshots" / "view-replica-stopped.png"
)
# The view's 10 s refresh interval plus the page's own 10 s refresh.
CHANGE_TIMEOUT_MS = 45_000
# GCIs the source may commit while the view serves a scrape up to 10 s old (speed 5, one GCI
# per 2 cluster seconds: 25 GCIs), with a margin.
STALE_GCIS = 40


@dataclass
class Pair:
    sim: Ndbsim
    source: str  # the view of the source's SQL node, http://127.0.0.1:port
    replica: str  # the view of the replica's SQL node


@pytest.fixture(scope="module")
def pair() -> Iterator[Pair]:
    with (
        running_ndbsim("--tables", "4", replica=True, speed=5) as sim,
        running_exporter(mysqld=sim.account(), name="exporter-source") as source,
        running_exporter(mysqld=sim.account("replica"), name="exporter-replica") as replica,
    ):
        yield Pair(sim, source.url, replica.url)


def load(page, url: str) -> None:
    page.goto(url + "/")
    page.wait_for_selector("body[data-loaded]")


def shown_number(page, testid: str) -> int:
    return int(page.get_by_test_id(testid).get_attribute("data-value"))


def photograph_down_to_replication(page) -> None:
    """The page from its top down to the replication card, the first finding open."""
    page.locator("details.finding").first.evaluate("el => { el.open = true; }")
    card = page.get_by_test_id("replication-section").bounding_box()
    bottom = card["y"] + card["height"] + 16
    width = page.viewport_size["width"]
    clip = {"x": 0, "y": 0, "width": width, "height": bottom}
    page.screenshot(path=str(SCREENSHOT), full_page=True, clip=clip)


def in_gcis(number: int) -> str:
    return "1 GCI" if number == 1 else f"{number:,} GCIs"


def test_replica_page_shows_its_channel_running(page, pair):
    source_gci = pair.sim.replication()["source_gci"]
    load(page, pair.replica)
    assert page.get_by_test_id("replication-state").inner_text() == "replica"
    assert page.locator("[data-testid^=channel-]").count() == 1
    assert page.get_by_test_id("io-thread-default").inner_text() == "running"
    assert page.get_by_test_id("sql-thread-default").inner_text() == "running"
    assert page.get_by_test_id("io-error-default").inner_text() == "0"
    assert page.get_by_test_id("sql-error-default").inner_text() == "0"
    assert page.get_by_test_id("behind-default").inner_text() == "0 s"
    assert page.get_by_test_id("source-server-id-default").inner_text() == "1"
    # the source's GCI the replica applied, from mysql.ndb_apply_status: its row of server_id 1
    applied = shown_number(page, "applied-1")
    assert source_gci - STALE_GCIS <= applied <= pair.sim.replication()["source_gci"]
    assert page.get_by_test_id("applied-1").inner_text() == f"{applied:,}"
    assert page.get_by_test_id("binlog").count() == 0
    for check in ("replication_stopped", "binlog_gap", "replication_lag_high"):
        assert page.get_by_test_id(f"finding-{check}").get_attribute("data-status") == "ok"


def test_source_page_shows_the_binlog_servers_gcis(page, pair):
    load(page, pair.source)
    assert page.get_by_test_id("replication-state").inner_text() == "binlog server"
    assert page.locator("[data-testid^=channel-]").count() == 0
    assert page.get_by_test_id("applied").count() == 0
    assert page.get_by_test_id("binlog-server-id").inner_text() == "1"
    steps = ("committed", "buffered", "received", "handled", "written")
    gcis = {step: shown_number(page, f"binlog-{step}") for step in steps}
    for step, gci in gcis.items():
        assert page.get_by_test_id(f"binlog-{step}").inner_text() == f"{gci:,}"
    # each step of an epoch on its way into the binary log is at or behind the one before
    assert gcis["buffered"] >= gcis["received"] >= gcis["handled"] >= gcis["written"] > 0
    lag = gcis["committed"] - gcis["handled"]
    assert 0 <= lag <= 30
    assert page.get_by_test_id("binlog-injector-lag").inner_text() == in_gcis(lag)
    buffer = gcis["buffered"] - gcis["received"]
    assert page.get_by_test_id("binlog-event-buffer").inner_text() == in_gcis(buffer)
    cluster = httpx.get(f"{pair.source}/api/v1/cluster", timeout=30).json()
    assert cluster["replication"]["binlog"]["server_id"] == 1
    for check in ("binlog_injector_behind", "event_buffer_backlog"):
        assert page.get_by_test_id(f"finding-{check}").get_attribute("data-status") == "ok"


def test_sql_error_stops_the_replicas_channel(page, pair):
    pair.sim.fault("replica-sql-error")
    try:
        load(page, pair.replica)
        page.wait_for_selector(
            "[data-testid=sql-thread-default][data-value=no]", timeout=CHANGE_TIMEOUT_MS
        )
        assert page.get_by_test_id("sql-thread-default").inner_text() == "stopped"
        assert page.get_by_test_id("sql-error-default").inner_text() == "1032"
        assert page.get_by_test_id("io-thread-default").inner_text() == "running"
        assert page.get_by_test_id("io-error-default").inner_text() == "0"
        assert page.get_by_test_id("behind-default").inner_text() == "n/a (applier stopped)"
        stopped = page.get_by_test_id("finding-replication_stopped")
        assert stopped.get_attribute("data-status") == "problem"
        assert "critical" in stopped.get_attribute("class").split()
        evidence = stopped.text_content()  # in the closed card too
        assert "Replication is stopped on the default channel" in evidence
        assert "SQL no (error 1032)" in evidence
        # 1032 is no gap in the source's binary log (that is 1590)
        assert page.get_by_test_id("finding-binlog_gap").get_attribute("data-status") == "ok"
        if os.environ.get(SCREENSHOT_ENV):
            photograph_down_to_replication(page)
    finally:
        pair.sim.reset()
