"""A simulated 7.5.4 SQL node answers the captured statements of a real 7.5.4 cluster alike."""

from __future__ import annotations

import json
import re

import pytest

from tests.support.sqlnode_helpers import CAPTURES

pytestmark = pytest.mark.integration  # starts ndbsim

SEED = json.loads(CAPTURES.read_text())


def kind(value) -> str:
    text = "" if value is None else str(value)
    if text == "":
        return "empty"
    return "number" if re.fullmatch(r"-?\d+", text) else "text"


@pytest.mark.parametrize("capture", SEED["captures"], ids=lambda c: c["query"][:40])
def test_same_columns_and_kinds(sqlnode_754, capture):
    names, rows = sqlnode_754.query(capture["query"])
    assert names == capture["columns"]
    assert rows, "the simulated cluster returns rows for every captured statement"
    want = [{kind(v) for v in col} for col in zip(*capture["rows"], strict=True)]
    got = [{kind(v) for v in col} for col in zip(*rows, strict=True)]
    for name, w, g in zip(names, want, got, strict=True):
        assert g <= w | {"empty"} if "empty" in w else g <= w, (name, w, g)


def test_config_params_definitions_match_75(sqlnode_754):
    for capture in SEED["captures"][1:3]:
        _, rows = sqlnode_754.query(capture["query"])
        got = {tuple(str(v) for v in r[:1] + r[2:7]) for r in rows if str(r[1]) == "1"}
        want = {tuple(r[:1] + r[2:7]) for r in capture["rows"] if r[1] == "1"}
        assert want <= got


def test_version_string_is_ndb_754(sqlnode_754):
    _, rows = sqlnode_754.query("select @@version")
    assert re.fullmatch(r"5\.7\.\d+-ndb-7\.5\.4-cluster-\w+", rows[0][0])
