"""The findings of ``report`` are those the view's /api/v1/findings serves for the same scrape
result: both are built by the same function (``health.assessment.assess``), and serialized
the same."""

from __future__ import annotations

import json

import pytest
from ndbinfo_exporter.health.findings.evaluation import CHECKS
from ndbinfo_exporter.health.models import Alert, AlertsView
from ndbinfo_exporter.report.reading import modelled
from ndbinfo_exporter.view.view_model import build

from tests.health import scrape_data
from tests.health.scrape_data import cluster


@pytest.mark.parametrize(
    "result",
    [
        cluster(),
        cluster(stopped=(2,)),
        cluster(data_memory={1: 0.97, 2: 0.5, 3: 0.5, 4: 0.5}),
        scrape_data.arbitration(cluster(), arbitrator=0),
    ],
)
def test_report_findings_equal_the_api_findings(result):
    """With the same alerts: a firing one is a finding of both."""
    alerts = AlertsView(
        source="http://prom:9090",
        alerts=[
            Alert(name="NdbNoArbitrator", state="firing", severity="warning", labels={}, link="")
        ],
    )
    api = json.loads(build(result, None, {}, None, None).findings_body(alerts).content)
    reading = modelled(result, None, CHECKS, (), alerts=alerts)
    assert [f.model_dump(mode="json") for f in reading.findings] == api["findings"]
    assert "alert_NdbNoArbitrator" in [f["id"] for f in api["findings"]]
