"""The cluster view in headless Chromium for a SQL node without NDB: the exporter in front of a
real MariaDB server, which has no ndbcluster engine."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from ndb_harness import Exporter, MysqlAccount, running_exporter

from tests.support.private_mariadb import running_with_account

pytestmark = [pytest.mark.integration, pytest.mark.browser]

USER, PASSWORD = "exporter", "view-engine-pw-73q"


@pytest.fixture(scope="module")
def exporter(tmp_path_factory) -> Iterator[Exporter]:
    datadir = tmp_path_factory.mktemp("mariadb")
    with (
        running_with_account(datadir, USER, PASSWORD, "PROCESS ON *.*") as server,
        running_exporter(
            mysqld=MysqlAccount("127.0.0.1", server.port, USER, PASSWORD), log_dir=datadir
        ) as running,
    ):
        yield running


def test_header_and_findings_say_that_ndb_is_not_visible(page, exporter):
    page.goto(f"http://{exporter.address}/")
    page.wait_for_selector("body[data-loaded]")
    pill = page.get_by_test_id("up")
    assert pill.inner_text() == "SQL node up · NDB not visible (engine absent)"
    assert "pill down" in pill.get_attribute("class")
    finding = page.get_by_test_id("finding-ndb_not_visible")
    assert finding.get_attribute("data-status") == "problem"
    assert "no ndbcluster storage engine" in finding.inner_text()
    assert page.get_by_test_id("no-problems").count() == 0
    assert "No problems found" not in page.locator("body").inner_text()
