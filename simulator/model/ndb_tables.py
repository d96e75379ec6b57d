"""NDB's constants of the cluster log, read once from data/ndb-mgm/ (tables parsed from the NDB
source, see its README): the event types with their category, level threshold, severity and
wire fields (ndb_logevent.h, EventLogger.cpp matrix[], ndb_logevent.cpp), the log level
categories (mgmapi_config_parameters.h CFG_LOGLEVEL_*), the arbitration codes and their texts
(ArbitSignalData.hpp, EventLogger.cpp getTextArbitState/getTextArbitResult) and the NodeState
start types (NodeState.hpp)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

DATA = Path(__file__).parents[1] / "data" / "ndb-mgm"
EVENT_PREFIX = "NDB_LE_"
LOGLEVEL_PREFIX = "CFG_LOGLEVEL_"
SEVERITY_PREFIX = "LL_"


@cache
def load(name: str) -> dict:
    """One table of data/ndb-mgm/, e.g. "event-types"."""
    return json.loads((DATA / f"{name}.json").read_text())


@cache
def categories() -> dict[str, int]:
    """The log level categories by the name a `listen event` filter takes: STARTUP: 250, ..."""
    defines = load("event-types")["CFG_LOGLEVEL_defines"]
    return {
        name.removeprefix(LOGLEVEL_PREFIX): row["value"]
        for name, row in defines.items()
        if name.startswith(LOGLEVEL_PREFIX)
    }


@cache
def event_rows() -> dict[str, tuple[int, int, int, str, tuple[str, ...]]]:
    """Every event of the matrix by name: (number, category number, level threshold,
    severity name, wire fields in order; no fields for the events sent as `data=` words)."""
    fields = {e["event"]: tuple(e["wire_keys_in_order"]) for e in load("event-fields")["events"]}
    return {
        row["event"].removeprefix(EVENT_PREFIX): (
            row["type_number"],
            row["category"]["ndb_mgm_event_category_value"],
            row["level_threshold"],
            row["severity"]["Logger"].removeprefix(SEVERITY_PREFIX),
            fields.get(row["event"], ()),
        )
        for row in load("event-types")["matrix"]
    }


@cache
def arbit_codes() -> dict[str, int]:
    """ArbitCode by name: LoseNodes: 41, WinNodes: 42, ..."""
    return {c["name"]: c["value"] for c in load("arbit-codes")["arbit_codes"]}


def arbit_text(event: str, code: str) -> str:
    """The printf format EventLogger prints for an ArbitState or ArbitResult code, with the
    error text of the codes it has no case for (ArbitCode::getErrText)."""
    table = load("arbit-codes")
    cases = table[f"getTextArbit{event.removeprefix('Arbit')}"]["cases"]
    if code in cases:
        return cases[code]["format"]
    errors = table["getErrText"]
    err = errors[code]["text"] if code in errors else errors["default"]["text"]
    return cases["default"]["format"].replace("%s", err, 1)


@cache
def start_types() -> dict[str, tuple[int, str]]:
    """NodeState::StartType by name: (value, the text StartPhaseCompleted prints for it)."""
    return {
        t["name"]: (t["value"], t.get("StartPhaseCompleted_text", {}).get("text", ""))
        for t in load("node-states")["NodeState_StartType"]
    }
