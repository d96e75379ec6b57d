"""Recorded rows -> exact exposition text, per collector and case.

Fixtures: tests/fixtures/<collector>/<case>.json (rows + target info, with their source).
Expected: tests/golden/<collector>/<case>.prom. Regenerate with --update-golden.
"""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from tests.support.collector_fixtures import (
    GOLDEN,
    collectors_by_name,
    families,
    fixture_paths,
    golden_path,
    render,
)

CASES = fixture_paths()


@pytest.mark.parametrize("fixture", CASES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_golden(fixture, request):
    actual = render(fixture)
    expected_path = golden_path(fixture)
    if request.config.getoption("--update-golden"):
        expected_path.parent.mkdir(parents=True, exist_ok=True)
        expected_path.write_text(actual)
    assert expected_path.exists(), f"no golden file; run pytest {__file__} --update-golden"
    assert actual == expected_path.read_text()


def test_every_collector_has_a_case():
    covered = {path.parent.name for path in CASES}
    assert set(collectors_by_name()) <= covered


def test_every_fixture_names_a_collector():
    assert {path.parent.name for path in CASES} <= set(collectors_by_name())


@pytest.mark.parametrize("fixture", CASES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_families_are_declared(fixture):
    """What collect yields matches the collector's declared metrics (name, type, and with
    the default options labels)."""
    collector = collectors_by_name()[fixture.parent.name]
    declared = {spec.name.removesuffix("_total"): spec for spec in collector.metrics}
    recorded = json.loads(fixture.read_text())
    for family in families(collector, recorded):
        spec = declared[family.name]
        assert family.type == spec.type
        assert family.documentation == spec.help
        if recorded["options"]:  # the declared labels are those of the defaults
            continue
        for sample in family.samples:
            # a histogram's _bucket samples add `le`
            assert tuple(label for label in sample.labels if label != "le") == spec.labels


def test_every_golden_has_a_fixture():
    goldens = {(p.parent.name, p.stem) for p in GOLDEN.glob("*/*.prom")}
    assert goldens <= {(p.parent.name, p.stem) for p in CASES}


@pytest.mark.integration
def test_goldens_pass_promtool():
    promtool = shutil.which("promtool")
    assert promtool, "promtool is missing: apt-get install prometheus"
    for path in sorted(GOLDEN.glob("*/*.prom")):
        check = subprocess.run(
            [promtool, "check", "metrics"],
            input=path.read_text(),
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert check.returncode == 0, f"{path.name}: {check.stdout}{check.stderr}"
