"""The report as data: what ``--format json`` prints (its JSON Schema is docs/report.schema.json,
``python -m ndbinfo_exporter.report.schema``) and what the text and Markdown forms show.

The report has its own models, versioned by ``SCHEMA_VERSION``: they are filled from the
view's models, so a change to the view's API does not change the report's JSON unless this
file changes too (and the version with it).
"""

from __future__ import annotations

import re
import shlex
from datetime import UTC, datetime
from typing import Literal

from ndbinfo_exporter import __version__, logs
from ndbinfo_exporter.health.findings import alerting
from ndbinfo_exporter.health.findings.availability import api_nodes_gone
from ndbinfo_exporter.health.management import management_view
from ndbinfo_exporter.health.models import Finding
from ndbinfo_exporter.health.samples import whole
from ndbinfo_exporter.report import limits
from ndbinfo_exporter.report.nagios import CHECKS, Verdict
from ndbinfo_exporter.report.options import Options
from ndbinfo_exporter.report.reading import Reading
from ndbinfo_exporter.scrape.ndb_visibility import CAUSES, OK
from pydantic import BaseModel, Field

SCHEMA_VERSION = 2


class Cluster(BaseModel):
    name: str | None = Field(None, description="Ndb_system_name")
    ndb_version: str | None = Field(
        None, description="MySQL NDB version of the SQL node (on RonDB: the one it is built on)"
    )
    flavour: str | None = Field(None, description="mysql (MySQL NDB Cluster) or rondb (RonDB)")
    flavour_version: str | None = Field(None, description="The flavour's own release")
    mysql_version: str | None = Field(None, description="@@version of the SQL node")
    sql_node_id: int | None = Field(None, description="Ndb_cluster_node_id of the SQL node read")
    data_nodes_configured: int | None = None
    data_nodes_ready: int | None = None
    node_groups: int = Field(description="Node groups seen")
    president_node_id: int | None = None
    arbitrator_node_id: int | None = None


class Restart(BaseModel):
    status: str | None = Field(None, description="restart_info's status: the current step")
    progress: float | None = Field(
        None, description="0 to 0.99, estimated from the other data nodes' last restarts"
    )
    remaining_seconds: float | None = Field(None, description="Estimated seconds left")


class DataNode(BaseModel):
    node_id: int
    nodegroup: int | None = None
    state: str = Field(description="ndbinfo.nodes status, or STOPPED when the node has no row")
    running: bool
    start_phase: int | None = None
    uptime_seconds: float | None = None
    hostname: str | None = None
    version: str | None = None
    restart: Restart | None = Field(
        None, description="Its restart under way: set while it is STARTING or has an estimate"
    )


class SchemaChange(BaseModel):
    kind: Literal["copy", "reorganize"] = Field(
        description="copy: a copying ALTER TABLE; reorganize: REORGANIZE PARTITION"
    )
    database: str
    table: str | None = Field(None, description="The table altered; null when it cannot be told")
    copy_table: str | None = Field(None, description="A copy's #sql- table")
    progress: float | None = Field(None, description="0..1: share of the rows copied or moved")
    rows: int | None = Field(None, description="A copy's rows copied so far")
    bytes: int | None = Field(None, description="Memory allocated to a copy's #sql- table")


class OtherNode(BaseModel):
    node_id: int
    node_type: Literal["MGM", "API"]
    connected: bool
    gone: bool = Field(
        description="Not connected, but was: a management node, or a SQL/API node a data "
        "node's transporter had connected to (a spare [api] slot never is)"
    )
    hostname: str | None = None
    version: str | None = None
    process_name: str | None = None


class Resources(BaseModel):
    node_id: int
    data_memory_used_bytes: float | None = None
    data_memory_total_bytes: float | None = None
    data_memory_used_ratio: float | None = Field(None, description="0 to 1")
    redo_used_bytes: float | None = Field(None, description="REDO log space used, all parts")
    redo_total_bytes: float | None = None
    redo_used_ratio: float | None = Field(None, description="0 to 1, all parts")
    redo_fullest_part_ratio: float | None = Field(
        None, description="0 to 1: the fullest REDO log part, what redo_log_full judges"
    )


class Checkpoints(BaseModel):
    lcp_id: int | None = Field(None, description="Last completed local checkpoint")
    replicas_lcp_ongoing: int | None = None
    completed_gci: int | None = Field(None, description="GCI of the last LCP completion")
    current_gci: int | None = None
    age_gcis: int | None = Field(None, description="current_gci - completed_gci")
    age_seconds: float | None = Field(None, description="age_gcis x TimeBetweenGlobalCheckpoints")


