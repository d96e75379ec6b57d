"""Whether the exporter sees NDB on a SQL node: the engine, the ndbinfo schema, the privilege."""

from __future__ import annotations

import logging

import pytest
from mysql.connector import errors
from ndbinfo_exporter.scrape.exposition import render
from ndbinfo_exporter.scrape.ndb_visibility import (
    ENGINE_SQL,
    GRANTS_SQL,
    VisibilityLog,
    detect_visibility,
    may_read_ndbinfo,
    visibility_family,
)
from ndbinfo_exporter.targets import TargetConfig

from tests.support.fake_sql_node import FakeSqlNode, RunningFakeSqlNode
from tests.support.scraping import PASSWORD, by_collector, gauge_collector, make_scraper, samples

NDBINFO_VERSION = (8 << 16) | (4 << 8) | 3
OBJECTS = frozenset({"nodes"})


@pytest.mark.parametrize(
    ("grants", "may_read"),
    [
        (["GRANT SELECT, PROCESS, REPLICATION CLIENT ON *.* TO `exporter`@`%`"], True),
        (
            [
                "GRANT USAGE ON *.* TO `exporter`@`%`",
                "GRANT SELECT ON `ndbinfo`.* TO `exporter`@`%`",
            ],
            True,
        ),
        (["GRANT ALL PRIVILEGES ON *.* TO `root`@`localhost` WITH GRANT OPTION"], True),
        # MariaDB shows the password hash in the same line
        (["GRANT PROCESS ON *.* TO `exporter`@`%` IDENTIFIED BY PASSWORD '*D8218'"], False),
        (["GRANT USAGE ON *.* TO `exporter`@`%`"], False),
        (["GRANT SELECT ON `app`.* TO `exporter`@`%`"], False),
        (["GRANT SELECT (`node_id`) ON `ndbinfo`.`nodes` TO `exporter`@`%`"], False),
        (["GRANT `monitoring`@`%` TO `exporter`@`%`"], False),
        (["GRANT SELECT_PRIV_LIKE_ADMIN ON *.* TO `exporter`@`%`"], False),
    ],
)
def test_grants_that_let_the_account_read_ndbinfo(grants, may_read):
    assert may_read_ndbinfo(grants) is may_read


class Cursor:
    """Answers ENGINE_SQL and GRANTS_SQL with the given rows; None raises as a server would
    for a statement it does not know."""

    def __init__(self, engine: list[str] | None, grants: list[str] | None = None):
        self._answers = {ENGINE_SQL: engine, GRANTS_SQL: grants}
        self.executed: list[str] = []
        self._rows: list[tuple[str]] = []

    def execute(self, sql: str) -> None:
        self.executed.append(sql)
        answer = self._answers[sql]
        if answer is None:
            raise errors.ProgrammingError(msg="not supported", errno=1064)
        self._rows = [(value,) for value in answer]

    def fetchall(self) -> list[tuple[str]]:
        return self._rows


ALL_READ = ["GRANT SELECT ON *.* TO `exporter`@`%`"]
PROCESS_ONLY = ["GRANT PROCESS ON *.* TO `exporter`@`%`"]


@pytest.mark.parametrize(
    ("engine", "ndbinfo_version", "objects", "grants", "state"),
    [
        (["YES"], NDBINFO_VERSION, OBJECTS, None, "ok"),
        (["DEFAULT"], NDBINFO_VERSION, OBJECTS, None, "ok"),
        ([], None, frozenset(), None, "engine_absent"),  # MariaDB, MySQL without NDB
        (["NO"], None, frozenset(), None, "engine_absent"),  # --skip-ndbcluster
        (["DISABLED"], NDBINFO_VERSION, OBJECTS, None, "engine_absent"),
        (["YES"], None, frozenset(), PROCESS_ONLY, "ndbinfo_absent"),  # no ndbinfo plugin
        (["YES"], NDBINFO_VERSION, frozenset(), ALL_READ, "ndbinfo_absent"),
        (["YES"], NDBINFO_VERSION, frozenset(), PROCESS_ONLY, "privilege_missing"),
        (["YES"], NDBINFO_VERSION, frozenset(), None, "privilege_missing"),
        (None, NDBINFO_VERSION, OBJECTS, None, "ok"),  # ENGINES not answered proves nothing
        (None, NDBINFO_VERSION, frozenset(), PROCESS_ONLY, "privilege_missing"),
    ],
)
def test_visibility_from_engine_objects_and_grants(engine, ndbinfo_version, objects, grants, state):
    cursor = Cursor(engine, grants)
    assert detect_visibility(cursor, ndbinfo_version, objects) == state
    # SHOW GRANTS only when the schema is not seen although the ndbinfo plugin runs
    asked = state != "engine_absent" and not objects and ndbinfo_version is not None
    assert (GRANTS_SQL in cursor.executed) is asked


