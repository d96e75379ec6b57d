"""docs/report.md shows the report ndbsim gives today."""

from __future__ import annotations

import pytest

from tests.report.report_sample import DOC, sample, with_sample

pytestmark = pytest.mark.integration


def test_sample_report_is_current():
    doc = DOC.read_text()
    assert doc == with_sample(doc, sample()), "docs/report.md is stale: make report-sample"
