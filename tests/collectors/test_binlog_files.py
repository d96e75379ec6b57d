"""binlog_files: the file numbers of SHOW BINARY LOGS, a server with log_bin OFF, and a purge
and a rotation as ndbsim's binlog server makes them."""

from __future__ import annotations

import pytest
from mysql.connector import errors
from ndbinfo_exporter.collectors import binlog_files
from ndbinfo_exporter.collectors.base import BadValue, Context, TargetInfo, collect_rows
from ndbinfo_exporter.scrape.scraper import collector_rows
from ndbsim.model.binlog import BinlogServer

CONTEXT = Context(
    target=TargetInfo(version="8.4.3-cluster", ndb_version=(8, 4, 3), objects=frozenset())
)


def values(rows) -> dict[str, float]:
    return {f.name: f.samples[0].value for f in binlog_files.collect(rows, CONTEXT)}


def listing(server: BinlogServer) -> list[dict]:
    """SHOW BINARY LOGS of the server, as ndbsim answers it."""
    return [{"Log_name": f.name, "File_size": f.size, "Encrypted": "No"} for f in server.files]


class _NoBinaryLog:
    """A connection to a mysqld with log_bin OFF."""

    def rows(self, sql, params=None):
        raise errors.DatabaseError(msg="You are not using binary logging", errno=1381)


def test_a_server_without_a_binary_log_exports_nothing():
    assert binlog_files.COLLECTOR.absent_errors == {1381}  # ER_NO_BINARY_LOGGING
    assert collector_rows(_NoBinaryLog(), binlog_files.COLLECTOR, CONTEXT) == []
    assert list(binlog_files.collect([], CONTEXT)) == []


@pytest.mark.parametrize(
    ("name", "number"), [("binlog.000011", 11.0), ("mysql-bin.1000000", 1000000.0)]
)
def test_the_file_number_is_the_numeric_suffix(name, number):
    assert binlog_files.file_number(name) == number


@pytest.mark.parametrize("name", ["binlog", "binlog.index", ""])
def test_a_name_without_a_number_is_a_bad_value(name):
    with pytest.raises(BadValue):
        binlog_files.file_number(name)


def test_a_bad_name_skips_its_row_only():
    rows = [
        {"Log_name": "binlog.000003", "File_size": 100},
        {"Log_name": "garbage", "File_size": 5},
        {"Log_name": "binlog.000004", "File_size": 50},
    ]
    families, skipped = collect_rows(binlog_files.COLLECTOR, rows, CONTEXT)
    assert skipped == 1
    assert {f.name: f.samples[0].value for f in families} == {
        "ndb_binlog_files": 2.0,
        "ndb_binlog_files_bytes": 150.0,
        "ndb_binlog_first_file_number": 3.0,
        "ndb_binlog_last_file_number": 4.0,
    }


def test_a_rotation_raises_the_last_number_and_a_purge_the_first():
    server = BinlogServer(1, 1, 4, clock=lambda: 0.0, expire_seconds=None)
    before = values(listing(server))
    server.restart(handled=0)  # the restarted mysqld opens the next file
    rotated = values(listing(server))
    assert rotated["ndb_binlog_last_file_number"] == before["ndb_binlog_last_file_number"] + 1
    assert rotated["ndb_binlog_files"] == before["ndb_binlog_files"] + 1
    assert rotated["ndb_binlog_files_bytes"] > before["ndb_binlog_files_bytes"]
    server.purge_to(server.files[-1].name)
    purged = values(listing(server))
    assert purged["ndb_binlog_first_file_number"] == rotated["ndb_binlog_last_file_number"]
    assert purged["ndb_binlog_files"] == 1
