"""The committed JSON in dashboards/generated/ is exactly what the generator writes."""

from __future__ import annotations

from ndb_dashboards import build

from tests.dashboards.dashboard_queries import GENERATED

HINT = "dashboards/generated/ is out of date: run `make dashboards` and commit the result"


def test_every_dashboard_is_generated_and_current():
    boards = build.boards()
    expected = {f"{board.uid}.json": build.render(board) for board in boards}
    committed = {path.name: path.read_text() for path in GENERATED.glob("*.json")}
    assert sorted(committed) == sorted(expected), HINT
    for name, text in expected.items():
        assert committed[name] == text, f"{name}: {HINT}"


def test_generation_is_deterministic():
    first = [build.render(board) for board in build.boards()]
    second = [build.render(board) for board in build.boards()]
    assert first == second