def test_visibility_family_has_one_series_per_state():
    assert render([visibility_family("engine_absent")]).text.decode() == (
        "# HELP ndb_engine_visibility What the exporter's account sees of NDB on the SQL node,"
        " 1 for the current state: ok, engine_absent (no ndbcluster engine, or disabled),"
        " ndbinfo_absent (no ndbinfo schema) or privilege_missing (the account may not read"
        " ndbinfo). Collectors that need what is not seen are skipped.\n"
        "# TYPE ndb_engine_visibility gauge\n"
        'ndb_engine_visibility{state="ok"} 0.0\n'
        'ndb_engine_visibility{state="engine_absent"} 1.0\n'
        'ndb_engine_visibility{state="ndbinfo_absent"} 0.0\n'
        'ndb_engine_visibility{state="privilege_missing"} 0.0\n'
    )


def test_a_change_is_logged_once(caplog):
    changes = VisibilityLog("sql1:3306")
    with caplog.at_level(logging.INFO):
        for state in ("ok", "ok", "engine_absent", "engine_absent", "privilege_missing", "ok"):
            changes.observe(state)
    assert [(r.levelname, r.getMessage()) for r in caplog.records] == [
        (
            "WARNING",
            "NDB not visible: the SQL node has no ndbcluster storage engine, or it is disabled",
        ),
        (
            "WARNING",
            "NDB not visible: the exporter's account may not read the ndbinfo schema"
            " (SELECT on ndbinfo.* is missing)",
        ),
        ("INFO", "NDB visible again"),
    ]
    assert caplog.records[0].fields == {"target": "sql1:3306", "state": "engine_absent"}


@pytest.mark.parametrize(
    ("node", "state"),
    [
        (
            FakeSqlNode(
                version="10.11.6-MariaDB", ndbinfo_version=None, objects=(), engine_support=None
            ),
            "engine_absent",
        ),
        (FakeSqlNode(ndbinfo_version=None, objects=()), "ndbinfo_absent"),
        (
            FakeSqlNode(objects=(), grants=("GRANT USAGE ON *.* TO `exporter`@`%`",)),
            "privilege_missing",
        ),
    ],
    ids=["engine_absent", "ndbinfo_absent", "privilege_missing"],
)
async def test_scrape_of_a_sql_node_without_ndb(node, state, caplog):
    node.password = PASSWORD
    collectors = [
        gauge_collector("nodes", "SELECT node_id FROM ndbinfo.nodes"),
        gauge_collector(
            "server_table", "SELECT 1", reads={}, server_reads={"performance_schema.t": ("x",)}
        ),
    ]
    scraper = make_scraper(collectors)
    try:
        with RunningFakeSqlNode(node) as running, caplog.at_level(logging.INFO):
            target = TargetConfig("127.0.0.1", running.port, "exporter", PASSWORD)
            first = await scraper.scrape(target, 5)
            second = await scraper.scrape(target, 5)
    finally:
        scraper.close()
    for result in (first, second):
        assert result.up and samples(result, "ndb_up") == {(): 1}
        assert samples(result, "ndb_engine_visibility")[(("state", state),)] == 1
        assert sum(samples(result, "ndb_engine_visibility").values()) == 1
        skipped = by_collector(result, "ndb_exporter_collector_skipped")
        assert skipped["nodes"] == 1
        # a table of the SQL node needs the engine
        assert skipped["server_table"] == (1 if state == "engine_absent" else 0)
        assert result.collector_errors == {}
    warnings = [r for r in caplog.records if r.getMessage().startswith("NDB not visible")]
    assert len(warnings) == 1
    assert warnings[0].fields == {"target": f"127.0.0.1:{node.port}", "state": state}


async def test_a_grant_given_on_a_pooled_connection_is_seen_at_the_next_scrape(caplog):
    node = FakeSqlNode(password=PASSWORD, objects=(), grants=("GRANT USAGE ON *.* TO `x`@`%`",))
    scraper = make_scraper([gauge_collector("nodes", "SELECT node_id FROM ndbinfo.nodes")])
    try:
        with RunningFakeSqlNode(node) as running, caplog.at_level(logging.INFO):
            target = TargetConfig("127.0.0.1", running.port, "exporter", PASSWORD)
            before = await scraper.scrape(target, 5)
            node.objects = ("nodes",)  # GRANT SELECT ON ndbinfo.* ...
            after = await scraper.scrape(target, 5)
            connections = node.max_open_connections
    finally:
        scraper.close()
    assert samples(before, "ndb_engine_visibility")[(("state", "privilege_missing"),)] == 1
    assert samples(after, "ndb_engine_visibility")[(("state", "ok"),)] == 1
    assert by_collector(after, "ndb_exporter_collector_skipped") == {"nodes": 0}
    assert connections == 1
    assert [r.getMessage() for r in caplog.records if "NDB" in r.getMessage()] == [
        "NDB not visible: the exporter's account may not read the ndbinfo schema"
        " (SELECT on ndbinfo.* is missing)",
        "NDB visible again",
    ]
