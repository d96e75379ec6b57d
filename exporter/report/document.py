"""The report as data: what ``--format json`` prints (its JSON Schema is docs/report.schema.json,
``python -m ndbinfo_exporter.report.schema``) and what the text and Markdown forms show."""

from __future__ import annotations

import importlib
import pkgutil
from datetime import UTC, datetime
from typing import Literal

from ndbinfo_exporter import logs
from ndbinfo_exporter.report.reading import Reading
from ndbinfo_exporter.scrape.ndb_visibility import CAUSES, OK
from ndbinfo_exporter.view import findings as findings_package
from ndbinfo_exporter.view.findings.check import Check
from ndbinfo_exporter.view.findings.evaluation import CHECKS
from ndbinfo_exporter.view.models import (
    ConfigParam,
    DataNode,
    Finding,
    Lcp,
    NodeResources,
    OtherNode,
    Replication,
)
from ndbinfo_exporter.view.samples import Samples
from pydantic import BaseModel, Field

SCHEMA_VERSION = 1
FAMILIES = (
    "availability",
    "storage",
    "network",
    "replication",
    "configuration",
    "distribution",
    "queries",
    "performance",
)


def _families() -> dict[str, str]:
    """Check id -> its family: the module of view/findings that declares it."""
    found: dict[str, str] = {}
    for module in pkgutil.iter_modules(findings_package.__path__):
        if module.name not in FAMILIES:
            continue
        declared = importlib.import_module(f"{findings_package.__name__}.{module.name}")
        for value in vars(declared).values():
            if isinstance(value, Check):
                found[value.id] = module.name
    return found


FAMILY = _families()
NEEDS_HISTORY = {check.id for check in CHECKS if check.needs_history}


class Cluster(BaseModel):
    name: str | None = Field(None, description="Ndb_system_name")
    ndb_version: str | None = Field(None, description="NDB version of the SQL node")
    mysql_version: str | None = Field(None, description="@@version of the SQL node")
    sql_node_id: int | None = Field(None, description="Ndb_cluster_node_id of the SQL node read")
    data_nodes_configured: int | None = None
    data_nodes_ready: int | None = None
    node_groups: int = Field(description="Node groups seen")
    president_node_id: int | None = None
    arbitrator_node_id: int | None = None


class ReportFinding(Finding):
    family: str = Field(description="Module of the check: availability, storage, network, ...")
    needs_history: str | None = Field(
        None,
        description="Set when the check measures a rate or a change and the report read once: "
        "what one read cannot tell, and how to get it (Prometheus, or --interval)",
    )


class Summary(BaseModel):
    critical: int = Field(description="Problems of critical severity")
    warning: int = Field(description="Problems of warning severity")
    info: int = Field(description="Problems of info severity")
    unknown: int = Field(description="Checks that could not judge for lack of data")
    ok: int


class Report(BaseModel):
    """One read of an NDB cluster through one SQL node, and the cluster view's findings."""

    schema_version: Literal[1] = SCHEMA_VERSION
    target: str = Field(description="SQL node read (host:port or socket), never credentials")
    read_at: str = Field(description="When the (last) read finished, RFC 3339 UTC")
    interval_seconds: float | None = Field(
        None, description="Seconds between the two reads with --interval; null for one read"
    )
    reachable: bool = Field(description="The SQL node answered")
    error: str | None = Field(None, description="Why the SQL node did not answer, one line")
    ndb_visible: bool = Field(description="The ndbcluster engine and ndbinfo are visible")
    ndb_visibility: str | None = Field(
        None, description="ok, engine_absent, ndbinfo_absent or privilege_missing"
    )
    ndb_not_visible_reason: str | None = None
    collectors_failed: dict[str, str] = Field(description="Collector -> why it failed")
    cluster: Cluster | None = None
    data_nodes: list[DataNode] = Field(description="Every data node, by node id")
    fragments_with_dead_replicas: int | None = Field(
        None, description="Fragments with a replica on a stopped data node (ndbinfo)"
    )
    other_nodes: list[OtherNode] = Field(description="Management and API (SQL) nodes")
    resources: list[NodeResources] = Field(description="DataMemory and redo log per data node")
    lcp: Lcp | None = Field(None, description="Local checkpoint and global checkpoint (GCI)")
    replication: Replication | None = Field(
        None, description="Present when this SQL node replicates or writes a binary log"
    )
    configuration: list[ConfigParam] = Field(
        description="Parameters that differ from their default or between data nodes"
    )
    configuration_unknown: str | None = Field(
        None, description="Why the configuration could not be read"
    )
    summary: Summary
    findings: list[ReportFinding] = Field(description="Problems first, as the view lists them")


def _history(finding: Finding, interval: float | None) -> str | None:
    if finding.id not in NEEDS_HISTORY or interval is not None:
        return None
    return (
        "Measured from one read: a rate needs two. Prometheus measures it over time "
        "(the PromQL above); --interval SECONDS reads twice."
    )


def build(reading: Reading) -> Report:
    result, cluster = reading.result, reading.cluster
    visibility = cluster.sql_node.ndb_visibility
    up = result.up
    topology = cluster.topology
    findings = reading.findings.findings if reading.findings is not None else []
    report_findings = [
        ReportFinding(
            **finding.model_dump(),
            family=FAMILY.get(finding.id, "other"),
            needs_history=_history(finding, reading.interval),
        )
        for finding in findings
    ]
    problems = [f for f in findings if f.status == "problem"]
    data_nodes = sorted(
        [n for g in topology.node_groups for n in g.nodes] + topology.unassigned_data_nodes,
        key=lambda n: n.node_id,
    )
    replication = cluster.replication
    shows_replication = replication.replicating or replication.binlog is not None
    sql = cluster.sql_node
    dead = Samples(result.families).value("ndb_fragments_with_dead_replicas") if up else None
    return Report(
        target=result.target,
        read_at=datetime.fromtimestamp(result.finished_at, UTC).isoformat(timespec="seconds"),
        interval_seconds=reading.interval,
        reachable=up,
        error=logs.redact(result.error) if result.error else None,
        ndb_visible=up and visibility in (None, OK),
        ndb_visibility=visibility,
        ndb_not_visible_reason=CAUSES.get(visibility) if visibility else None,
        collectors_failed={f.collector: logs.redact(f.error) for f in cluster.collectors_failed},
        cluster=Cluster(
            name=sql.system_name,
            ndb_version=sql.ndb_version,
            mysql_version=sql.version,
            sql_node_id=sql.node_id,
            data_nodes_configured=sql.data_nodes_configured,
            data_nodes_ready=sql.data_nodes_ready,
            node_groups=len(topology.node_groups),
            president_node_id=topology.president_node_id,
            arbitrator_node_id=topology.arbitrator_node_id,
        )
        if up
        else None,
        data_nodes=data_nodes,
        fragments_with_dead_replicas=None if dead is None else int(dead),
        other_nodes=sorted(topology.management_nodes + topology.api_nodes, key=lambda n: n.node_id),
        resources=cluster.resources,
        lcp=cluster.lcp if up else None,
        replication=replication if shows_replication else None,
        configuration=reading.config.params if reading.config is not None else [],
        configuration_unknown=reading.config.unknown if reading.config is not None else None,
        summary=Summary(
            critical=sum(1 for f in problems if f.severity == "critical"),
            warning=sum(1 for f in problems if f.severity == "warning"),
            info=sum(1 for f in problems if f.severity == "info"),
            unknown=sum(1 for f in findings if f.status == "unknown"),
            ok=sum(1 for f in findings if f.status == "ok"),
        ),
        findings=report_findings,
    )
