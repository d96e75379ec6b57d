"""The Overview shows the alerts' verdict: its cluster status is the recording rule of
ndb-verdict.yml, in the states that rule file declares, and every annotation says what it
marks."""

from __future__ import annotations

import re

import pytest

from tests.dashboards.dashboard_queries import RULES, load_dashboards, metric_names, panels
from tests.rules.rules_model import load_yaml

VERDICT_FILE = RULES / "ndb-verdict.yml"
DASHBOARDS = load_dashboards()
OVERVIEW = {panel["title"]: panel for panel in panels(DASHBOARDS["ndb-overview"])}


def _verdict_records() -> set[str]:
    groups = load_yaml(VERDICT_FILE)["groups"]
    return {rule["record"] for group in groups for rule in group["rules"]}


def _declared_states() -> dict[str, str]:
    """Code -> state, from the rule file's header (``#   0  NO DATA  ...``)."""
    rows = re.findall(r"^#\s+(\d)\s+([A-Z][A-Z ]*[A-Z])\s{2,}", VERDICT_FILE.read_text(), re.M)
    return dict(rows)


def _reads(title: str) -> set[str]:
    return {name for target in OVERVIEW[title]["targets"] for name in metric_names(target["expr"])}


def test_the_cluster_status_reads_the_recorded_verdict_only():
    assert _reads("Cluster status") == {"cluster:ndb_status:min"}
    assert "cluster:ndb_status:min" in _verdict_records()


def test_the_cluster_status_shows_each_state_of_the_verdict():
    mappings = OVERVIEW["Cluster status"]["fieldConfig"]["defaults"]["mappings"]
    shown = {code: result["text"] for m in mappings for code, result in m["options"].items()}
    assert shown == _declared_states()
    assert set(shown.values()) >= {"NO DATA", "DOWN", "NO REDUNDANCY", "DEGRADED", "HEALTHY"}


def test_the_cluster_status_without_a_sample_is_no_data():
    (target,) = OVERVIEW["Cluster status"]["targets"]
    assert target["expr"].endswith(" or vector(0)")
    assert _declared_states()["0"] == "NO DATA"


def test_the_sql_nodes_gone_stat_reads_the_alerts_count():
    assert _reads("SQL nodes gone away") == {"cluster:ndb_sql_nodes_gone:count"}
    assert "cluster:ndb_sql_nodes_gone:count" in _verdict_records()


@pytest.mark.parametrize("uid", sorted(DASHBOARDS))
def test_every_annotation_has_a_title_a_text_and_tags(uid):
    for annotation in DASHBOARDS[uid]["annotations"]["list"]:
        assert "{{" in annotation["titleFormat"], annotation["name"]
        assert annotation["textFormat"], annotation["name"]
        assert annotation["tagKeys"], annotation["name"]
