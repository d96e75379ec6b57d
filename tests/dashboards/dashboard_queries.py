"""Reading the generated dashboards: their panels, their queries, and the names a query uses."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
GENERATED = ROOT / "dashboards" / "generated"
RULES = ROOT / "provisioning" / "prometheus" / "rules"

# Labels Prometheus adds at scrape time (cluster comes from the scrape config).
TARGET_LABELS = {"cluster", "instance", "job"}

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'')
_NUMBER = re.compile(r"(?<![A-Za-z0-9_:])\d+(?:\.\d+)?(?:[eE][+-]?\d+)?")
_GROUPING = re.compile(r"\b(by|without|on|ignoring|group_left|group_right)\s*\(([^)]*)\)")
_IDENT = re.compile(r"[A-Za-z_:][A-Za-z0-9_:]*")
_SELECTOR = re.compile(r"([A-Za-z_:][A-Za-z0-9_:]*)\s*\{([^}]*)\}")
_MATCHER = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*(?:=~|!~|!=|=)\s*\"")
_OFFSET = re.compile(r"\boffset\s+-?[0-9a-z]+")
_RATE_CALL = re.compile(r"\b(rate|irate|increase|delta|idelta|deriv)\s*\(")
NOT_METRICS = {
    # binary operators and modifiers
    "and", "or", "unless", "bool", "offset", "by", "without", "on", "ignoring",
    "group_left", "group_right", "inf", "nan",
    # aggregation operators
    "sum", "min", "max", "avg", "group", "stddev", "stdvar", "count", "count_values",
    "bottomk", "topk", "quantile", "limitk", "limit_ratio",
}  # fmt: skip


def load_dashboards() -> dict[str, dict]:
    return {path.stem: json.loads(path.read_text()) for path in sorted(GENERATED.glob("*.json"))}


def panels(dashboard: dict) -> Iterator[dict]:
    """Every panel that is not a row, including the panels inside collapsed rows."""
    for panel in dashboard.get("panels", []):
        if panel.get("type") == "row":
            yield from panel.get("panels", [])
        else:
            yield panel


def queries(dashboard: dict) -> Iterator[tuple[dict, dict]]:
    for panel in panels(dashboard):
        for target in panel.get("targets", []):
            yield panel, target


def _without_strings(expr: str) -> str:
    return _STRING.sub('""', expr)


def metric_names(expr: str) -> set[str]:
    """Metric names a PromQL expression selects (functions, keywords and labels left out)."""
    text = _without_strings(expr)
    text = re.sub(r"\{[^}]*\}", " ", text)
    text = re.sub(r"\[[^\]]*\]", " ", text)
    text = _OFFSET.sub(" ", text)
    text = _GROUPING.sub(" ", text)
    text = _NUMBER.sub(" ", text)
    names = set()
    for match in _IDENT.finditer(text):
        word = match.group(0)
        if text[match.end() :].lstrip().startswith("("):
            continue  # a function call
        if word.lower() in NOT_METRICS:
            continue
        names.add(word)
    return names


def unfiltered_by_cluster(expr: str) -> list[str]:
    """The metrics of ``expr`` selected at least once without ``cluster=~"$cluster"``."""
    text = _without_strings(expr)
    missing = []
    for name in sorted(metric_names(expr)):
        word = rf"(?<![A-Za-z0-9_:]){re.escape(name)}(?![A-Za-z0-9_:])"
        used = len(re.findall(word, text))
        filtered = len(re.findall(word + r'\s*\{[^}]*cluster=~"\$cluster"', expr))
        if filtered < used:
            missing.append(name)
    return missing


def selectors(expr: str) -> Iterator[tuple[str, set[str]]]:
    """(metric, label names it matches on) for each ``metric{...}`` selector."""
    for match in _SELECTOR.finditer(expr):
        yield match.group(1), set(_MATCHER.findall(match.group(2)))


def grouping_labels(expr: str) -> set[str]:
    """Labels named in by/without/on/ignoring/group_left/group_right clauses."""
    labels = set()
    for match in _GROUPING.finditer(_without_strings(expr)):
        labels |= {part.strip() for part in match.group(2).split(",") if part.strip()}
    return labels


def made_labels(expr: str) -> set[str]:
    """Labels the expression creates with count_values."""
    return set(re.findall(r'count_values\(\s*"([^"]+)"', expr))


def rate_ranges(expr: str) -> Iterator[tuple[str, str]]:
    """(function, the range inside its argument) for every rate-like call."""
    for match in _RATE_CALL.finditer(expr):
        depth, index = 1, match.end()
        while depth and index < len(expr):
            depth += {"(": 1, ")": -1}.get(expr[index], 0)
            index += 1
        ranges = re.findall(r"\[([^\]]*)\]", expr[match.end() : index])
        yield match.group(1), ranges[-1] if ranges else ""


def recording_rule_names() -> set[str]:
    names = set()
    for path in sorted(RULES.glob("*.y*ml")):
        document = yaml.load(path.read_text(), Loader=yaml.CSafeLoader)  # libyaml: fast
        for group in (document or {}).get("groups", []):
            names |= {rule["record"] for rule in group.get("rules", []) if "record" in rule}
    return names


def exported_metrics() -> dict[str, set[str]]:
    """Metric name -> label names, from the exporter's own declarations (its collectors and
    the management server's families), and Prometheus' own ``up`` of every target."""
    from ndbinfo_exporter.collectors.registry import all_collectors
    from ndbinfo_exporter.scrape.mgmd.reader import METRICS as MGMD_METRICS

    metrics = {
        "up": set(),
        "ndb_up": set(),
        "ndb_engine_visibility": {"state"},
        "ndb_version_info": {"version", "ndb_version", "flavour", "flavour_version"},
        "ndb_exporter_build_info": {"version", "python_version"},
        "ndb_exporter_collector_success": {"collector"},
        "ndb_exporter_collector_duration_seconds": {"collector"},
        "ndb_exporter_collector_skipped": {"collector"},
        "ndb_exporter_rows_skipped_total": {"collector"},
    }
    specs = [spec for collector in all_collectors() for spec in collector.metrics]
    for spec in [*specs, *MGMD_METRICS]:
        metrics[spec.name] = set(spec.labels)
        if spec.type == "histogram":
            metrics[spec.name + "_bucket"] = {*spec.labels, "le"}
            metrics[spec.name + "_sum"] = metrics[spec.name + "_count"] = set(spec.labels)
    return metrics
