"""Every NDB constant ndbsim declares equals the tables parsed from the NDB source
(simulator/data/ndb-mgm/): event types, categories, severities and fields, arbitration codes,
node states and start types, and the management server's commands. Each check reads the JSON
itself, so a constant typed by hand or an event the tables lack fails here."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from ndbsim.model import cluster, ndb_tables
from ndbsim.model.cluster_log import CATEGORIES, EVENT_TYPES, EVENTS_BY_NUMBER, ClusterLog
from ndbsim.protocol.mgm.server import COMMANDS

SIMULATOR = Path(__file__).parents[3] / "simulator"
DATA = SIMULATOR / "data" / "ndb-mgm"
# an event named where it is emitted: log.emit("Name", ...), the arbitration's
# report("Name", ...) and arbit_event(c, "Name", ...)
EMITTED = re.compile(r'(?:\bemit\(|\breport\(|\barbit_event\(\s*c,)\s*"(\w+)"')


def table(name: str) -> dict:
    return json.loads((DATA / f"{name}.json").read_text())


def emitted_names() -> set[str]:
    names: set[str] = set()
    for path in SIMULATOR.rglob("*.py"):
        names |= set(EMITTED.findall(path.read_text()))
    return names


def test_every_event_ndbsim_names_is_in_the_tables():
    names = {e["name"].removeprefix("NDB_LE_") for e in table("event-types")["event_types"]}
    arbit = {"ArbitState", "ArbitResult"}
    used = emitted_names()
    assert used >= {"NDBStopForced", "NodeFailCompleted", "EventBufferStatus3", *arbit}
    assert used <= names, f"not in ndb_logevent.h: {sorted(used - names)}"


def test_an_event_the_tables_lack_is_refused():
    with pytest.raises(KeyError):
        ClusterLog().emit("NodeExploded", 1, 0.0, "boom")
    with pytest.raises(ValueError, match="no field"):
        ClusterLog().emit("NODE_FAILREP", 1, 0.0, "x", failed_node=2, reason=1)


def test_event_types_equal_the_matrix_and_the_wire_fields():
    fields = {e["event"]: e["wire_keys_in_order"] for e in table("event-fields")["events"]}
    rows = table("event-types")["matrix"]
    assert len(EVENT_TYPES) == len(rows) == len(EVENTS_BY_NUMBER)
    for row in rows:
        kind = EVENT_TYPES[row["event"].removeprefix("NDB_LE_")]
        assert kind.number == row["type_number"]
        assert CATEGORIES[kind.category] == row["category"]["ndb_mgm_event_category_value"]
        assert kind.threshold == row["level_threshold"]
        assert f"LL_{kind.severity}" == row["severity"]["Logger"]
        assert list(kind.fields) == fields.get(row["event"], [])


def test_categories_and_severities_equal_the_tables():
    defines = table("event-types")["CFG_LOGLEVEL_defines"]
    prefix = "CFG_LOGLEVEL_"
    categories = {
        n.removeprefix(prefix): r["value"] for n, r in defines.items() if n.startswith(prefix)
    }
    assert categories == CATEGORIES
    mgmapi = table("node-states")["event_categories_table"]["entries"]
    assert {
        e["name"]: e["category_value"] for e in mgmapi if e["name"]
    }.items() <= CATEGORIES.items()
    severities = {
        s["name"].removeprefix("NDB_MGM_EVENT_SEVERITY_")
        for s in table("event-types")["severities_ndb_mgm_event_severity"]
    }
    assert {t.severity for t in EVENT_TYPES.values()} <= severities


def test_arbitration_codes_equal_arbit_signal_data():
    codes = {c["name"]: c["value"] for c in table("arbit-codes")["arbit_codes"]}
    assert ndb_tables.arbit_codes() == codes
    assert (codes["LoseNodes"], codes["WinNodes"], codes["WinGroups"]) == (41, 42, 43)
    results = table("arbit-codes")["getTextArbitResult"]["cases"]
    for code in ("LoseNodes", "WinNodes", "WinGroups", "LoseGroups", "LoseNorun", "WinChoose"):
        assert ndb_tables.arbit_text("ArbitResult", code) == results[code]["format"]
    assert ndb_tables.arbit_text("ArbitState", "ErrTimeout") == (
        "Lost arbitrator node %u - timeout [state=%u]"
    )


def test_start_types_and_node_states_equal_node_state():
    start_types = {t["name"]: t["value"] for t in table("node-states")["NodeState_StartType"]}
    assert {k: v for k, (v, _) in ndb_tables.start_types().items()} == start_types
    assert (start_types["ST_NODE_RESTART"], start_types["ST_INITIAL_NODE_RESTART"]) == (2, 3)
    statuses = {e["str"] for e in table("node-states")["node_status_values_table"]["entries"]}
    assert {cluster.STARTED, cluster.STARTING} <= statuses


def test_management_commands_equal_services_cpp():
    commands = {c["command"]: c for c in table("commands")["commands"]}
    for command, args in COMMANDS.items():
        assert command in commands, f"{command!r} is not in Services.cpp commands[]"
        declared = {a["name"]: a for a in commands[command]["args"]}
        for name, arg in args.items():
            assert name in declared, f"{command}: {name!r} is no MGM_ARG of it"
            assert arg.kind == declared[name]["type"]
            assert arg.mandatory == (declared[name]["required"] == "Mandatory")
        mandatory = {n for n, a in declared.items() if a["required"] == "Mandatory"}
        assert mandatory <= set(args), f"{command}: mandatory arguments missing"


def test_the_exit_code_table_is_the_exporters():
    """ndbsim and the exporter each read their copy of ndbd_exit_codes.cpp's table."""
    root = Path(__file__).resolve().parents[3]
    ndbsim = root / "simulator" / "data" / "ndbd" / "ndbd-exit-codes.json"
    exporter = root / "exporter" / "data" / "ndbd-exit-codes.json"
    assert ndbsim.read_bytes() == exporter.read_bytes()
