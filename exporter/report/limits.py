"""The thresholds ``-w``/``-c`` can set, each the limits of one check, and the performance data.

A limit measures what its check judges (the fullest REDO log part, not the overall usage), so
the graph and the status never disagree: its values are the check's own, its default ranges
are the check's own limits, and a threshold given with ``-w``/``-c`` judges the same values
again. A data node that cannot report has ``U``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from ndbinfo_exporter.errors import ConfigError
from ndbinfo_exporter.health import thresholds
from ndbinfo_exporter.health.findings import availability, management, network, storage
from ndbinfo_exporter.health.findings import replication as replication_checks
from ndbinfo_exporter.health.findings.check import Check
from ndbinfo_exporter.health.findings.evaluation import ORDER, SEVERITY
from ndbinfo_exporter.health.findings.fullest import Fullest
from ndbinfo_exporter.health.findings.inputs import Inputs
from ndbinfo_exporter.health.models import Finding
from ndbinfo_exporter.report import ranges
from ndbinfo_exporter.report.ranges import Range

Values = Callable[[Inputs], dict[str, float | None]]


def _data_node_ids(inputs: Inputs) -> list[int]:
    topology = inputs.cluster.topology
    nodes = [n for g in topology.node_groups for n in g.nodes] + topology.unassigned_data_nodes
    return sorted(n.node_id for n in nodes)


def per_data_node(check: Check) -> Values:
    """The ratios a Fullest check judges, with None for a data node that reports none."""
    fullest = check.evaluate
    assert isinstance(fullest, Fullest)

    def values(inputs: Inputs) -> dict[str, float | None]:
        ratios = fullest.ratios(inputs)
        nodes = sorted({*_data_node_ids(inputs), *ratios})  # type: ignore[arg-type]
        return {str(node): ratios.get(node) for node in nodes}  # type: ignore[call-overload]

    return values


def per_name(check: Check) -> Values:
    fullest = check.evaluate
    assert isinstance(fullest, Fullest)
    return lambda inputs: {str(k): v for k, v in sorted(fullest.ratios(inputs).items())}


def _lag(inputs: Inputs) -> dict[str, float | None]:
    return {
        c.channel or "default": c.seconds_behind_source for c in inputs.cluster.replication.channels
    }


def _lcp_age(inputs: Inputs) -> dict[str, float | None]:
    age = inputs.cluster.lcp.age_gcis
    return {} if age is None else {"": float(age)}


def _backup_age(inputs: Inputs) -> dict[str, float | None]:
    """Hours since the last completed backup; U while none was seen, none without a
    management server."""
    if inputs.management is None:
        return {}
    return {"": management.backup_age_hours(inputs.management, time.time())}


@dataclass(frozen=True)
class Limit:
    name: str  # as -w/-c name it
    check: Check
    label: str  # the performance data label; {key} is the node, tablespace or channel
    unit: str  # the performance data's UOM
    scale: float  # the check's value times scale is the value shown
    values: Values
    warning: float | None  # the check's own limits, in the check's unit
    critical: float | None
    maximum: str = ""

    def default(self, level: str) -> Range | None:
        limit = self.warning if level == "warning" else self.critical
        return None if limit is None else ranges.above(limit * self.scale)


def _fullest(check: Check) -> tuple[float, float]:
    assert isinstance(check.evaluate, Fullest)
    return check.evaluate.limits


LIMITS: dict[str, Limit] = {
    limit.name: limit
    for limit in (
        Limit(
            "data_memory",
            storage.DATA_MEMORY_FULL,
            "data_memory_node_{key}",
            "%",
            100,
            per_data_node(storage.DATA_MEMORY_FULL),
            *_fullest(storage.DATA_MEMORY_FULL),
            maximum="100",
        ),
        Limit(
            "redo",
            storage.REDO_LOG_FULL,
            "redo_fullest_part_node_{key}",
            "%",
            100,
            per_data_node(storage.REDO_LOG_FULL),
            *_fullest(storage.REDO_LOG_FULL),
            maximum="100",
        ),
        Limit(
            "send_buffer",
            network.SEND_BUFFERS_FULL,
            "send_buffer_node_{key}",
            "%",
            100,
            per_data_node(network.SEND_BUFFERS_FULL),
            *_fullest(network.SEND_BUFFERS_FULL),
            maximum="100",
        ),
        Limit(
            "tablespace",
            storage.TABLESPACE_FULL,
            "tablespace_{key}",
            "%",
            100,
            per_name(storage.TABLESPACE_FULL),
            *_fullest(storage.TABLESPACE_FULL),
            maximum="100",
        ),
        Limit(
            "lag",
            replication_checks.REPLICATION_LAG_HIGH,
            "replication_lag_{key}",
            "s",
            1,
            _lag,
            thresholds.REPLICATION_LAG_SECONDS,
            None,
        ),
        Limit(
            "lcp_age",
            storage.LCP_OLD,
            "lcp_age_gcis",
            "",
            1,
            _lcp_age,
            None,
            thresholds.LCP_AGE_GCIS,
        ),
        Limit(
            "backup_age",
            management.BACKUP_NOT_COMPLETED,
            "backup_age_hours",
            "",
            1,
            _backup_age,
            thresholds.BACKUP_AGE_HOURS,
            None,
        ),
    )
}
BY_CHECK = {limit.check.id: limit for limit in LIMITS.values()}


@dataclass(frozen=True)
class Thresholds:
    """The ranges given with -w and -c, by limit name."""

    warning: Mapping[str, Range]
    critical: Mapping[str, Range]

    def of(self, limit: Limit) -> tuple[Range | None, Range | None]:
        return (
            self.warning.get(limit.name, limit.default("warning")),
            self.critical.get(limit.name, limit.default("critical")),
        )

    def given(self, limit: Limit) -> bool:
        return limit.name in self.warning or limit.name in self.critical


NO_THRESHOLDS = Thresholds({}, {})


def parse_thresholds(flag: str, items: list[str]) -> dict[str, Range]:
    """``NAME=RANGE`` items (comma-separated or repeated); ConfigError with one line."""
    found: dict[str, Range] = {}
    for item in items:
        name, sep, text = item.partition("=")
        name = name.strip()
        if not sep:
            raise ConfigError(f"{flag}: {item!r} is not NAME=RANGE (names: {', '.join(LIMITS)})")
        if name not in LIMITS:
            raise ConfigError(f"{flag}: no threshold named {name!r} (names: {', '.join(LIMITS)})")
        try:
            found[name] = ranges.parse(text)
        except ConfigError as exc:
            raise ConfigError(f"{flag} {name}: {exc}") from None
    return found


@dataclass(frozen=True)
class Measurement:
    """One value a check judges, as the performance data shows it."""

    label: str
    value: float | None  # None: the node cannot report (U)
    unit: str
    warning: Range | None
    critical: Range | None
    maximum: str

    def perfdata(self) -> str:
        shown = "U" if self.value is None else number(self.value) + self.unit
        low = "0" if self.unit in ("%", "s", "") else ""
        fields = [
            shown,
            self.warning.text if self.warning else "",
            self.critical.text if self.critical else "",
            low,
            self.maximum,
        ]
        return f"{quoted(self.label)}={';'.join(fields).rstrip(';')}"


def measure(limit: Limit, inputs: Inputs, given: Thresholds) -> list[Measurement]:
    warning, critical = given.of(limit)
    return [
        Measurement(
            limit.label.format(key=key).rstrip("_"),
            None if value is None else value * limit.scale,
            limit.unit,
            warning,
            critical,
            limit.maximum,
        )
        for key, value in limit.values(inputs).items()
    ]


def judged(finding: Finding, measurements: list[Measurement]) -> Finding:
    """The finding judged again by the ranges given with -w/-c."""
    known = [m for m in measurements if m.value is not None]
    if finding.status == "unknown" or not known:
        return finding
    for level in ("critical", "warning"):
        over = [m for m in known if getattr(m, level) and getattr(m, level).alerts(m.value)]
        if over:
            limit = getattr(over[0], level)
            shown = ", ".join(f"{m.label} {number(m.value)}{m.unit}" for m in over)  # type: ignore[arg-type]
            return finding.model_copy(
                update={
                    "status": "problem",
                    "severity": level,
                    "summary": f"{shown}: outside the {level} range {limit.text}.",
                }
            )
    shown = ", ".join(f"{m.label} {number(m.value)}{m.unit}" for m in known)  # type: ignore[arg-type]
    return finding.model_copy(
        update={"status": "ok", "summary": f"Within the thresholds: {shown}."}
    )


def number(value: float) -> str:
    """A number as performance data wants it: never in scientific notation."""
    if float(value).is_integer():
        return str(int(value))
    return f"{value:.3f}".rstrip("0").rstrip(".")


def quoted(label: str) -> str:
    """A performance data label: quoted, its quotes doubled, no equals sign."""
    return "'" + label.replace("=", "_").replace("'", "''") + "'"


def node_counts(inputs: Inputs) -> list[str]:
    """Data nodes running, management nodes connected and SQL/API nodes connected, each out
    of those configured; for SQL/API nodes out of those connected now or before, so that a
    spare [api] slot that never connected is not counted."""
    topology = inputs.cluster.topology
    data = [n for g in topology.node_groups for n in g.nodes] + topology.unassigned_data_nodes
    mgm = topology.management_nodes
    api_up = sum(n.connected for n in topology.api_nodes)
    counts = {"ndbd_nodes": (sum(n.running for n in data), len(data))}
    if mgm or topology.api_nodes:  # else the processes collector gave nothing (NDB < 7.5.7)
        counts["ndb_mgmd_nodes"] = (sum(n.connected for n in mgm), len(mgm))
        counts["mysqld_nodes"] = (api_up, api_up + len(availability.api_nodes_gone(inputs)))
    return [f"{quoted(name)}={up};;;0;{total}" for name, (up, total) in counts.items()]


def rejudged(findings: list[Finding], inputs: Inputs | None, given: Thresholds) -> list[Finding]:
    """The findings, those whose limits -w/-c set judged again by those ranges."""
    if inputs is None:
        return findings
    out = []
    for finding in findings:
        limit = BY_CHECK.get(finding.id)
        if limit is not None and given.given(limit):
            finding = judged(finding, measure(limit, inputs, given))
        out.append(finding)
    return sorted(out, key=lambda f: (ORDER[f.status], SEVERITY[f.severity]))
