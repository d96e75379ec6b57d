"""Against Debian's MariaDB, which has no ndbcluster engine: check is UNKNOWN and says that NDB
is not visible; report says so first."""

from __future__ import annotations

import pytest

from tests.report.report_cli import connection, json_report, run
from tests.support import private_mariadb
from tests.support.private_mariadb import running_with_account

pytestmark = pytest.mark.integration

USER, PASSWORD = "exporter", "report-maria-pw-8c1"


@pytest.mark.skipif(not private_mariadb.available(), reason="needs mariadbd")
def test_check_is_unknown_and_report_says_ndb_is_not_visible_first(tmp_path):
    with running_with_account(tmp_path, USER, PASSWORD, "PROCESS ON *.*") as server:
        flags = connection("127.0.0.1", server.port, USER)
        check = run("check", *flags, password=PASSWORD)
        text = run("report", *flags, password=PASSWORD)
        report = json_report(*flags, password=PASSWORD, code=1)
    assert check.returncode == 3, check.stdout
    assert check.stdout.startswith("NDB UNKNOWN - NDB is not visible from the SQL node")
    assert "no ndbcluster storage engine" in check.stdout
    assert text.returncode == 1
    said = [line for line in text.stdout.splitlines()[1:] if line.strip()]
    assert said[0].startswith("ndbinfo-exporter ") and said[1].startswith("read at ")
    assert said[2].startswith("NDB is not visible from the SQL node")
    assert report["ndb_visible"] is False and report["ndb_visibility"] == "engine_absent"
    for output in (check.stdout, text.stdout):
        assert PASSWORD not in output
