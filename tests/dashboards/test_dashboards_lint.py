"""Rules every generated dashboard, panel and query follows."""

from __future__ import annotations

import re

import pytest
import yaml
from grafana_foundation_sdk.models import units
from ndb_dashboards import build
from ndb_dashboards.common import of_sql_node

from tests.dashboards.dashboard_queries import (
    ROOT,
    TARGET_LABELS,
    exported_metrics,
    grouping_labels,
    load_dashboards,
    made_labels,
    metric_names,
    panels,
    queries,
    rate_ranges,
    recording_rule_names,
    selectors,
    unfiltered_by_cluster,
)

DASHBOARDS = load_dashboards()
PROMETHEUS_CONFIG = ROOT / "provisioning" / "prometheus" / "prometheus.yml"
GRAFANA_DATASOURCE = ROOT / "provisioning" / "grafana" / "datasources" / "prometheus.yml"
METRICS_DOC = ROOT / "docs" / "metrics.md"
DASHBOARDS_DOC = ROOT / "docs" / "dashboards.md"
UIDS = {
    "ndb-overview",
    "ndb-data-nodes",
    "ndb-tables",
    "ndb-sql-nodes",
    "ndb-replication",
    "ndb-config",
}
DATASOURCE = {"type": "prometheus", "uid": "${datasource}"}
GRAFANA_UNITS = {
    value for name, value in vars(units).items() if name[:1].isupper() and isinstance(value, str)
}
EXPORTED = exported_metrics()
RECORDED = recording_rule_names()
KNOWN_METRICS = set(EXPORTED) | RECORDED
ALL_PANELS = [(uid, panel) for uid, dashboard in DASHBOARDS.items() for panel in panels(dashboard)]
ALL_QUERIES = [
    (uid, panel, target)
    for uid, dashboard in DASHBOARDS.items()
    for panel, target in queries(dashboard)
]


def _panel_id(uid: str, panel: dict) -> str:
    return f"{uid} / {panel.get('title')!r}"


def test_the_dashboards_exist_with_fixed_uids():
    assert set(DASHBOARDS) == UIDS
    for uid, dashboard in DASHBOARDS.items():
        assert dashboard["uid"] == uid


@pytest.mark.parametrize("uid", sorted(UIDS))
def test_dashboard_is_tagged_and_linked_to_the_others(uid):
    dashboard = DASHBOARDS[uid]
    assert "ndb" in dashboard["tags"]
    links = dashboard["links"]
    assert any(
        link["type"] == "dashboards" and link["tags"] == ["ndb"] and link["includeVars"]
        for link in links
    )


@pytest.mark.parametrize("uid", sorted(UIDS))
def test_dashboard_variables(uid):
    variables = {v["name"]: v for v in DASHBOARDS[uid]["templating"]["list"]}
    assert variables["datasource"]["type"] == "datasource"
    assert variables["datasource"]["query"] == "prometheus"
    assert variables["cluster"]["query"] == "label_values(ndb_up, cluster)"
    assert variables["instance"]["query"] == 'label_values(ndb_up{cluster=~"$cluster"}, instance)'
    for variable in variables.values():
        if variable["type"] == "query":
            assert variable["datasource"] == DATASOURCE, variable["name"]
    # The replication dashboard shows the source and the replica cluster side by side.
    assert variables["cluster"].get("multi", False) == (uid == "ndb-replication")
    if uid in {"ndb-data-nodes", "ndb-config"}:
        assert variables["node"]["query"].startswith("label_values(ndb_data_node_uptime_seconds{")
        assert variables["node"]["query"].endswith(", node_id)")


def test_panel_ids_are_unique_and_panels_fit_the_grid():
    for uid, dashboard in DASHBOARDS.items():
        ids = [p["id"] for p in dashboard["panels"]]
        ids += [inner["id"] for p in dashboard["panels"] for inner in p.get("panels", [])]
        assert len(ids) == len(set(ids)), uid
        for panel in panels(dashboard):
            grid = panel["gridPos"]
            assert grid["w"] > 0 and grid["x"] + grid["w"] <= 24, _panel_id(uid, panel)


