"""The replication card in headless Chromium, from synthetic families served by the view's
routes over a recorded scraper (no ndbsim: its replication is not needed to draw the card)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from ndbinfo_exporter.targets import TargetConfig, Targets

from tests.health.scrape_data import (
    Channel,
    Result,
    cluster,
    placement_rows,
    replica_rows,
    replication,
)
from tests.support.app_server import serving_app
from tests.view.recorded_scraper import RecordedScraper, view_app

pytestmark = [pytest.mark.integration, pytest.mark.browser]


@contextmanager
def serving(result: Result) -> Iterator[str]:
    """The view over ``result`` on a free port of 127.0.0.1; yields its URL."""
    scraper = RecordedScraper(result, placement_rows(), replica_rows())
    targets = Targets(
        default=TargetConfig("127.0.0.1", 3306, "exporter"), auth_modules={}, allowed_patterns=()
    )
    with serving_app(view_app(scraper, targets)) as url:
        yield url


def load(page, url: str) -> None:
    page.goto(url + "/")
    page.wait_for_selector("body[data-loaded]")


def test_replica_card_shows_each_channel(page):
    result = replication(
        cluster(),
        channels=(
            Channel(
                sql="no",
                sql_error=1590,
                behind=None,
                relay_log_space=2048,
                retries=3,
                workers=((1, "off", 1032), (2, "off", 0)),
            ),
            Channel(name="east", io="connecting", io_error=2003, behind=12.0, source_server_id=7),
        ),
        applied={1: 4990, 7: 5001},
    )
    with serving(result) as url:
        load(page, url)
        assert page.get_by_test_id("replication-state").inner_text() == "replica"
        assert page.get_by_test_id("io-thread-default").inner_text() == "running"
        assert page.get_by_test_id("sql-thread-default").inner_text() == "stopped"
        assert page.get_by_test_id("sql-error-default").inner_text() == "1590"
        assert page.get_by_test_id("behind-default").inner_text() == "n/a (applier stopped)"
        assert page.get_by_test_id("io-thread-east").inner_text() == "connecting"
        assert page.get_by_test_id("io-error-east").inner_text() == "2003"
        assert page.get_by_test_id("behind-east").inner_text() == "12 s"
        assert page.get_by_test_id("relay-log-default").inner_text() == "2.0 KiB"
        assert page.get_by_test_id("retries-default").inner_text() == "3"
        assert page.get_by_test_id("worker-default-1").inner_text() == "worker 1 · off · error 1032"
        assert page.get_by_test_id("worker-default-2").inner_text() == "worker 2 · off"
        assert page.get_by_test_id("workers-east").count() == 0
        assert page.get_by_test_id("applied-7").inner_text() == "5,001"
        assert page.get_by_test_id("binlog").count() == 0
        stopped = page.get_by_test_id("finding-replication_stopped")
        assert stopped.get_attribute("data-status") == "problem"
        assert page.get_by_test_id("finding-binlog_gap").get_attribute("data-status") == "problem"


def test_binlog_server_card_shows_the_injector(page):
    gcis = {"buffered": 5020, "received": 5005, "handled": 5000, "written": 4998}
    with serving(replication(cluster(current_gci=5031), binlog=gcis, server_id=1)) as url:
        load(page, url)
        assert page.get_by_test_id("replication-state").inner_text() == "binlog server"
        assert page.get_by_test_id("binlog-written").inner_text() == "4,998"
        assert page.get_by_test_id("binlog-injector-lag").inner_text() == "31 GCIs"
        assert page.get_by_test_id("binlog-event-buffer").inner_text() == "15 GCIs"
        assert page.locator("[data-testid^=channel-]").count() == 0


def test_a_sql_node_without_replication_gets_one_line(page):
    with serving(replication(cluster())) as url:
        load(page, url)
        assert page.get_by_test_id("replication-state").inner_text() == "not replicating"
        assert page.get_by_test_id("replication").inner_text() == ""
        section = page.get_by_test_id("replication-section")
        assert "quiet" in section.get_attribute("class")
        assert section.bounding_box()["height"] < 60
        replicating = page.locator("[data-testid^=finding-replication_]")
        assert {replicating.nth(i).get_attribute("data-status") for i in range(2)} == {"ok"}
