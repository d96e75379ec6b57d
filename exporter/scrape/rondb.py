"""RonDB, the NDB fork behind Hopsworks, told from MySQL NDB Cluster by its version numbers.

RonDB numbers its releases by year and month (21.04, 22.10, 24.10): its MYSQL_VERSION file
holds them, so @@version reads "22.10.12...-cluster" and @@ndbinfo_version packs 22.10.12
(NDB_VERSION_D, storage/ndb/include/CMakeLists.txt). MySQL NDB Cluster's majors are 7, 8 and
9. A RonDB line is built on one MySQL NDB release, which no variable a SQL client reads names
(RonDB's version string leaves it out: ndbGetVersionString prints "RonDB-22.10.12"); the
release notes give it. Collectors, statements and rules are gated by that MySQL NDB release."""

from __future__ import annotations

from ndbinfo_exporter.values import Version

# The smallest RonDB major: RonDB 21.04 was the first release line.
FIRST_MAJOR = 21

# RonDB release line (major, minor) -> the MySQL NDB release it is built on, from RonDB's
# release notes: 21.04 on 8.0.23, 22.10 on 8.0.34, 24.10 on the 8.4 line (later 24.10
# releases merged 8.4.4 and 8.4.6; gated as 8.4.0, what every 24.10 release has).
MYSQL_NDB_BASE: dict[tuple[int, int], Version] = {
    (21, 4): (8, 0, 23),
    (22, 10): (8, 0, 34),
    (24, 10): (8, 4, 0),
}


def is_rondb(version: Version) -> bool:
    """True for the version numbers of a RonDB release."""
    return version[0] >= FIRST_MAJOR


def mysql_ndb_base(version: Version) -> Version:
    """The MySQL NDB release a RonDB release is built on: that of its line, else of the
    newest known line before it (the oldest known line for one before all of them)."""
    line = version[:2]
    known = sorted(MYSQL_NDB_BASE)
    before = [each for each in known if each <= line]
    return MYSQL_NDB_BASE[before[-1] if before else known[0]]