@pytest.mark.parametrize(
    ("uid", "panel"), ALL_PANELS, ids=lambda v: v if isinstance(v, str) else v["title"]
)
def test_panel_has_title_description_unit_and_datasource_variable(uid, panel):
    where = _panel_id(uid, panel)
    assert panel.get("title"), where
    assert len(panel.get("description", "")) >= 40, f"{where}: describe what the panel answers"
    unit = panel.get("fieldConfig", {}).get("defaults", {}).get("unit")
    assert unit, f"{where}: no unit (use 'none' explicitly for plain counts and lists)"
    assert unit in GRAFANA_UNITS or unit.startswith("suffix:"), f"{where}: unknown unit {unit!r}"
    assert panel.get("datasource") == DATASOURCE, where
    targets = panel.get("targets", [])
    if panel["type"] != "alertlist":
        assert targets, f"{where}: no query"
    ref_ids = [t["refId"] for t in targets]
    assert len(ref_ids) == len(set(ref_ids)), where
    for target in targets:
        assert target.get("datasource") == DATASOURCE, where
        assert target.get("expr"), where


def test_overview_lists_firing_alerts():
    types = {panel["type"] for panel in panels(DASHBOARDS["ndb-overview"])}
    assert "alertlist" in types


@pytest.mark.parametrize(
    ("uid", "panel", "target"),
    ALL_QUERIES,
    ids=lambda v: v if isinstance(v, str) else v.get("title", v.get("refId")),
)
def test_query_uses_rate_interval_and_known_names(uid, panel, target):
    where = f"{_panel_id(uid, panel)} {target['refId']}"
    expr = target["expr"]
    for function, window in rate_ranges(expr):
        assert window == "$__rate_interval", f"{where}: {function}() over [{window}]"
    names = metric_names(expr)
    assert names, f"{where}: no metric in {expr!r}"
    unknown = names - KNOWN_METRICS
    assert not unknown, f"{where}: the exporter does not expose {sorted(unknown)}"
    labels = set(TARGET_LABELS)
    for name in names:
        labels |= EXPORTED.get(name, set())
    for metric, matched in selectors(expr):
        allowed = EXPORTED.get(metric, labels) | TARGET_LABELS
        assert matched <= allowed, f"{where}: {metric} has no label(s) {sorted(matched - allowed)}"
        assert "cluster" in matched, f"{where}: {metric} not filtered by $cluster"
        # ndbinfo series are the cluster's, the same through every SQL node: the SQL node
        # variable must not empty a panel about the cluster
        if not of_sql_node(metric):
            assert "instance" not in matched, f"{where}: {metric} is cluster-wide: no $instance"
    labels |= made_labels(expr)
    stray = grouping_labels(expr) - labels
    assert not stray, f"{where}: grouping by labels no metric here has: {sorted(stray)}"


@pytest.mark.parametrize(
    ("uid", "panel", "target"),
    ALL_QUERIES,
    ids=lambda v: v if isinstance(v, str) else v.get("title", v.get("refId")),
)
def test_every_query_is_filtered_by_the_cluster_variable(uid, panel, target):
    """Every series a panel reads is selected with the cluster variable, so that one
    Prometheus holding several clusters shows the chosen ones only."""
    missing = unfiltered_by_cluster(target["expr"])
    assert not missing, f"{_panel_id(uid, panel)} {target['refId']}: {missing} without $cluster"


def test_unfiltered_by_cluster_finds_a_bare_or_unfiltered_selector():
    assert unfiltered_by_cluster(
        'max(ndb_up{cluster=~"$cluster"}) / ndb_up + x:ndb_y:z{instance="a"}'
    ) == ["ndb_up", "x:ndb_y:z"]
    assert not unfiltered_by_cluster(
        'label_replace(ndb_up{cluster=~"$cluster", instance=~"$instance"}, "ndb_up", "", "", "")'
    )


def test_metric_name_extraction():
    expr = (
        'sum by (node_id) (rate(ndb_block_events_total{block="DBSPJ", counter=~"A|B"}[$__rate_interval]))'
        " / on () group_left () max(floor(ndb_sql_last_commit_epoch / 4294967296) > 0)"
        ' or label_replace(ndb_up, "x", "y", "", "") * 1e9'
    )
    assert metric_names(expr) == {"ndb_block_events_total", "ndb_sql_last_commit_epoch", "ndb_up"}
    assert grouping_labels(expr) == {"node_id"}
    assert list(rate_ranges(expr)) == [("rate", "$__rate_interval")]


def test_always_exported_metrics_match_the_exporter_reference():
    from ndbinfo_exporter.reference import HEADER

    for name in (
        "ndb_up",
        "ndb_version_info",
        "ndb_exporter_build_info",
        "ndb_exporter_collector_success",
    ):
        assert f"`{name}`" in HEADER


