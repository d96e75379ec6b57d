"""The ndbinfo schema served over the protocol equals what /work/shared/ndbinfo gives per version."""

from __future__ import annotations

import filecmp
import json
import re
from pathlib import Path

import pytest

from tests.support.sqlnode_helpers import start_sql_node

SHARED = Path(__file__).resolve().parents[3].parent / "shared"
DATA = Path(__file__).resolve().parents[3] / "simulator" / "data"

pytestmark = [
    pytest.mark.integration,  # starts ndbsim
    pytest.mark.skipif(
        not (SHARED / "ndbinfo" / "schema-8.0.json").exists(),
        reason=f"{SHARED / 'ndbinfo'} (the ground truth, ../shared next to the repository) is missing",
    ),
]

# Facts from /work/shared/ndbinfo/README.md ("What differs by version") and the view lists of the
# 7.5 (2017) and 7.6 (2018) ndbinfo_sql.cpp copies it points to.
VIEWS_75 = set(
    [
        "arbitrator_validity_detail",
        "arbitrator_validity_summary",
        "blocks",
        "cluster_locks",
        "cluster_operations",
        "cluster_transactions",
        "config_params",
        "config_values",
        "counters",
        "cpustat",
        "cpustat_1sec",
        "cpustat_20sec",
        "cpustat_50ms",
        "dict_obj_info",
        "dict_obj_types",
        "disk_write_speed_aggregate",
        "disk_write_speed_aggregate_node",
        "disk_write_speed_base",
        "diskpagebuffer",
        "locks_per_fragment",
        "logbuffers",
        "logspaces",
        "membership",
        "memory_per_fragment",
        "memoryusage",
        "nodes",
        "operations_per_fragment",
        "resources",
        "restart_info",
        "server_locks",
        "server_operations",
        "server_transactions",
        "table_distribution_status",
        "table_fragments",
        "table_info",
        "table_replicas",
        "tc_time_track_stats",
        "threadblocks",
        "threads",
        "threadstat",
        "transporters",
    ]
)
VIEWS_76 = VIEWS_75 | {"config_nodes", "error_messages", "processes"}
LOOKUPS_75 = {
    "ndb$blocks",
    "ndb$config_params",
    "ndb$dblqh_tcconnect_state",
    "ndb$dbtc_apiconnect_state",
    "ndb$dict_obj_types",
}
BASE_IDS = {
    "7.5.4": set(range(38)),
    "7.6": set(range(40)),
    "8.0": set(range(49)) | {50, 51},
    "8.4": set(range(52)),
    "9.7": set(range(52)),
}
VERSIONS = ("7.5.4", "7.6", "8.0", "8.4", "9.7")
# 9.x base table columns the 9.x transporter_details view selects (types as that view has them)
COLUMNS_9X = {
    "ndb$transporter_details": [
        ("heartbeat_interval", "int unsigned"),
        ("last_recv", "bigint unsigned"),
    ]
}


def _norm(mysql_type: str) -> str:
    text = mysql_type.replace("(inferred)", "").replace(" PRIMARY KEY", "").replace(" NOT NULL", "")
    text = re.sub(r"^(int|bigint)\(\d+\)", r"\1", text.strip().lower())
    return text


