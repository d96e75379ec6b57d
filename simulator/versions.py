"""NDB versions the simulated SQL node can pretend to be: MySQL NDB Cluster releases, and
RonDB releases (an NDB fork numbered by its own releases, built on a MySQL NDB release)."""

from __future__ import annotations

from dataclasses import dataclass

MYSQL_NDB = ("7.5.4", "7.6", "8.0", "8.4", "9.7")
SUPPORTED = (*MYSQL_NDB, "rondb-22.10", "rondb-24.10")
DEFAULT = "8.4"


@dataclass(frozen=True)
class NdbVersion:
    """`ndb`: the MySQL NDB release whose behaviour the version has (RonDB: the release it is
    built on), what every version check compares; `release`: RonDB's own release numbers, which
    its version strings and packed version numbers carry (None for MySQL NDB)."""

    series: str
    ndb: tuple[int, int, int]
    version_string: str
    version_comment: str
    ndbinfo_version: int
    release: tuple[int, int, int] | None = None

    @property
    def is_rondb(self) -> bool:
        return self.release is not None

    @property
    def numbers(self) -> tuple[int, int, int]:
        """The release numbers the product prints and packs (RonDB's own on RonDB)."""
        return self.release or self.ndb

    @property
    def ndb_text(self) -> str:
        return self.text_of(self.numbers)

    def text_of(self, numbers: tuple[int, int, int]) -> str:
        """Release numbers as the product writes them (RonDB: a two-digit minor, 21.04)."""
        major, minor, build = numbers
        return f"{major}.{minor:02d}.{build}" if self.is_rondb else f"{major}.{minor}.{build}"

    @property
    def server(self) -> tuple[int, ...]:
        """The MySQL server release whose behaviour the SQL node has ("5.7.16-ndb-7.5.4-..."
        -> (5, 7, 16); RonDB: its MySQL NDB base)."""
        if self.is_rondb:
            return self.ndb
        return tuple(int(p) for p in self.version_string.split("-")[0].split("."))

    def version_label(self, ndb_text: str) -> str:
        """ndbGetVersionString of a node running `ndb_text`: "mysql-8.4.3 ndb-8.4.3"; RonDB
        prints its own release only, "RonDB-22.10.12" (storage/ndb/src/common/util/
        version.cpp, whose MySQL branch RonDB disables)."""
        if self.is_rondb:
            return f"RonDB-{ndb_text}"
        mysql = self.version_string.split("-")[0] if self.is_7x else ndb_text
        return f"mysql-{mysql} ndb-{ndb_text}"

    @property
    def is_7x(self) -> bool:
        """NDB 7.x runs on a MySQL 5.7 server (different SQL-node behaviour and types)."""
        return self.ndb[0] == 7

    def at_least(self, major: int, minor: int, build: int = 0) -> bool:
        return self.ndb >= (major, minor, build)


def _make(series: str, ndb: tuple[int, int, int], version_string: str) -> NdbVersion:
    major, minor, build = ndb
    return NdbVersion(
        series=series,
        ndb=ndb,
        version_string=version_string,
        version_comment="MySQL Cluster Community Server - GPL",
        ndbinfo_version=(major << 16) | (minor << 8) | build,
    )


def _rondb(series: str, release: tuple[int, int, int], base: tuple[int, int, int]) -> NdbVersion:
    """A RonDB release on its MySQL NDB base: RonDB's MYSQL_VERSION file holds its own release,
    which @@version (with the "-cluster" suffix of an NDB build, cmake/mysql_version.cmake) and
    @@ndbinfo_version (storage/ndb/include/CMakeLists.txt splits the same numbers) carry; the
    comment is the cmake default of a build without one."""
    major, minor, build = release
    return NdbVersion(
        series=series,
        ndb=base,
        version_string=f"{major}.{minor:02d}.{build}-cluster",
        version_comment="Source distribution",
        ndbinfo_version=(major << 16) | (minor << 8) | build,
        release=release,
    )


# 7.x SQL nodes are MySQL 5.7 servers with an "-ndb-<version>-cluster-gpl" suffix; from 8.0 on
# the server and NDB versions are the same number.
_VERSIONS = {
    "7.5.4": _make("7.5.4", (7, 5, 4), "5.7.16-ndb-7.5.4-cluster-gpl"),
    "7.6": _make("7.6", (7, 6, 34), "5.7.44-ndb-7.6.34-cluster-gpl"),
    "8.0": _make("8.0", (8, 0, 43), "8.0.43-cluster"),
    "8.4": _make("8.4", (8, 4, 3), "8.4.3-cluster"),
    # the newest Innovation release the 9.x ndbinfo facts describe
    "9.7": _make("9.7", (9, 7, 0), "9.7.0-cluster"),
    # RonDB's release notes: 22.10 is built on MySQL NDB 8.0.34, 24.10 on the 8.4 line
    "rondb-22.10": _rondb("rondb-22.10", (22, 10, 12), (8, 0, 34)),
    "rondb-24.10": _rondb("rondb-24.10", (24, 10, 15), (8, 4, 3)),
}
# "9.x" names the newest 9.x release
_ALIASES = {"9.x": "9.7"}


def parse_version(text: str) -> NdbVersion:
    """Map "8.4", "8.4.3", "7.5.4", "9.x", ... to a supported version; ValueError otherwise."""
    key = str(text).strip()
    key = _ALIASES.get(key, key)
    if key in _VERSIONS:
        return _VERSIONS[key]
    for version in _VERSIONS.values():
        if key in (version.ndb_text, version.version_label(version.ndb_text)):
            return version
    raise ValueError(f"unsupported NDB version {text!r}: choose one of {', '.join(SUPPORTED)}")
