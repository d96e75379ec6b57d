from pathlib import Path

from ndbinfo_exporter.reference import render, with_collectors_table

DOC = Path(__file__).parents[2] / "docs" / "metrics.md"
README = Path(__file__).parents[2] / "README.md"


def test_metrics_reference_is_up_to_date():
    assert DOC.read_text() == render(), (
        "docs/metrics.md is stale: python -m ndbinfo_exporter.reference > docs/metrics.md"
    )


def test_readme_collectors_table_is_up_to_date():
    text = README.read_text()
    assert text == with_collectors_table(text), (
        "README.md's collectors table is stale: python -m ndbinfo_exporter.reference --readme"
    )
