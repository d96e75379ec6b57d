"""Collectors read only what ndbinfo has, in one statement, and export contract-conforming names."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import sqlglot
from ndbinfo_exporter.collectors import (
    _per_table,
    conflict_exceptions,
    membership,
    nodes,
    schema_changes,
    table_distribution,
    transporters,
)
from ndbinfo_exporter.collectors.base import Context, TargetInfo
from ndbinfo_exporter.collectors.registry import all_collectors
from ndbinfo_exporter.scrape.mgmd import reader as mgmd_reader
from ndbsim.engine.catalog import RONDB_NDBINFO, catalog_for, load_json
from ndbsim.versions import SUPPORTED, parse_version
from sqlglot import expressions as exp

ROOT = Path(__file__).parents[2]
SCHEMA = load_json("schema-8.0.json")
ENUMS = load_json("enums.json")
CONTRACT = (ROOT / "docs" / "metric-names.md").read_text()
# Names in the contract that are not collector metrics: exported by the scrape itself, or a tool.
NOT_COLLECTED = {"ndb_up", "ndb_version_info", "ndb_engine_visibility", "ndb_mgm"}

COLLECTORS = all_collectors()
# Every collector, and the newer form it reads instead where the target has more.
FORMS = [form for c in COLLECTORS for form in (c, c.newer) if form is not None]
VERSIONS = [parse_version(name) for name in SUPPORTED]


def ids(collector):
    return collector.name


def statements(collector) -> set[str]:
    """The collector's statement for each supported version."""
    return {collector.statement(TargetInfo(v.version_string, v.ndb, frozenset())) for v in VERSIONS}


def parsed(collector, sql: str) -> exp.Expression:
    trees = sqlglot.parse(sql.replace("%s", "NULL"), read="mysql")
    assert len(trees) == 1, f"{collector.name}: one statement per scrape"
    return trees[0]


@pytest.mark.parametrize("collector", FORMS, ids=ids)
@pytest.mark.parametrize("version", VERSIONS, ids=lambda v: v.series)
def test_reads_exist_in_every_version(collector, version):
    catalog = catalog_for(version)
    assert_reads_exist(
        collector,
        version,
        lambda obj: None if (table := catalog.get(obj)) is None else table.column_names,
    )


def assert_reads_exist(collector, version, columns_of) -> None:
    """Every object and column the collector reads is in ``columns_of(obj)`` (its column
    names; None when ``version`` has no such object)."""
    if version.ndb < collector.min_version:
        pytest.skip(f"{collector.name} needs {collector.min_version}")
    if collector.flavour not in (None, "rondb" if version.is_rondb else "mysql"):
        pytest.skip(f"{collector.name} reads {collector.flavour}'s ndbinfo")
    for obj, columns in collector.reads.items():
        have = columns_of(obj)
        assert have is not None, f"ndbinfo.{obj} missing in {version.series}"
        missing = set(columns) - set(have)
        assert not missing, f"ndbinfo.{obj} lacks {sorted(missing)} in {version.series}"


def _views_of(version) -> dict:
    """The views of the shared schema, with the 8.4 / 9.x deltas for those versions; on RonDB
    with its own views (ndbsim's simulator/data/rondb/ndbinfo.json: ../shared has no RonDB,
    that file names the RonDB source of each)."""
    views = dict(SCHEMA["views"])
    if version.is_rondb:
        rondb = json.loads(RONDB_NDBINFO.read_text())["views"]
        views.update(
            {
                name: {"columns": [[c["name"]] for c in spec["column_details"]]}
                for name, spec in rondb.items()
            }
        )
    if version.at_least(8, 3):
        tls = SCHEMA["version_variants"]["8.4 / 9.x"]
        views.update(tls["views_added"])
        views["transporters"] = tls["views_changed"]["transporters"]
        if version.at_least(9, 0):
            views["transporter_details"] = tls["views_changed"]["transporter_details"]
    return views


@pytest.mark.parametrize("collector", FORMS, ids=ids)
@pytest.mark.parametrize("version", VERSIONS, ids=lambda v: v.series)
def test_reads_exist_in_the_shared_schema(collector, version):
    views = _views_of(version)
    assert_reads_exist(
        collector,
        version,
        lambda obj: [c[0] for c in views[obj]["columns"]] if obj in views else None,
    )


