from pathlib import Path

from ndbinfo_exporter.reference import render

DOC = Path(__file__).parents[2] / "docs" / "metrics.md"


def test_metrics_reference_is_up_to_date():
    assert DOC.read_text() == render(), (
        "docs/metrics.md is stale: python -m ndbinfo_exporter.reference > docs/metrics.md"
    )
