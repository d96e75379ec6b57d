"""Where the NDB rules, their promtool tests, the runbook and the metric contract live, and
small readers for them, shared by the rule tests."""

from __future__ import annotations

import re
import shutil
from functools import cache
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
RULES_DIR = ROOT / "provisioning" / "prometheus" / "rules"
RULE_FILES = tuple(sorted(RULES_DIR.glob("*.yml")))
UNIT_TEST_FILES = tuple(sorted((RULES_DIR / "tests").glob("*.yml")))
ALERTMANAGER_FILE = ROOT / "provisioning" / "alertmanager" / "alertmanager.yml"
RUNBOOK_FILE = ROOT / "docs" / "runbook.md"
METRIC_NAMES_FILE = ROOT / "docs" / "metric-names.md"
RUNBOOK_URL = "https://github.com/ndbinfo-exporter/ndbinfo-exporter/blob/main/docs/runbook.md#"

# Metrics that Prometheus itself provides: every target's `up`, every alert's `ALERTS`.
PROMETHEUS_METRICS = frozenset({"up", "ALERTS"})

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"' + r"|'(?:[^'\\]|\\.)*'")
_MATCHERS = re.compile(r"\{[^}]*\}")
_RANGE = re.compile(r"\[[^\]]*\]")
_LABEL_LIST = re.compile(r"\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)")
_IDENTIFIER = re.compile(r"(?<![\w:.])([a-zA-Z_:][a-zA-Z0-9_:]*)(\s*\()?")
_KEYWORDS = frozenset(
    {"and", "or", "unless", "bool", "offset", "by", "without", "on", "ignoring", "inf", "nan"}
)
_BY_CLAUSE = re.compile(r"\bby\s*\(([^)]*)\)")


def tool(name: str) -> str:
    """Path of a command-line tool of the Debian packages (amtool); the system packages must
    be installed."""
    path = shutil.which(name)
    if path is None:
        pytest.fail(f"{name} not found: run `make system-packages` (Debian prometheus packages)")
    return path


def load_yaml(path: Path):
    """A YAML file through libyaml, several times faster than the pure-Python parser on the
    rule and promtool test files, which most test modules read when they are collected."""
    return yaml.load(path.read_text(), Loader=yaml.CSafeLoader)


@cache
def _rules(path: Path) -> tuple[dict, ...]:
    document = load_yaml(path)
    return tuple(rule for group in document["groups"] for rule in group["rules"])


@cache
def alert_rules() -> tuple[dict, ...]:
    return tuple(rule for path in RULE_FILES for rule in _rules(path) if "alert" in rule)


@cache
def recording_rules() -> tuple[dict, ...]:
    return tuple(rule for path in RULE_FILES for rule in _rules(path) if "record" in rule)


def alert_names() -> list[str]:
    return sorted({rule["alert"] for rule in alert_rules()})


def metric_names(expr: str) -> set[str]:
    """Names of the series a PromQL expression selects (not functions, keywords or labels)."""
    stripped = _STRING.sub('""', expr)
    stripped = _MATCHERS.sub("", stripped)
    stripped = _RANGE.sub("", stripped)
    stripped = _LABEL_LIST.sub("", stripped)
    return {
        name
        for name, call in _IDENTIFIER.findall(stripped)
        if not call and name.lower() not in _KEYWORDS
    }


def by_clauses(expr: str) -> list[list[str]]:
    """Label lists of the expression's `by (...)` aggregations."""
    return [
        [label.strip() for label in labels.split(",") if label.strip()]
        for labels in _BY_CLAUSE.findall(expr)
    ]


@cache
def contract_metric_names() -> frozenset[str]:
    """Every `ndb_*` metric name docs/metric-names.md lists."""
    return frozenset(re.findall(r"`(ndb_[a-z0-9_]+)`", METRIC_NAMES_FILE.read_text()))


def github_anchor(heading: str) -> str:
    """The anchor GitHub generates for a Markdown heading."""
    slug = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return slug.replace(" ", "-")


@cache
def runbook_anchors() -> frozenset[str]:
    headings = re.findall(r"^#{1,6}\s+(.+?)\s*$", RUNBOOK_FILE.read_text(), flags=re.MULTILINE)
    return frozenset(github_anchor(heading) for heading in headings)


@cache
def unit_test_cases() -> tuple[dict, ...]:
    """Every alert_rule_test entry of the promtool unit test files."""
    cases = []
    for path in UNIT_TEST_FILES:
        for test in load_yaml(path)["tests"]:
            cases.extend(test.get("alert_rule_test", []))
    return tuple(cases)
