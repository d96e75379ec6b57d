"""Status variables (SHOW STATUS, performance_schema.global_status) of the simulated SQL node."""

from __future__ import annotations

import threading
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from ndbsim.engine.catalog import load_json
from ndbsim.protocol.sysvars import load_mysqld, present, server_version
from ndbsim.versions import NdbVersion

# Not present in 7.x (status-vars.json "7.5/7.6 differences").
_NOT_IN_7X = (
    "Ndb_config_generation",
    "Ndb_trans_hint_count_session",
    "Ndb_fetch_table_stats",
    "Ndb_replica_max_replicated_epoch",
)
# The NDB version that added them: NDB$MAX_INS() and NDB$MAX_DEL_WIN_INS() came with NDB 8.0.30
# (NDB Cluster 8.0.30 release notes; manual, NDB Cluster Replication Conflict Resolution).
_SINCE = {
    "Ndb_conflict_fn_max_ins": (8, 0, 30),
    "Ndb_conflict_fn_max_del_win_ins": (8, 0, 30),
}


@dataclass(frozen=True)
class StatusVar:
    name: str
    is_string: bool
    per_session: bool


def ndb_variables(version: NdbVersion) -> list[StatusVar]:
    """Every Ndb_% status variable this version has."""
    out = []
    for spec in load_json("status-vars.json")["variables"]:
        name = spec["name"]
        if version.is_7x and (
            name in _NOT_IN_7X or name.endswith("_replica") or name.startswith("Ndb_metadata_")
        ):
            continue
        if name in _SINCE and not version.at_least(*_SINCE[name]):
            continue
        out.append(
            StatusVar(
                name=name,
                is_string=spec["type"] == "string",
                per_session="scope_note" in spec,
            )
        )
    return out


def server_variables(version: NdbVersion) -> dict[str, Any]:
    """The other status variables of that mysqld version with their start values
    (data/mysqld/status.json): a constant, or 0 for a counter."""
    server = server_version(version)
    return {
        name: spec.get("value", 0)
        for name, spec in load_mysqld("status.json")["variables"].items()
        if present(spec, server)
    }


_COM = {
    "select": "Com_select", "with": "Com_select", "insert": "Com_insert",
    "update": "Com_update", "delete": "Com_delete", "replace": "Com_replace",
    "commit": "Com_commit", "rollback": "Com_rollback", "begin": "Com_begin",
    "start": "Com_begin", "set": "Com_set_option", "use": "Com_change_db",
    "prepare": "Com_prepare_sql", "execute": "Com_execute_sql",
    "deallocate": "Com_dealloc_sql", "kill": "Com_kill", "flush": "Com_flush",
    "truncate": "Com_truncate", "do": "Com_do", "savepoint": "Com_savepoint",
    "explain": "Com_explain_other", "describe": "Com_show_fields", "desc": "Com_show_fields",
    "call": "Com_call_procedure", "grant": "Com_grant", "revoke": "Com_revoke",
    "lock": "Com_lock_tables", "unlock": "Com_unlock_tables",
}  # fmt: skip
_COM_SHOW = {
    "variables": "variables", "status": "status", "columns": "fields", "fields": "fields",
    "index": "keys", "indexes": "keys", "keys": "keys", "engine": "engine_status",
    "slave": "slave_status", "replica": "replica_status", "master": "master_status",
    "binary": "binary_log_status", "create": "create_table", "table": "table_status",
    "databases": "databases", "schemas": "databases", "warnings": "warnings",
    "errors": "errors", "grants": "grants", "processlist": "processlist", "tables": "tables",
    "engines": "storage_engines", "collation": "collations", "character": "charsets",
    "charset": "charsets", "plugins": "plugins",
}  # fmt: skip


def com_counter(keyword: str, sql: str) -> str | None:
    """The Com_xxx status variable a statement counts in."""
    if keyword != "show":
        return _COM.get(keyword)
    words = [w.lower() for w in sql.split()[1:4]]
    words = [w for w in words if w not in ("global", "session", "local", "full", "extended")]
    return f"Com_show_{_COM_SHOW[words[0]]}" if words and words[0] in _COM_SHOW else None


@dataclass
class ServerCounters:
    """This server's own activity: connections and the statements clients sent."""

    connections: int = 0
    connected: int = 0
    running: int = 0
    max_used: int = 0
    aborted_connects: int = 0
    aborted_clients: int = 0
    # connections refused before the handshake, the server at max_connections (1040)
    connection_errors_max_connections: int = 0
    questions: int = 0
    com: Counter = field(default_factory=Counter)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def connect(self) -> None:
        with self.lock:
            self.connections += 1
            self.connected += 1
            self.max_used = max(self.max_used, self.connected)

    def disconnect(self) -> None:
        with self.lock:
            self.connected -= 1

    def statement(self, session: SessionCounters, com: str | None) -> None:
        with self.lock:
            self.questions += 1
            session.questions += 1
            if com:
                self.com[com] += 1
                session.com[com] += 1


@dataclass
class SessionCounters:
    """Per-connection values (Thd_ndb counters start at 0 for every new connection)."""

    questions: int = 0
    com: Counter = field(default_factory=Counter)
    ndb: dict[str, int] = field(default_factory=dict)


class StatusView:
    """Builds SHOW STATUS rows from the cluster model, this server and one session."""

    def __init__(self, version: NdbVersion):
        self.ndb = ndb_variables(version)
        self.server = server_variables(version)

    def values(
        self,
        cluster_status: dict[str, Any],
        server: ServerCounters,
        session: SessionCounters,
        scope: str,
    ) -> dict[str, Any]:
        out: dict[str, Any] = dict(self.server)
        glob = scope == "GLOBAL"
        for var in self.ndb:
            if var.per_session:
                out[var.name] = session.ndb.get(var.name, 0)
            else:
                out[var.name] = cluster_status.get(var.name, "" if var.is_string else 0)

        def workload(name: str) -> int:
            return int(cluster_status.get(name, 0))

        with server.lock:
            com = server.com if glob else session.com
            for name in out:
                if name.startswith("Com_"):
                    out[name] = workload(name) * glob + com[name]
            questions = workload("Questions") + server.questions if glob else session.questions
            out["Questions"] = questions
            out["Queries"] = workload("Questions") + server.questions
            out["Threads_connected"] = workload("Threads_connected") + server.connected
            out["Threads_running"] = workload("Threads_running") + server.running + 1
            out["Threads_created"] = max(out.get("Threads_created", 1), server.max_used)
            out["Connections"] = workload("Connections") + server.connections
            out["Max_used_connections"] = max(workload("Max_used_connections"), server.max_used)
            out["Aborted_connects"] = server.aborted_connects
            out["Connection_errors_max_connections"] = server.connection_errors_max_connections
            out["Aborted_clients"] = server.aborted_clients
        uptime = int(cluster_status.get("Uptime", 0))
        out["Uptime"] = uptime
        out["Uptime_since_flush_status"] = uptime
        rows_read = workload("Com_select") * 3
        for name, value in (
            ("Handler_read_key", rows_read),
            ("Bytes_received", out["Queries"] * 60),
            ("Bytes_sent", out["Queries"] * 400),
        ):
            if name in out:
                out[name] = value
        return dict(sorted(out.items(), key=lambda kv: kv[0].lower()))
