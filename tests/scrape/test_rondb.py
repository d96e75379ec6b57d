"""RonDB told from MySQL NDB Cluster, and every collector gated on RonDB as on the MySQL NDB
release it is built on, but those of RonDB's own views, on RonDB alone."""

from __future__ import annotations

import pytest
from ndbinfo_exporter.collectors.registry import all_collectors
from ndbinfo_exporter.scrape import scraper
from ndbinfo_exporter.scrape.sql_node import target_info

EVERY_OBJECT = frozenset(obj for c in all_collectors() for obj in c.reads)


def packed(major: int, minor: int, build: int) -> int:
    """@@ndbinfo_version: NDB_VERSION_D, (major << 16) | (minor << 8) | build."""
    return major << 16 | minor << 8 | build


def target(version: str, ndbinfo_version: int | None, objects=EVERY_OBJECT):
    return target_info(version, ndbinfo_version, objects, "ok", 1)


@pytest.mark.parametrize(
    ("version", "ndbinfo_version", "flavour", "own", "ndb", "server"),
    [
        ("22.10.12LTS-cluster", packed(22, 10, 12), "rondb", (22, 10, 12), (8, 0, 34), (8, 0, 34)),
        ("21.04.11-cluster", packed(21, 4, 11), "rondb", (21, 4, 11), (8, 0, 23), (8, 0, 23)),
        ("24.10.15-cluster", None, "rondb", (24, 10, 15), (8, 4, 0), (8, 4, 0)),
        ("25.10.1-cluster", packed(25, 10, 1), "rondb", (25, 10, 1), (8, 4, 0), (8, 4, 0)),
        ("8.4.3-cluster", packed(8, 4, 3), "mysql", None, (8, 4, 3), (8, 4, 3)),
        ("5.7.16-ndb-7.5.4-cluster-gpl", packed(7, 5, 4), "mysql", None, (7, 5, 4), (5, 7, 16)),
    ],
)
def test_the_flavour_its_release_and_the_mysql_ndb_release_gated_by(
    version, ndbinfo_version, flavour, own, ndb, server
):
    info = target(version, ndbinfo_version)
    assert (info.flavour, info.rondb_version, info.ndb_version) == (flavour, own, ndb)
    assert info.server_version == server


@pytest.mark.parametrize(
    ("rondb", "mysql"),
    [
        (("21.04.11-cluster", packed(21, 4, 11)), ("8.0.23-cluster", packed(8, 0, 23))),
        (("22.10.12LTS-cluster", packed(22, 10, 12)), ("8.0.34-cluster", packed(8, 0, 34))),
        (("24.10.15-cluster", packed(24, 10, 15)), ("8.4.0-cluster", packed(8, 4, 0))),
    ],
)
def test_every_collector_is_gated_on_rondb_as_on_its_mysql_ndb_base(rondb, mysql):
    """Alike on both flavours, but for the collectors of RonDB's own views: only on RonDB."""
    on_rondb, on_mysql = target(*rondb), target(*mysql)
    for collector in all_collectors():
        if collector.flavour == "rondb":
            assert not collector.available(on_mysql), collector.name
            assert collector.available(on_rondb) == (collector.min_version <= on_rondb.ndb_version)
            continue
        assert collector.flavour is None, collector.name
        assert collector.available(on_rondb) == collector.available(on_mysql), collector.name
        assert collector.for_target(on_rondb).name == collector.for_target(on_mysql).name


def test_a_collector_newer_than_the_base_stays_off_on_rondb():
    newer = [c for c in all_collectors() if c.min_version > (8, 0, 34)]
    assert newer, "no collector needs a release after 8.0.34"
    on_rondb = target("22.10.12LTS-cluster", packed(22, 10, 12))
    assert not any(c.available(on_rondb) for c in newer)


def test_the_version_info_names_the_flavour_its_release_and_the_base():
    (sample,) = scraper._version_info(target("22.10.12LTS-cluster", packed(22, 10, 12))).samples
    assert sample.labels == {
        "version": "22.10.12LTS-cluster",
        "ndb_version": "8.0.34",
        "flavour": "rondb",
        "flavour_version": "22.10.12",
    }
    (sample,) = scraper._version_info(target("8.4.3-cluster", packed(8, 4, 3))).samples
    assert (sample.labels["flavour"], sample.labels["flavour_version"]) == ("mysql", "8.4.3")
