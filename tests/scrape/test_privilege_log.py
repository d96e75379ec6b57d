"""A collector refused for lack of a privilege is said once, naming the privilege and the
object, from mysqld's error."""

from __future__ import annotations

import logging

import pytest
from mysql.connector import errors
from ndbinfo_exporter.collectors.registry import all_collectors
from ndbinfo_exporter.scrape.privileges import PrivilegeLog, missing_privilege

NODES = next(c for c in all_collectors() if c.name == "nodes")


def refused(errno: int, msg: str) -> errors.DatabaseError:
    return errors.ProgrammingError(msg=msg, errno=errno)


@pytest.mark.parametrize(
    ("errno", "msg", "expected"),
    [
        (
            1142,
            "SELECT command denied to user 'e'@'h' for table 'nodes'",
            ("SELECT", "ndbinfo.nodes"),
        ),
        (
            1356,
            "View 'ndbinfo.nodes' references invalid table(s) or column(s) or function(s) or "
            "definer/invoker of view lack rights to use them",
            ("SELECT", "the tables under the view ndbinfo.nodes"),
        ),
        (
            1227,
            "Access denied; you need (at least one of) the SUPER, REPLICATION CLIENT privilege(s)"
            " for this operation",
            ("SUPER or REPLICATION CLIENT", " ".join(NODES.sql.split())),
        ),
        (1044, "Access denied for user 'e'@'h' to database 'ndbinfo'", ("SELECT", "ndbinfo.*")),
        (1146, "Table 'ndbinfo.nodes' doesn't exist", None),
    ],
)
def test_the_privilege_and_object_come_from_the_error(errno, msg, expected):
    assert missing_privilege(refused(errno, msg), NODES) == expected


def test_a_statement_that_depends_on_the_version_is_named_by_its_forms():
    replica_status = next(c for c in all_collectors() if c.name == "replica_status")
    denied = refused(
        1227,
        "Access denied; you need (at least one of) the SUPER, REPLICATION CLIENT privilege(s)"
        " for this operation",
    )
    assert missing_privilege(denied, replica_status) == (
        "SUPER or REPLICATION CLIENT",
        "SHOW REPLICA STATUS or SHOW SLAVE STATUS",
    )


def test_said_once_while_it_lasts_and_when_it_ends(caplog):
    log = PrivilegeLog("sql1:3306")
    with caplog.at_level(logging.INFO):
        for _ in range(3):
            log.observe("nodes", ("SELECT", "ndbinfo.nodes"))
        log.observe("nodes", None)
        log.observe("nodes", None)
    assert [r.getMessage() for r in caplog.records] == [
        "collector lacks the SELECT privilege",
        "collector has its privilege again",
    ]
    assert caplog.records[0].fields["object"] == "ndbinfo.nodes"
