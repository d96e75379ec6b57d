"""The management server client's constants against the tables parsed from the NDB source
(simulator/data/ndb-mgm, read as data: the exporter does not import ndbsim): event types and
their names, severities, categories and levels, the listen filter, the fields read from each
event, arbitration codes and node states."""

from __future__ import annotations

import inspect
import json
import re
import string
from functools import cache
from pathlib import Path

import pytest
from ndbinfo_exporter.scrape.mgmd import events, protocol
from ndbinfo_exporter.scrape.mgmd.event_types import EVENT_TYPES

TABLES = Path(__file__).resolve().parents[2] / "simulator" / "data" / "ndb-mgm"


@cache
def table(name: str) -> dict:
    return json.loads((TABLES / f"{name}.json").read_text())


def categories() -> dict[str, str]:
    """NDB_MGM_EVENT_CATEGORY_* -> the name `listen event`'s filter takes (mgmapi.cpp)."""
    entries = table("node-states")["event_categories_table"]["entries"]
    return {entry["category"]: entry["name"] for entry in entries if entry["name"]}


def matrix() -> dict[int, dict]:
    return {row["type_number"]: row for row in table("event-types")["matrix"]}


def wire_keys() -> dict[str, list[str]]:
    """Event name -> its keys in the parsable format; `data` for the fallback events."""
    fields = table("event-fields")
    keys = {
        row["event"].removeprefix("NDB_LE_"): row["wire_keys_in_order"] for row in fields["events"]
    }
    for name in fields["events_without_body_rows_use_data_fallback"]:
        keys[name.removeprefix("NDB_LE_")] = ["data"]
    return keys


def test_every_event_type_with_its_category_level_and_severity():
    declared = {event.number: event for event in EVENT_TYPES}
    names = categories()
    expected = {
        number: (
            row["event"].removeprefix("NDB_LE_"),
            names[row["category"]["ndb_mgm_event_category"]],
            row["level_threshold"],
            row["severity"]["Logger"].removeprefix("LL_"),
        )
        for number, row in matrix().items()
    }
    assert {n: (e.name, e.category, e.threshold, e.severity) for n, e in declared.items()} == (
        expected
    )
    assert len(declared) == len(EVENT_TYPES)


def test_event_names_and_severities_are_the_table():
    assert {
        n: row["event"].removeprefix("NDB_LE_") for n, row in matrix().items()
    } == protocol.EVENT_NAMES
    assert {
        row["event"].removeprefix("NDB_LE_"): row["severity"]["Logger"].removeprefix("LL_")
        for row in matrix().values()
    } == protocol.SEVERITIES


def test_listen_filter_names_categories_and_levels_mgmapi_accepts():
    assert set(protocol.LISTEN_LEVELS) <= set(categories().values())
    assert all(0 <= level <= 15 for level in protocol.LISTEN_LEVELS.values())
    assert protocol.LISTEN_FILTER.split() == [f"{c}={v}" for c, v in protocol.LISTEN_LEVELS.items()]


def _passes_filter(name: str) -> bool:
    event = next(e for e in EVENT_TYPES if e.name == name)
    return protocol.LISTEN_LEVELS.get(event.category, -1) >= event.threshold


def handler_literals(name: str) -> set[str]:
    """The field names a handler of events.py reads (its string literals)."""
    source = inspect.getsource(events.HANDLERS[name])
    return set(re.findall(r'"([a-z_0-9]+)"', source))


def template_fields(name: str) -> set[str]:
    fields = {f for _, f, _, _ in string.Formatter().parse(events.TEXTS[name]) if f}
    return fields - events.DERIVED_FIELDS


@pytest.mark.parametrize("name", sorted(set(events.READS) | set(events.TEXTS)))
def test_fields_read_are_the_wire_keys_and_the_event_passes_the_filter(name):
    keys = set(wire_keys()[name])
    assert set(events.READS.get(name, ())) <= keys, sorted(set(events.READS[name]) - keys)
    if name in events.TEXTS:
        assert template_fields(name) <= keys, sorted(template_fields(name) - keys)
    assert _passes_filter(name), f"{name} is above the listen filter's level"