class Channel(BaseModel):
    channel: str = Field(description="Channel_Name; empty for the default channel")
    io_thread: str | None = Field(None, description="yes, connecting or no")
    sql_thread: str | None = Field(None, description="yes or no")
    last_io_error_number: int | None = None
    last_sql_error_number: int | None = None
    seconds_behind_source: float | None = None
    source_server_id: int | None = None


class AppliedGci(BaseModel):
    server_id: int
    applied_gci: int


class Binlog(BaseModel):
    server_id: int | None = None
    committed_gci: int | None = None
    written_gci: int | None = None
    injector_lag_gcis: int | None = None
    event_buffer_gcis: int | None = None


class Replication(BaseModel):
    channels: list[Channel]
    applied: list[AppliedGci]
    binlog: Binlog | None = None


class ConfigValue(BaseModel):
    node_id: int
    value: float


class ConfigParam(BaseModel):
    param: str
    default: float | None = None
    values: list[ConfigValue]
    inconsistent: bool = Field(description="The value differs between data nodes")


class Evidence(BaseModel):
    label: str
    text: str = Field(description="As the view shows it")
    value: float | None = Field(None, description="The number in text, when it is one")
    unit: str | None = Field(None, description="Its unit: %, s, B, GiB, GCIs, ...")


class Measurement(BaseModel):
    """A value the check judges, as the check's performance data carries it."""

    label: str
    value: float | None = Field(description="null: the node cannot report (U)")
    unit: str = Field(description="%, s, or empty for a count")
    warning: str | None = Field(None, description="Warning range (Monitoring Plugins syntax)")
    critical: str | None = Field(None, description="Critical range")


class ReportFinding(BaseModel):
    id: str
    title: str
    family: str = Field(description="availability, storage, network, replication, ...")
    status: Literal["problem", "ok", "unknown"]
    severity: Literal["critical", "warning", "info"]
    summary: str
    evidence: list[Evidence]
    measurements: list[Measurement]
    advice: str
    promql: str
    sql: str
    guide: str
    needs_history: str | None = Field(
        None,
        description="Set when the check measures a rate or a change and the report read once: "
        "what one read cannot tell, and how to get it (Prometheus, or --interval)",
    )


class ManagementServer(BaseModel):
    address: str
    answered: bool = Field(description="Answered get status")


class ManagedNode(BaseModel):
    node_id: int
    node_type: str = Field(description="NDB, MGM or API")
    status: str = Field(description="As get status reports it: STARTED, NO_CONTACT, ...")
    start_phase: int | None = None
    connect_count: int
    version: str | None = None


class Backup(BaseModel):
    backup_id: int
    completed_at: float = Field(description="Unix time its BackupCompleted arrived")
    bytes: int
    records: int


class RunningBackup(BaseModel):
    backup_id: int
    started_at: float = Field(description="Unix time its BackupStarted was received")
    bytes: int | None = Field(
        None, description="Data bytes the data nodes had written (their BackupStatus reports)"
    )
    records: int | None = Field(None, description="Records the data nodes had written")
    progress: float | None = Field(
        None, description="0..1: bytes written over the last completed backup's"
    )
    remaining_seconds: float | None = Field(
        None, description="Estimated seconds left at the pace so far"
    )


class LogEvent(BaseModel):
    type: str = Field(description="Event type name (ndb_logevent.h)")
    time: float = Field(description="Unix time it was received")
    source_node: int
    severity: str = Field(description="INFO, WARNING, ERROR or ALERT")
    text: str


class ForcedStop(BaseModel):
    node_id: int
    time: float = Field(description="Unix time its NDBStopForced was received")
    error: int = Field(description="ndbd exit code; 0 when a signal ended the process")
    signal: int = Field(description="Signal that ended the process, 0 for none")
    message: str | None = Field(None, description="NDB's text for the code (errArray)")
    classification: str | None = Field(
        None, description="internal_error, arbitration_error, ... (ndbd_exit_cl_*)"
    )
    classification_text: str | None = None
    status_text: str | None = Field(None, description="What NDB says to do")
    start_phase: int | None = Field(None, description="Start phase; null when it had started")
    restarting: bool = Field(description="Its angel starts it again")
    meaning: str = Field(description="What the code usually means")
    status_now: str | None = Field(None, description="Its status at the last get status")


class Management(BaseModel):
    servers: list[ManagementServer]
    nodes: list[ManagedNode] = Field(description="Every node: data, management and API")
    subscription_up: bool = Field(description="The cluster log subscription was open")
    last_backup: Backup | None = Field(None, description="The last BackupCompleted received")
    running_backup: RunningBackup | None = Field(
        None, description="The backup running at the end of the run, as far as it had got"
    )
    backups_aborted: int
    backups_failed_to_start: int
    events: list[LogEvent] = Field(description="Cluster log events received, newest first")
    forced_stops: list[ForcedStop] = Field(
        default_factory=list, description="Each data node's last forced stop received"
    )