def test_fault_only_queries_are_declared_on_real_queries():
    exprs = {target["expr"] for _, _, target in ALL_QUERIES}
    for board in build.boards():
        for expr, fault in board.faults.items():
            assert expr in exprs
            assert fault


def test_every_overview_stat_has_a_step_that_is_not_green():
    for panel in panels(DASHBOARDS["ndb-overview"]):
        if panel["type"] == "stat":
            steps = panel["fieldConfig"]["defaults"]["thresholds"]["steps"]
            colours = {step["color"] for step in steps}
            assert colours - {"green"}, f"{panel['title']!r} stays green whatever its value"


def test_the_overview_opens_with_the_cluster_status_and_the_firing_alerts():
    first = [p for p in DASHBOARDS["ndb-overview"]["panels"] if p["gridPos"]["y"] <= 1]
    assert {p["type"] for p in first} >= {"stat", "alertlist"}
    assert "Cluster status" in {p["title"] for p in first}


@pytest.mark.parametrize("uid", sorted(UIDS))
def test_dashboard_has_annotations(uid):
    annotations = DASHBOARDS[uid]["annotations"]["list"]
    names = {annotation["name"] for annotation in annotations}
    assert {"Data node restarts", "Alerts firing", "Configuration generation changes"} <= names
    for annotation in annotations:
        assert annotation["datasource"] == DATASOURCE
        assert not unfiltered_by_cluster(annotation["expr"].replace("ALERTS{", "x{")), annotation


def test_the_overview_drills_down_to_the_data_node():
    urls = [
        link["url"]
        for panel in panels(DASHBOARDS["ndb-overview"])
        for link in panel["fieldConfig"]["defaults"].get("links", [])
    ]
    assert any(
        url.startswith("/d/ndb-data-nodes") and "var-node=${__field.labels.node_id}" in url
        for url in urls
    ), urls


def test_panels_reading_ndbinfo_use_the_ndbinfo_scrape_interval():
    """$__rate_interval spans four scrapes of the job the panel's series come from: the data
    source's timeInterval is the SQL-node job's interval, ndbinfo panels ask for their job's."""
    config = yaml.safe_load(PROMETHEUS_CONFIG.read_text())
    jobs = {job["job_name"]: job for job in config["scrape_configs"]}
    datasource = yaml.safe_load(GRAFANA_DATASOURCE.read_text())["datasources"][0]
    assert datasource["jsonData"]["timeInterval"] == config["global"]["scrape_interval"]
    ndbinfo_interval = jobs["ndb-cluster"]["scrape_interval"]
    for uid, panel in ALL_PANELS:
        names = {
            name for target in panel.get("targets", []) for name, _ in selectors(target["expr"])
        }
        reads_ndbinfo = any(not of_sql_node(name) for name in names)
        expected = ndbinfo_interval if reads_ndbinfo else None
        assert panel.get("interval") == expected, _panel_id(uid, panel)


def test_every_documented_metric_is_on_a_dashboard_or_left_off_with_a_reason():
    documented = set(re.findall(r"^\| `(ndb_[a-z0-9_]+)`", METRICS_DOC.read_text(), re.M))
    documented |= set(re.findall(r"`(ndb_[a-z0-9_]+)`", METRICS_DOC.read_text().split("\n\n")[1]))
    shown = set()
    for _, _, target in ALL_QUERIES:
        for name in metric_names(target["expr"]):
            shown |= {name, re.sub(r"_(bucket|sum|count)$", "", name)}
    left_off = _left_off()
    missing = sorted(documented - shown - set(left_off))
    assert not missing, (
        f"on no dashboard and not in the left-off list of docs/dashboards.md: {missing}"
    )
    stale = sorted(set(left_off) & shown)
    assert not stale, f"listed as left off but on a dashboard: {stale}"
    assert all(len(reason) >= 20 for reason in left_off.values()), left_off


def _left_off() -> dict[str, str]:
    """Metric -> reason, from the table under "Left off" in docs/dashboards.md."""
    section = DASHBOARDS_DOC.read_text().split("## Left off", 1)[1]
    rows = re.findall(r"^\| (.+?) \| (.+?) \|$", section, re.M)
    return {
        metric: reason
        for metrics, reason in rows
        for metric in re.findall(r"`(ndb_[a-z0-9_]+)`", metrics)
    }