@pytest.mark.parametrize("collector", FORMS, ids=ids)
def test_sql_reads_only_what_it_declares(collector):
    """Every statement reads what the collector declares; a SHOW statement other than SHOW
    GLOBAL STATUS is declared in server_reads by its text."""
    shown = {sql for sql in statements(collector) if sql in collector.server_reads}
    if shown:
        assert shown == set(collector.server_reads)
        assert all(isinstance(parsed(collector, sql), exp.Show) for sql in shown)
        return
    (sql,) = statements(collector)
    tree = parsed(collector, sql)
    tables = list(tree.find_all(exp.Table))
    ndbinfo = [table for table in tables if table.db == "ndbinfo"]
    server = {f"{table.db}.{table.name}" for table in tables if table.db != "ndbinfo"}
    assert {table.name for table in ndbinfo} == set(collector.reads)
    assert server == set(collector.server_reads), "qualify objects as ndbinfo.x or schema.x"
    declared = {
        column
        for reads in (collector.reads, collector.server_reads)
        for columns in reads.values()
        for column in columns
    }
    aliases = {alias.alias for alias in tree.find_all(exp.Alias)}
    used = {column.name for column in tree.find_all(exp.Column)}
    if collector.reads or collector.server_reads:
        assert used <= declared | aliases, sorted(used - declared - aliases)


@pytest.mark.parametrize("collector", FORMS, ids=ids)
def test_metric_names_follow_the_conventions(collector):
    assert collector.metrics, "declare the metric families"
    for spec in collector.metrics:
        assert re.fullmatch(r"ndb_[a-z0-9_]+", spec.name), spec.name
        assert spec.type in ("gauge", "counter", "histogram")
        assert spec.name.endswith("_total") == (spec.type == "counter"), spec.name
        assert "cluster" not in spec.labels
        assert "percent" not in spec.name
        assert spec.help.strip()


def contract_names() -> set[str]:
    names = set(re.findall(r"`(ndb_[a-z0-9_]+)`", CONTRACT))
    return {name for name in names if not name.startswith("ndb_exporter_")} - NOT_COLLECTED


def test_every_contract_name_is_produced():
    produced = {spec.name for collector in COLLECTORS for spec in collector.metrics}
    produced |= {
        spec.name + suffix
        for collector in COLLECTORS
        for spec in collector.metrics
        if spec.type == "histogram"
        for suffix in ("_bucket", "_sum", "_count")
    }
    produced |= {spec.name for spec in mgmd_reader.METRICS}  # the management server's
    assert contract_names() <= produced, sorted(contract_names() - produced)


def test_every_produced_name_is_in_the_contract():
    produced = {spec.name for collector in COLLECTORS for spec in collector.metrics}
    assert produced <= contract_names(), sorted(produced - contract_names())


def test_names_are_unique_across_collectors():
    names = [spec.name for collector in COLLECTORS for spec in collector.metrics]
    assert len(names) == len(set(names))


def test_only_capped_collectors_are_labelled_by_table():
    """Capped opt-in collectors (conflict_exceptions: its 10 fullest tables), schema_changes,
    whose series exist only while a schema change runs, at most MAX_TABLES of each kind, and
    RonDB's memory per database, on by default and capped at its 50 largest databases."""
    for collector in COLLECTORS:
        for spec in collector.metrics:
            by_table = {"db", "table"} & set(spec.labels)
            assert (
                not by_table
                or (
                    collector.name in ("table_detail", "hot_tables", "table_memory")
                    and not collector.default_enabled
                    and "limit" in {option.name for option in collector.options}
                )
                or (collector.name == "schema_changes" and schema_changes.MAX_TABLES <= 5)
                or (
                    collector.name == "database_memory"
                    and spec.labels == ("db", "storage")
                    and next(o.default for o in collector.options if o.name == "limit") <= 50
                )
                or (
                    collector.name == "conflict_exceptions"
                    and not collector.default_enabled
                    and conflict_exceptions.TOP <= 10
                )
            )


def test_enumerations_match_enums_json():
    assert tuple(ENUMS["nodes.status"]["values"].values()) == nodes.STATES
    assert tuple(ENUMS["membership.arb_state"]["values"].values()) == membership.ARBITRATION_STATES
    assert tuple(ENUMS["transporters.connection_status"]["values"].values()) == transporters.STATES
    dist = ENUMS["table_distribution_status"]
    for _, column, values in table_distribution.DIMENSIONS:
        view_texts = tuple(names[0] for key, names in dist[column].items() if key.isdigit())
        assert values == view_texts, column


def test_table_detail_options():
    assert _per_table.parse_tables(" shop.orders, auth.users ,") == ("shop.orders", "auth.users")
    for bad in ("orders", ".orders", "shop."):
        with pytest.raises(ValueError):
            _per_table.parse_tables(bad)
    with pytest.raises(ValueError):
        _per_table.positive("0")
    target = TargetInfo(version="8.4.3-cluster", ndb_version=(8, 4, 3), objects=frozenset())
    allowlist = Context(target=target, options={"tables": ("shop.orders", "auth.users")})
    expected = ",shop/def/orders,auth/def/users,"
    assert _per_table.params(allowlist) == (expected, expected, 2)
    assert _per_table.params(Context(target=target)) == ("", "", 20)
    assert _per_table.split_name("shop/def/orders") == ("shop", "orders")
