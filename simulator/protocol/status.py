"""Status variables (SHOW STATUS, performance_schema.global_status) of the simulated SQL node."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from ndbsim.engine.catalog import load_json
from ndbsim.versions import NdbVersion

# Statement counters the server keeps for its own connections (added to the simulated workload).
COM_COUNTERS = (
    "Com_select",
    "Com_insert",
    "Com_update",
    "Com_delete",
    "Com_commit",
    "Com_rollback",
)
SERVER_VARIABLES = (
    "Aborted_clients",
    "Aborted_connects",
    *COM_COUNTERS,
    "Connections",
    "Max_used_connections",
    "Questions",
    "Threads_connected",
    "Threads_running",
    "Uptime",
)

# Not present in 7.x (status-vars.json "7.5/7.6 differences").
_NOT_IN_7X = (
    "Ndb_config_generation",
    "Ndb_trans_hint_count_session",
    "Ndb_fetch_table_stats",
    "Ndb_conflict_fn_max_ins",
    "Ndb_conflict_fn_max_del_win_ins",
    "Ndb_replica_max_replicated_epoch",
)


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
        out.append(
            StatusVar(
                name=name,
                is_string=spec["type"] == "string",
                per_session="scope_note" in spec,
            )
        )
    return out


@dataclass
class ServerCounters:
    """This server's own activity: connections and the statements clients sent."""

    connections: int = 0
    connected: int = 0
    running: int = 0
    max_used: int = 0
    aborted_connects: int = 0
    aborted_clients: int = 0
    questions: int = 0
    com: dict[str, int] = field(default_factory=lambda: dict.fromkeys(COM_COUNTERS, 0))
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
    com: dict[str, int] = field(default_factory=lambda: dict.fromkeys(COM_COUNTERS, 0))
    ndb: dict[str, int] = field(default_factory=dict)


class StatusView:
    """Builds SHOW STATUS rows from the cluster model, this server and one session."""

    def __init__(self, version: NdbVersion):
        self.ndb = ndb_variables(version)

    def values(
        self,
        cluster_status: dict[str, Any],
        server: ServerCounters,
        session: SessionCounters,
        scope: str,
    ) -> dict[str, Any]:
        out: dict[str, Any] = {}
        glob = scope == "GLOBAL"
        for var in self.ndb:
            if var.per_session:
                out[var.name] = session.ndb.get(var.name, 0)
            else:
                out[var.name] = cluster_status.get(var.name, "" if var.is_string else 0)
        with server.lock:
            com = server.com if glob else session.com
            for name in COM_COUNTERS:
                out[name] = int(cluster_status.get(name, 0)) * glob + com[name]
            out["Questions"] = (
                int(cluster_status.get("Questions", 0)) + server.questions
                if glob
                else session.questions
            )
            out["Threads_connected"] = (
                int(cluster_status.get("Threads_connected", 0)) + server.connected
            )
            out["Threads_running"] = int(cluster_status.get("Threads_running", 0)) + server.running
            out["Connections"] = int(cluster_status.get("Connections", 0)) + server.connections
            out["Max_used_connections"] = max(
                int(cluster_status.get("Max_used_connections", 0)), server.max_used
            )
            out["Aborted_connects"] = server.aborted_connects
            out["Aborted_clients"] = server.aborted_clients
        out["Uptime"] = int(cluster_status.get("Uptime", 0))
        return dict(sorted(out.items(), key=lambda kv: kv[0].lower()))