class Summary(BaseModel):
    critical: int = Field(description="Problems of critical severity")
    warning: int = Field(description="Problems of warning severity")
    info: int = Field(description="Problems of info severity")
    unknown: int = Field(description="Checks that could not judge for lack of data")
    ok: int


class Report(BaseModel):
    """One read of an NDB cluster through one SQL node, and the cluster view's findings."""

    schema_version: Literal[2] = SCHEMA_VERSION
    exporter_version: str = Field(description="ndbinfo-exporter version that wrote it")
    command: str = Field(description="The command line, without the program's path")
    status: Literal["OK", "WARNING", "CRITICAL", "UNKNOWN"] = Field(
        description="What `check` with the same flags returns (default selection)"
    )
    exit_code: int = Field(description="check's exit code: 0, 1, 2 or 3")
    status_text: str = Field(description="check's status line, without its performance data")
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
    collectors_read: list[str] = Field(description="The collectors this read ran")
    collectors_failed: dict[str, str] = Field(description="Collector -> why it failed")
    cluster: Cluster | None = None
    data_nodes: list[DataNode] = Field(description="Every data node, by node id")
    fragments_with_dead_replicas: int | None = Field(
        None, description="Fragments with a replica on a stopped data node (ndbinfo)"
    )
    other_nodes: list[OtherNode] = Field(
        description="Management nodes, and SQL/API nodes connected now or before (spare "
        "[api] slots that never connected are left out)"
    )
    spare_api_slots: int = Field(description="[api] slots configured that never connected")
    schema_changes: list[SchemaChange] = Field(
        default_factory=list,
        description="Copying ALTER TABLEs and REORGANIZE PARTITIONs under way",
    )
    resources: list[Resources] = Field(description="DataMemory and redo log per data node")
    checkpoints: Checkpoints | None = None
    replication: Replication | None = Field(
        None, description="Present when this SQL node replicates or writes a binary log"
    )
    configuration: list[ConfigParam] = Field(
        description="Parameters that differ from their default or between data nodes"
    )
    configuration_unknown: str | None = Field(
        None, description="Why the configuration could not be read"
    )
    management: Management | None = Field(
        None,
        description="What the management server reports (--mgmd.address): every node's "
        "status, the running backup, the last completed one, backups aborted or failed to "
        "start, the latest "
        "cluster log events and each data node's last forced stop (those received during "
        "the run)",
    )
    summary: Summary
    findings: list[ReportFinding] = Field(description="Problems first, as the view lists them")


NUMBER = re.compile(r"^(-?[\d,]*\.?\d+)\s*(%|[KMGT]iB|B|s|ms|GCIs?|requests/s)?$")


def evidence(label: str, text: str) -> Evidence:
    """Evidence with its number and unit when its text is one number with a unit."""
    match = NUMBER.match(text.strip())
    if match is None:
        return Evidence(label=label, text=text)
    return Evidence(
        label=label, text=text, value=float(match[1].replace(",", "")), unit=match[2] or None
    )


def _history(finding: Finding, interval: float | None) -> str | None:
    check = CHECKS.get(finding.id)
    if check is None or not check.needs_history or interval is not None:
        return None
    return (
        "Measured from one read: a rate needs two. Prometheus measures it over time "
        "(the PromQL above); --interval SECONDS reads twice."
    )


def _finding(reading: Reading, finding: Finding, options: Options) -> ReportFinding:
    limit = limits.BY_CHECK.get(finding.id)
    measured = (
        limits.measure(limit, reading.inputs, options.thresholds)
        if limit is not None and reading.inputs is not None
        else []
    )
    return ReportFinding(
        **finding.model_dump(exclude={"evidence"}),
        family=CHECKS[finding.id].family if finding.id in CHECKS else alerting.FAMILY,
        evidence=[evidence(e.label, e.value) for e in finding.evidence],
        measurements=[
            Measurement(
                label=m.label,
                value=m.value,
                unit=m.unit,
                warning=m.warning.text if m.warning else None,
                critical=m.critical.text if m.critical else None,
            )
            for m in measured
        ],
        needs_history=_history(finding, reading.interval),
    )