def expected(version: str) -> dict[str, tuple[str, list[tuple[str, str]]]]:
    schema = json.loads((SHARED / "ndbinfo" / "schema-8.0.json").read_text())
    is7 = version.startswith("7")
    out: dict[str, tuple[str, list[tuple[str, str]]]] = {}
    for name, spec in schema["base_tables"].items():
        if spec["table_id"] not in BASE_IDS[version]:
            continue
        cols = []
        for col, typ, _ in spec["columns"]:
            if is7 and (name, col) in {
                ("ndb$tables", "rows_estimate"),
                ("ndb$pools", "resource_id"),
                ("ndb$pools", "type_id"),
            }:
                continue
            if (name, col) == ("ndb$transporters", "encrypted") and version < "8.4":
                continue
            cols.append((col, _norm(typ)))
        if version >= "9":
            cols += COLUMNS_9X.get(name, [])
        out[name] = ("BASE TABLE", cols)
    lookups = {"7.5.4": LOOKUPS_75, "7.6": LOOKUPS_75 | {"ndb$error_messages"}}.get(
        version, set(schema["lookup_tables"])
    )
    for name in lookups:
        spec = schema["lookup_tables"][name]
        out[name] = ("BASE TABLE", [(c, _norm(t)) for c, t, _ in spec["columns"]])
    views = dict(schema["views"])
    if version >= "8.4":
        tls = schema["version_variants"]["8.4 / 9.x"]
        views.update(tls["views_added"])
        views["transporters"] = tls["views_changed"]["transporters"]
    if version >= "9":
        views["transporter_details"] = tls["views_changed"]["transporter_details"]
    keep = {"7.5.4": VIEWS_75, "7.6": VIEWS_76}.get(version, set(views))
    for name in keep:
        cols = [(c["name"], _norm(c["type"])) for c in views[name]["column_details"]]
        if is7 and name == "table_distribution_status":
            # 7.x labels ADD_TABLE_MASTER/SLAVE: longest literal is SR_PHASE1_READ_PAGES
            cols = [(c, "varchar(20)" if c == "tab_copy_status" else t) for c, t in cols]
        if version == "7.5.4" and name == "logbuffers":
            cols = [(c, "varchar(9)" if c == "log_type" else t) for c, t in cols]
        out[name] = ("VIEW", cols)
    return out


def served(node, show_hidden: bool) -> dict[str, tuple[str, list[tuple[str, str]]]]:
    conn = node.connect()
    try:
        cur = conn.cursor()
        cur.execute(f"SET SESSION ndbinfo_show_hidden = {'ON' if show_hidden else 'OFF'}")
        cur.execute(
            "SELECT TABLE_NAME, TABLE_TYPE FROM information_schema.TABLES "
            "WHERE TABLE_SCHEMA = 'ndbinfo'"
        )
        tables = dict(cur.fetchall())
        cur.execute(
            "SELECT TABLE_NAME, COLUMN_NAME, COLUMN_TYPE, DATA_TYPE FROM information_schema.COLUMNS "
            "WHERE TABLE_SCHEMA = 'ndbinfo' ORDER BY TABLE_NAME, ORDINAL_POSITION"
        )
        columns: dict[str, list[tuple[str, str]]] = {}
        for table, column, column_type, data_type in cur.fetchall():
            assert _norm(column_type).startswith(data_type)
            columns.setdefault(table, []).append((column, _norm(column_type)))
    finally:
        conn.close()
    return {name: (kind, columns.get(name, [])) for name, kind in tables.items()}


@pytest.fixture(scope="module", params=VERSIONS)
def versioned(request):
    node, stop = start_sql_node(request.param)
    yield request.param, node
    stop()


def test_objects_columns_and_types_match_shared_schema(versioned):
    version, node = versioned
    want = expected(version)
    got = served(node, show_hidden=True)
    assert set(got) == set(want), (sorted(set(got) - set(want)), sorted(set(want) - set(got)))
    for name, spec in want.items():
        assert got[name] == spec, name


def test_hidden_tables_listed_only_with_show_hidden(versioned):
    version, node = versioned
    visible = served(node, show_hidden=False)
    assert not [n for n in visible if n.startswith("ndb$")]
    assert set(visible) == {n for n in expected(version) if not n.startswith("ndb$")}
    _, rows = node.query("SELECT COUNT(*) FROM ndb$blocks")
    assert rows[0][0] > 0  # hidden, yet queryable by name


def test_column_type_style_per_server_version(versioned):
    version, node = versioned
    _, rows = node.query("SHOW COLUMNS FROM nodes FROM ndbinfo")
    types = {r[0]: r[1] for r in rows}
    # 7.x SQL nodes are MySQL 5.7 servers (display widths); 8.0+ prints "int unsigned"
    assert types["node_id"] == ("int(10) unsigned" if version.startswith("7") else "int unsigned")


def test_simulator_data_is_a_copy_of_shared():
    for sub in ("ndbinfo", "ndb-mgm", "seed-captures"):
        shared_files = sorted(p.name for p in (SHARED / sub).iterdir() if p.is_file())
        data_files = sorted(p.name for p in (DATA / sub).iterdir() if p.is_file())
        assert data_files == shared_files
        match, mismatch, errors = filecmp.cmpfiles(
            SHARED / sub, DATA / sub, shared_files, shallow=False
        )
        assert not mismatch and not errors, (mismatch, errors)
