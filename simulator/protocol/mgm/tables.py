"""The management protocol's tables as the NDB source declares them, read from
data/ndb-mgm/: the arguments of each command (Services.cpp commands[], commands.json) and the
node type and status names (mgmapi.cpp type_values[] and status_values[], node-states.json)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from ndbsim.model.ndb_tables import load


@dataclass(frozen=True)
class Argument:
    kind: str  # ParserRow type: Int, String or LongString
    mandatory: bool


@cache
def _commands() -> dict[str, dict[str, Argument]]:
    return {
        row["command"]: {
            arg["name"]: Argument(arg["type"], arg["required"] == "Mandatory")
            for arg in row["args"]
        }
        for row in load("commands")["commands"]
    }


def command_arguments(names: tuple[str, ...]) -> dict[str, dict[str, Argument]]:
    """The MGM_ARG rows of the named commands, in table order."""
    table = _commands()
    return {name: table[name] for name in names}


def _node_states() -> dict:
    return load("node-states")


@cache
def node_types_by_name() -> dict[str, int]:
    """ndb_mgm_match_node_type: the names a `types` argument may hold ("NDB", "DB", "API",
    "MGM"; compared case-sensitively) and their ndb_mgm_node_type."""
    rows = _node_states()["node_type_values_table"]["entries"]
    return {row["str"]: row["value_value"] for row in rows}


def node_type_string(node_type: int) -> str:
    """ndb_mgm_get_node_type_string: the first name of the type."""
    rows = _node_states()["node_type_values_table"]["entries"]
    return next(row["str"] for row in rows if row["value_value"] == node_type)


def node_status_string(status: str) -> str:
    """ndb_mgm_get_node_status_string for an ndb_mgm_node_status name, e.g.
    NDB_MGM_NODE_STATUS_SINGLEUSER: "SINGLE USER MODE"."""
    rows = _node_states()["node_status_values_table"]["entries"]
    return next(row["str"] for row in rows if row["value"] == status)
