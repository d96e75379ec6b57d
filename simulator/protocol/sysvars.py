"""System variables of the simulated SQL node (@@version, ndbinfo_*, ndb_* and the usual ones)."""

from __future__ import annotations

import dataclasses
import json
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mysql_mimic.charset import CharacterSet
from mysql_mimic.variables import DEFAULT, Variables
from ndbsim.engine.catalog import load_json
from ndbsim.errors import SqlError
from ndbsim.versions import NdbVersion


@dataclass(frozen=True)
class VarDef:
    kind: str  # "bool" | "int" | "double" | "str"
    default: Any
    scope: str  # "both" | "global" | "session"
    read_only: bool = False
    minimum: int | None = None
    maximum: int | None = None
    alias_of: str | None = None  # the variable this deprecated alias stands for


MYSQLD_DATA = Path(__file__).parents[1] / "data" / "mysqld"


def load_mysqld(name: str) -> dict:
    """A table of simulator/data/mysqld (system and status variables of a mysqld)."""
    return json.loads((MYSQLD_DATA / name).read_text())


def server_version(version: NdbVersion) -> tuple[int, ...]:
    """The MySQL server version of the SQL node ("5.7.16-ndb-7.5.4-cluster-gpl" -> (5, 7, 16);
    RonDB: its MySQL NDB base)."""
    return version.server


def version_tuple(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in text.split("."))


def present(spec: dict, server: tuple[int, ...]) -> bool:
    """Whether a variable with since/until bounds exists on that server version."""
    if "since" in spec and server < version_tuple(spec["since"]):
        return False
    return not ("until" in spec and server >= version_tuple(spec["until"]))


def _default(spec: dict, server: tuple[int, ...]) -> Any:
    """The 8.0 default, or the one of the latest "defaults" version at or below the server."""
    value, at = spec.get("default"), (8, 0)
    for since, other in spec.get("defaults", {}).items():
        key = version_tuple(since)
        if key <= server and (key >= at or server < (8, 0)):
            value, at = other, key
    return value


def server_uuid(sql_node_id: int, server_id: int | None = None) -> str:
    """@@server_uuid of a simulated SQL node (the server id tells the clusters of --replica
    apart)."""
    tag = f"-{server_id}" if server_id is not None else ""
    return str(uuid.uuid5(uuid.NAMESPACE_DNS, f"ndbsim-{sql_node_id}{tag}"))


# What a binlog server of `ndbsim --replica` changes: it writes the binary log.
BINLOG_VALUES: dict[str, Any] = {
    "log_bin": True,
    "ndb_log_bin": True,
    "log_bin_basename": "/var/lib/mysql/binlog",
    "log_bin_index": "/var/lib/mysql/binlog.index",
}


# A binlog server of an active-active pair: it logs its applier's changes, ndb_apply_status
# writes included.
APPLY_STATUS_LOGGED: dict[str, Any] = {
    "ndb_log_apply_status": True,
    "log_replica_updates": True,
    "log_slave_updates": True,
}


def conflict_role_values(role: str) -> dict[str, Any]:
    """The applier's role in an active-active pair (PRIMARY or SECONDARY), under the
    variable's names of 8.0.23 and before."""
    return {"ndb_applier_conflict_role": role, "ndb_slave_conflict_role": role}