def _other_nodes(reading: Reading) -> tuple[list[OtherNode], int]:
    topology = reading.cluster.topology
    gone = set(api_nodes_gone(reading.inputs)) if reading.inputs else set()
    shown, spare = [], 0
    for node in sorted(topology.management_nodes + topology.api_nodes, key=lambda n: n.node_id):
        is_gone = not node.connected and (node.node_type == "MGM" or node.node_id in gone)
        if node.node_type == "API" and not node.connected and not is_gone:
            spare += 1
            continue
        shown.append(OtherNode(**node.model_dump(), gone=is_gone))
    return shown, spare


def _replication(reading: Reading) -> Replication | None:
    replication = reading.cluster.replication
    if not (replication.replicating or replication.binlog is not None):
        return None
    return Replication.model_validate(replication.model_dump())


def _summary(findings: list[Finding]) -> Summary:
    problems = [f for f in findings if f.status == "problem"]
    return Summary(
        critical=sum(1 for f in problems if f.severity == "critical"),
        warning=sum(1 for f in problems if f.severity == "warning"),
        info=sum(1 for f in problems if f.severity == "info"),
        unknown=sum(1 for f in findings if f.status == "unknown"),
        ok=sum(1 for f in findings if f.status == "ok"),
    )


def _cluster(reading: Reading) -> Cluster | None:
    if not reading.result.up:
        return None
    sql, topology = reading.cluster.sql_node, reading.cluster.topology
    return Cluster(
        name=sql.system_name,
        ndb_version=sql.ndb_version,
        flavour=sql.flavour,
        flavour_version=sql.flavour_version,
        mysql_version=sql.version,
        sql_node_id=sql.node_id,
        data_nodes_configured=sql.data_nodes_configured,
        data_nodes_ready=sql.data_nodes_ready,
        node_groups=len(topology.node_groups),
        president_node_id=topology.president_node_id,
        arbitrator_node_id=topology.arbitrator_node_id,
    )


def _resources(reading: Reading) -> list[Resources]:
    return [
        Resources(
            node_id=r.node_id,
            data_memory_used_bytes=r.data_memory_used_bytes,
            data_memory_total_bytes=r.data_memory_total_bytes,
            data_memory_used_ratio=r.data_memory_ratio,
            redo_used_bytes=r.redo_used_bytes,
            redo_total_bytes=r.redo_total_bytes,
            redo_used_ratio=r.redo_ratio,
            redo_fullest_part_ratio=r.redo_worst_part_ratio,
        )
        for r in reading.cluster.resources
    ]


def command_line(options: Options) -> str:
    return shlex.join(["ndbinfo-exporter", options.command, *options.argv])


def build(reading: Reading, options: Options, verdict: Verdict) -> Report:
    result, cluster = reading.result, reading.cluster
    visibility = cluster.sql_node.ndb_visibility
    up = result.up
    topology = cluster.topology
    data_nodes = sorted(
        [n for g in topology.node_groups for n in g.nodes] + topology.unassigned_data_nodes,
        key=lambda n: n.node_id,
    )
    dead = (
        reading.inputs.samples.value("ndb_fragments_with_dead_replicas") if reading.inputs else None
    )
    others, spare = _other_nodes(reading)
    config = reading.config
    return Report(
        exporter_version=__version__,
        command=command_line(options),
        status=verdict.status,
        exit_code=verdict.code,
        status_text=verdict.text,
        target=result.target,
        read_at=datetime.fromtimestamp(result.finished_at, UTC).isoformat(timespec="seconds"),
        interval_seconds=reading.interval,
        reachable=up,
        error=logs.redact(result.error) if result.error else None,
        ndb_visible=up and visibility in (None, OK),
        ndb_visibility=visibility,
        ndb_not_visible_reason=CAUSES.get(visibility) if visibility else None,
        collectors_read=list(reading.collectors),
        collectors_failed={f.collector: logs.redact(f.error) for f in cluster.collectors_failed},
        cluster=_cluster(reading),
        data_nodes=[DataNode.model_validate(n.model_dump()) for n in data_nodes],
        fragments_with_dead_replicas=whole(dead),
        other_nodes=others,
        spare_api_slots=spare,
        schema_changes=[
            SchemaChange.model_validate(c.model_dump()) for c in cluster.schema_changes
        ],
        resources=_resources(reading),
        checkpoints=Checkpoints.model_validate(cluster.lcp.model_dump()) if up else None,
        replication=_replication(reading),
        configuration=[ConfigParam.model_validate(p.model_dump()) for p in config.params]
        if config is not None
        else [],
        configuration_unknown=config.unknown if config is not None else None,
        management=None
        if reading.management is None
        else Management.model_validate(
            management_view(result.target, reading.management).model_dump()
        ),
        summary=_summary(reading.findings),
        findings=[_finding(reading, f, options) for f in reading.findings],
    )