@pytest.mark.parametrize("name", sorted(events.HANDLERS))
def test_each_handler_reads_only_the_fields_declared_for_its_event(name):
    assert name in events.READS or not handler_literals(name)
    assert handler_literals(name) <= set(events.READS.get(name, ()))


def arbit_codes() -> dict[str, dict]:
    return {code["name"]: code for code in table("arbit-codes")["arbit_codes"]}


def test_arbitration_codes_and_their_classes():
    codes = arbit_codes()
    assert {n: codes[name]["value"] for n, name in protocol.ARBIT_CODES.items()} == {
        n: n for n in protocol.ARBIT_CODES
    }
    results = {c["value"] for c in codes.values() if c["group"] == "arbitration result"}
    classes = (protocol.ARBITRATION_LOST, protocol.ARBITRATION_WON, protocol.ARBITRATION_PENDING)
    assert set().union(*classes) == results
    assert sum(len(c) for c in classes) == len(results)
    for code in protocol.ARBITRATION_LOST:
        assert protocol.ARBIT_CODES[code].startswith("Lose")
    for code in protocol.ARBITRATION_WON:
        assert protocol.ARBIT_CODES[code].startswith("Win")
    assert codes["ErrTimeout"]["value"] == protocol.ARBIT_ERR_TIMEOUT
    assert (codes["LoseNodes"]["value"], codes["WinNodes"]["value"]) == (41, 42)


def test_node_statuses_are_mgmapis():
    states = table("node-states")
    texts = {e["str"]: e["value"] for e in states["node_status_values_table"]["entries"]}
    assert {t: "NDB_MGM_NODE_STATUS_" + s for t, s in protocol.NODE_STATUS_TEXTS.items()} == texts
    enum = sorted(
        (e["value"], e["name"])
        for e in states["enum_ndb_mgm_node_status"]
        if not e["name"].endswith(("_MIN", "_MAX"))
    )
    assert tuple(n.removeprefix("NDB_MGM_NODE_STATUS_") for _, n in enum) == protocol.NODE_STATES


def test_node_types_and_status_keys_are_mgmapis():
    states = table("node-states")
    types = {e["str"]: e["value"] for e in states["node_type_values_table"]["entries"]}
    assert {t: "NDB_MGM_NODE_TYPE_" + v for t, v in protocol.NODE_TYPE_TEXTS.items()} == types
    parser = states["get_status_client_field_parsers"][0]
    assert parser["function"] == "status_ackumulate"
    assert {f["field"] for f in parser["fields"]} == protocol.STATUS_KEYS


def test_dump_events_reply_is_read_by_the_header_and_keys_of_the_source():
    reply = next(
        t for t in table("commands")["client_reply_tables"] if t["table"] == "dump_events_reply"
    )
    assert reply["reply_header"] == protocol.DUMP_EVENTS_REPLY
    values = {arg["name"]: "Ok" if arg["type"] == "String" else "3" for arg in reply["reply_args"]}
    assert protocol.dumped_event_count(values) == 3


def test_get_config_is_asked_and_read_as_the_server_defines_it():
    """`get config_v2` with the arguments getConfig_v2 takes (version mandatory, nodetype
    optional), its reply read by the header and keys of the `get config reply` table."""
    from ndbinfo_exporter.scrape.mgmd import client

    (command,) = [c for c in table("commands")["commands"] if c["command"] == "get config_v2"]
    args = {a["name"]: a["required"] for a in command["args"]}
    request = protocol.command(
        "get config_v2",
        {"version": client.CONFIG_CLIENT_VERSION, "nodetype": client.NODE_TYPE_UNKNOWN},
    )
    sent = [line.split(":")[0] for line in request.decode().splitlines()[1:] if line]
    assert args["version"] == "Mandatory" and set(sent) <= set(args)
    (reply,) = [
        r
        for r in table("commands")["client_reply_tables"]
        if r["reply_header"] == "get config reply"
    ]
    keys = {a["name"] for a in reply["reply_args"]}
    assert {"result", "Content-Length", "Content-Transfer-Encoding"} <= keys
    source = inspect.getsource(client.get_config)
    assert '"get config reply"' in source and '"Content-Length"' in source