def _server_values(version: NdbVersion, sql_node_id: int, server_id: int | None) -> dict[str, Any]:
    """Values only the running server knows: versions, host, paths, the node id."""
    server = ".".join(str(p) for p in server_version(version))
    return {
        "version": version.version_string,
        "version_comment": version.version_comment,
        "version_compile_os": "Linux",
        "version_compile_machine": "x86_64",
        "version_compile_zlib": "1.2.13",
        "innodb_version": server,
        "license": "GPL",
        "hostname": "ndbsim",
        "port": 3306,
        "server_uuid": server_uuid(sql_node_id, server_id),
        "system_time_zone": "UTC",
        "basedir": "/usr/",
        "datadir": "/var/lib/mysql/",
        "tmpdir": "/tmp",
        "plugin_dir": "/usr/lib/mysql/plugin/",
        "lc_messages_dir": "/usr/share/mysql/",
        "character_sets_dir": "/usr/share/mysql/charsets/",
        "secure_file_priv": "/var/lib/mysql-files/",
        "pid_file": "/var/run/mysqld/mysqld.pid",
        "socket": "/var/run/mysqld/mysqld.sock",
        "log_error": "/var/log/mysql/error.log",
        "general_log_file": "/var/lib/mysql/ndbsim.log",
        "slow_query_log_file": "/var/lib/mysql/ndbsim-slow.log",
        # no binary log on this SQL node (log_bin OFF)
        "log_bin_basename": None,
        "log_bin_index": None,
        "relay_log": "",
        "relay_log_basename": "/var/lib/mysql/ndbsim-relay-bin",
        "relay_log_index": "/var/lib/mysql/ndbsim-relay-bin.index",
        "ndb_nodeid": sql_node_id,
        "ndb_version": version.ndbinfo_version,
        # NDB_NDB_VERSION_STRING: "RonDB-22.10.12" on RonDB (ndb_version.h.in)
        "ndb_version_string": f"{'RonDB' if version.is_rondb else 'ndb'}-{version.ndb_text}",
    }


def definitions(
    version: NdbVersion,
    sql_node_id: int,
    server_id: int | None = None,
    overrides: dict[str, Any] | None = None,
) -> dict[str, VarDef]:
    """Every system variable of the SQL node's mysqld version (data/mysqld/sysvars.json plus
    the ndbinfo_* variables of the ground truth); `server_id` the node's own (None: the
    version's default); `overrides` the defaults its part in replication changes."""
    server = server_version(version)
    known = _server_values(version, sql_node_id, server_id)
    overrides = overrides or {}
    defs: dict[str, VarDef] = {}
    variables = load_mysqld("sysvars.json")["variables"]
    for name, spec in variables.items():
        if not present(spec, server):
            continue
        default = known[name] if spec.get("server") else _default(spec, server)
        default = overrides.get(name, default)
        if name == "server_id" and server_id is not None:
            default = server_id
        defs[name] = VarDef(
            spec["type"],
            default,
            spec["scope"],
            read_only=spec.get("read_only", False),
            minimum=spec.get("min"),
            maximum=spec.get("max"),
        )
    _resolve_aliases(defs, variables)
    for name, spec in load_json("schema-8.0.json")["ndbinfo_system_variables"].items():
        kind = {"uint": "int", "bool": "bool", "string": "str"}[spec["type"]]
        default = spec.get("default")
        if name == "ndbinfo_version":
            default = version.ndbinfo_version
        if kind == "bool":
            default = default == "ON"
        scope = (
            "global"
            if spec["scope"].startswith("global only") or spec["scope"] == "global"
            else "both"
        )
        defs[name] = VarDef(
            kind,
            default,
            scope,
            read_only=spec.get("read_only", False),
            minimum=spec.get("min"),
            maximum=spec.get("max"),
        )
    return dict(sorted(defs.items()))


def _resolve_aliases(defs: dict[str, VarDef], variables: dict[str, dict]) -> None:
    """Where the server has both names, the old one is the new one's deprecated alias (from
    MySQL 8.0.26): the same definition and default, and one value (GlobalStore.key)."""
    for name, spec in variables.items():
        canonical = spec.get("alias_of")
        if name in defs and canonical in defs:
            defs[name] = dataclasses.replace(defs[canonical], alias_of=canonical)


def render(value: Any, kind: str) -> str:
    """Text of a value in SHOW VARIABLES."""
    if kind == "bool":
        return "ON" if value else "OFF"
    if kind == "double" and value is not None:
        return f"{float(value):.6f}"
    return "" if value is None else str(value)


def select_value(value: Any, kind: str) -> Any:
    """Value of @@name in a SELECT (booleans are 1/0)."""
    if kind == "bool":
        return int(bool(value))
    return value


def _check_charset(name: str, value: str) -> None:
    """mysqld knows its character sets and collations; an unknown one is an error."""
    charsets = CharacterSet.__members__
    if name.startswith("character_set_"):
        if value.lower() not in charsets:
            raise SqlError(1115, f"Unknown character set: '{value}'")
    elif value.lower() != "binary" and value.lower().split("_")[0] not in charsets:
        raise SqlError(1273, f"Unknown collation: '{value}'")


