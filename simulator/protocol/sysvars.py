"""System variables of the simulated SQL node (@@version, ndbinfo_*, ndb_* and the usual ones)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mysql_mimic.variables import DEFAULT, Variables
from ndbsim.engine.catalog import load_json
from ndbsim.errors import SqlError
from ndbsim.versions import NdbVersion


@dataclass(frozen=True)
class VarDef:
    kind: str  # "bool" | "int" | "str"
    default: Any
    scope: str  # "both" | "global" | "session"
    read_only: bool = False
    minimum: int | None = None
    maximum: int | None = None


def definitions(version: NdbVersion, sql_node_id: int) -> dict[str, VarDef]:
    mysql57 = version.is_7x
    defs: dict[str, VarDef] = {}
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
    sql_mode = (
        "ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,"
        "ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION"
    )
    if mysql57:
        sql_mode = sql_mode.replace(
            "ERROR_FOR_DIVISION_BY_ZERO,", "ERROR_FOR_DIVISION_BY_ZERO,NO_AUTO_CREATE_USER,"
        )
    charset = "utf8" if mysql57 else "utf8mb4"
    collation = "utf8_general_ci" if mysql57 else "utf8mb4_0900_ai_ci"
    common = {
        "version": VarDef("str", version.version_string, "global", read_only=True),
        "version_comment": VarDef("str", version.version_comment, "global", read_only=True),
        "version_compile_os": VarDef("str", "Linux", "global", read_only=True),
        "version_compile_machine": VarDef("str", "x86_64", "global", read_only=True),
        "hostname": VarDef("str", "ndbsim", "global", read_only=True),
        "port": VarDef("int", 3306, "global", read_only=True),
        "license": VarDef("str", "GPL", "global", read_only=True),
        "lower_case_table_names": VarDef("int", 0, "global", read_only=True),
        "max_connections": VarDef("int", 151, "global"),
        "performance_schema": VarDef("bool", True, "global", read_only=True),
        "autocommit": VarDef("bool", True, "both"),
        "sql_mode": VarDef("str", sql_mode, "both"),
        "sql_select_limit": VarDef("int", 18446744073709551615, "both"),
        "time_zone": VarDef("str", "SYSTEM", "both"),
        "system_time_zone": VarDef("str", "UTC", "global", read_only=True),
        "transaction_isolation": VarDef("str", "READ-COMMITTED", "both"),
        "transaction_read_only": VarDef("bool", False, "both"),
        "wait_timeout": VarDef("int", 28800, "both"),
        "interactive_timeout": VarDef("int", 28800, "both"),
        "net_write_timeout": VarDef("int", 60, "both"),
        "net_read_timeout": VarDef("int", 30, "both"),
        "net_buffer_length": VarDef("int", 16384, "both"),
        "max_allowed_packet": VarDef("int", 4194304 if mysql57 else 67108864, "both"),
        "auto_increment_increment": VarDef("int", 1, "both"),
        "init_connect": VarDef("str", "", "global"),
        "default_storage_engine": VarDef("str", "InnoDB", "both"),
        "character_set_client": VarDef("str", charset, "both"),
        "character_set_connection": VarDef("str", charset, "both"),
        "character_set_results": VarDef("str", charset, "both"),
        "character_set_server": VarDef("str", "latin1" if mysql57 else "utf8mb4", "both"),
        "character_set_database": VarDef("str", "latin1" if mysql57 else "utf8mb4", "both"),
        "collation_connection": VarDef("str", collation, "both"),
        "collation_server": VarDef("str", "latin1_swedish_ci" if mysql57 else collation, "both"),
        "collation_database": VarDef("str", "latin1_swedish_ci" if mysql57 else collation, "both"),
        "external_user": VarDef("str", "", "session", read_only=True),
        # ndbcluster plugin
        "ndbcluster": VarDef("bool", True, "global", read_only=True),
        "ndb_nodeid": VarDef("int", sql_node_id, "global", read_only=True),
        "ndb_version": VarDef("int", version.ndbinfo_version, "global", read_only=True),
        "ndb_version_string": VarDef("str", f"ndb-{version.ndb_text}", "global", read_only=True),
        "ndb_connectstring": VarDef("str", "127.0.0.1:1186", "global", read_only=True),
        "ndb_cluster_connection_pool": VarDef("int", 1, "global", read_only=True),
        "ndb_batch_size": VarDef("int", 32768, "both"),
        "ndb_use_exact_count": VarDef("bool", False, "both"),
        "ndb_force_send": VarDef("bool", True, "both"),
        "ndb_index_stat_enable": VarDef("bool", True, "both"),
    }
    if mysql57:
        common["tx_isolation"] = VarDef("str", "REPEATABLE-READ", "both")
        common["transaction_isolation"] = VarDef("str", "REPEATABLE-READ", "both")
        common["have_ndbcluster"] = VarDef("str", "YES", "global", read_only=True)
    else:
        common["transaction_isolation"] = VarDef("str", "REPEATABLE-READ", "both")
    defs.update(common)
    return dict(sorted(defs.items()))


def render(value: Any, kind: str) -> str:
    """Text of a value in SHOW VARIABLES."""
    if kind == "bool":
        return "ON" if value else "OFF"
    return "" if value is None else str(value)


def select_value(value: Any, kind: str) -> Any:
    """Value of @@name in a SELECT (booleans are 1/0)."""
    if kind == "bool":
        return int(bool(value))
    return value


class GlobalStore:
    """Global values shared by every connection of the server."""

    def __init__(self, defs: dict[str, VarDef]):
        self.defs = defs
        self.values: dict[str, Any] = {name: d.default for name, d in defs.items()}


class SessionVariables(Variables):
    """Per-connection view: session values start from the global ones."""

    def __init__(self, store: GlobalStore):
        self.store = store
        super().__init__()
        self._values = {
            name: store.values[name] for name, d in store.defs.items() if d.scope != "global"
        }

    @property
    def schema(self) -> dict:
        return {name: (str, d.default, not d.read_only) for name, d in self.store.defs.items()}

    def get_variable(self, name: str) -> Any:
        name = name.lower()
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
            return select_value(self.store.values[name], d.kind)
        if scope in ("SESSION", "LOCAL") and d.scope == "global":
            raise SqlError(1238, f"Variable '{name}' is a GLOBAL variable")
        return select_value(self.get_variable(name), d.kind)

    def set(self, name: str, value: Any, force: bool = False, scope: str = "SESSION") -> None:
        name = name.lower()
        d = self.store.defs.get(name)
        if d is None:
            raise SqlError(1193, f"Unknown system variable '{name}'")
        if force:
            self._values[name] = value
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
            self.store.values[name] = value
        else:
            self._values[name] = value

    @staticmethod
    def _coerce(name: str, d: VarDef, value: Any) -> Any:
        if value is DEFAULT or value is None:
            return d.default
        if d.kind == "bool":
            text = str(value).upper()
            if text in ("1", "ON", "TRUE"):
                return True
            if text in ("0", "OFF", "FALSE"):
                return False
            raise SqlError(1231, f"Variable '{name}' can't be set to the value of '{value}'")
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
                value = self.store.values[name]
            else:
                value = self.get_variable(name)
            out.append((name, render(value, d.kind)))
        return out
