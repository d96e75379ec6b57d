"""Each generated dashboard loads back into grafana-foundation-sdk's model without loss."""

from __future__ import annotations

import json

import pytest
from grafana_foundation_sdk.cog.encoder import JSONEncoder
from grafana_foundation_sdk.cog.plugins import register_default_plugins
from grafana_foundation_sdk.models import bargauge, stat, statetimeline, table, timeseries
from grafana_foundation_sdk.models import dashboard as model
from grafana_foundation_sdk.models import prometheus as prom_model
from ndb_dashboards.annotations import FORMAT_KEYS

from tests.dashboards.dashboard_queries import load_dashboards

OPTION_MODELS = {
    "timeseries": timeseries.Options,
    "stat": stat.Options,
    "bargauge": bargauge.Options,
    "table": table.Options,
    "state-timeline": statetimeline.Options,
}
DASHBOARDS = load_dashboards()


@pytest.fixture(scope="module", autouse=True)
def _sdk_plugins():
    register_default_plugins()


def _without_annotation_formats(data: dict) -> dict:
    """``data`` without the Prometheus annotation keys the SDK's model has no fields for
    (ndb_dashboards.annotations adds them)."""
    annotations = [
        {key: value for key, value in annotation.items() if key not in FORMAT_KEYS}
        for annotation in data["annotations"]["list"]
    ]
    return {**data, "annotations": {**data["annotations"], "list": annotations}}


@pytest.mark.parametrize("uid", sorted(DASHBOARDS))
def test_dashboard_round_trips_through_the_sdk_model(uid):
    data = DASHBOARDS[uid]
    decoded = model.Dashboard.from_json(data)
    assert json.loads(json.dumps(decoded, cls=JSONEncoder)) == _without_annotation_formats(data)


@pytest.mark.parametrize("uid", sorted(DASHBOARDS))
def test_panels_decode_to_typed_options_and_prometheus_queries(uid):
    decoded = model.Dashboard.from_json(DASHBOARDS[uid])
    seen = 0
    for item in decoded.panels or []:
        inner = item.panels if isinstance(item, model.RowPanel) else [item]
        for panel in inner:
            seen += 1
            if panel.type_val in OPTION_MODELS:
                assert isinstance(panel.options, OPTION_MODELS[panel.type_val]), panel.title
            for target in panel.targets or []:
                assert isinstance(target, prom_model.Dataquery), panel.title
    assert seen