class GlobalStore:
    """Global values shared by every connection of the server."""

    def __init__(self, defs: dict[str, VarDef]):
        self.defs = defs
        self.values: dict[str, Any] = {
            name: d.default for name, d in defs.items() if d.alias_of is None
        }

    def key(self, name: str) -> str:
        """The name a variable's value is kept under: an alias's is its variable's."""
        d = self.defs.get(name)
        return d.alias_of if d is not None and d.alias_of else name


class SessionVariables(Variables):
    """Per-connection view: session values start from the global ones."""

    def __init__(self, store: GlobalStore):
        self.store = store
        super().__init__()
        self._values = {
            name: store.values[name]
            for name, d in store.defs.items()
            if d.scope != "global" and d.alias_of is None
        }

    @property
    def schema(self) -> dict:
        return {name: (str, d.default, not d.read_only) for name, d in self.store.defs.items()}

    def get_variable(self, name: str) -> Any:
        name = self.store.key(name.lower())
        if name == "timestamp" and not self._values.get(name):
            return round(time.time(), 6)  # the session clock unless SET timestamp
        if name in self._values:
            return self._values[name]
        if name in self.store.values:
            return self.store.values[name]
        raise SqlError(1193, f"Unknown system variable '{name}'")

    def lookup(self, name: str, scope: str = "") -> Any:
        """@@name / @@global.name / @@session.name, as SELECT shows it."""
        name = name.lower()
        d = self.store.defs.get(name)
        if d is None:
            raise SqlError(1193, f"Unknown system variable '{name}'")
        if scope == "GLOBAL":
            if d.scope == "session":
                raise SqlError(1238, f"Variable '{name}' is a SESSION variable")
            return select_value(self.store.values[self.store.key(name)], d.kind)
        if scope in ("SESSION", "LOCAL") and d.scope == "global":
            raise SqlError(1238, f"Variable '{name}' is a GLOBAL variable")
        return select_value(self.get_variable(name), d.kind)

    def set(self, name: str, value: Any, force: bool = False, scope: str = "SESSION") -> None:
        name = name.lower()
        d = self.store.defs.get(name)
        if d is None:
            raise SqlError(1193, f"Unknown system variable '{name}'")
        key = self.store.key(name)
        if force:
            self._values[key] = value
            return
        if d.read_only:
            raise SqlError(1238, f"Variable '{name}' is a read only variable")
        if scope != "GLOBAL" and d.scope == "global":
            raise SqlError(
                1229, f"Variable '{name}' is a GLOBAL variable and should be set with SET GLOBAL"
            )
        if scope == "GLOBAL" and d.scope == "session":
            raise SqlError(
                1228, f"Variable '{name}' is a SESSION variable and can't be used with SET GLOBAL"
            )
        value = self._coerce(name, d, value)
        if scope == "GLOBAL":
            self.store.values[key] = value
        else:
            self._values[key] = value

    @staticmethod
    def _coerce(name: str, d: VarDef, value: Any) -> Any:
        if value is DEFAULT or value is None:
            return d.default
        if name.startswith(("character_set_", "collation_")) and name != "character_set_system":
            _check_charset(name, str(value))
        if d.kind == "bool":
            text = str(value).upper()
            if text in ("1", "ON", "TRUE"):
                return True
            if text in ("0", "OFF", "FALSE"):
                return False
            raise SqlError(1231, f"Variable '{name}' can't be set to the value of '{value}'")
        if d.kind == "double":
            try:
                return float(value)
            except (TypeError, ValueError):
                raise SqlError(1232, f"Incorrect argument type to variable '{name}'") from None
        if d.kind == "int":
            try:
                number = int(value)
            except (TypeError, ValueError):
                raise SqlError(1232, f"Incorrect argument type to variable '{name}'") from None
            if d.minimum is not None:
                number = max(number, d.minimum)
            if d.maximum is not None:
                number = min(number, d.maximum)
            return number
        return str(value)

    def rows(self, scope: str) -> list[tuple[str, str]]:
        """(Variable_name, Value) for SHOW [GLOBAL|SESSION] VARIABLES."""
        out = []
        for name, d in self.store.defs.items():
            if scope == "GLOBAL":
                if d.scope == "session":
                    continue
                value = self.store.values[self.store.key(name)]
            else:
                value = self.get_variable(name)
            out.append((name, render(value, d.kind)))
        return out
