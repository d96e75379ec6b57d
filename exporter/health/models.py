"""Models of the cluster, its configuration, placement, management and findings: what the
view's JSON API answers (/api/v1/*, described in /openapi.json) and what ``check`` and
``report`` judge."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field


class ScrapeInfo(BaseModel):
    target: str = Field(description="SQL node the exporter reads (host:port)")
    up: bool = Field(description="The SQL node answered (ndb_up)")
    error: str | None = Field(None, description="Why the SQL node did not answer")
    scraped_at: float = Field(description="Unix time the data was collected")


class SqlNode(BaseModel):
    version: str | None = Field(None, description="@@version of the SQL node")
    ndb_version: str | None = Field(
        None, description="MySQL NDB version (on RonDB: the MySQL NDB release it is built on)"
    )
    flavour: Literal["mysql", "rondb"] | None = Field(
        None, description="mysql (MySQL NDB Cluster) or rondb (RonDB)"
    )
    flavour_version: str | None = Field(None, description="The flavour's own release")
    node_id: int | None = Field(None, description="Ndb_cluster_node_id")
    system_name: str | None = Field(None, description="Ndb_system_name")
    data_nodes_configured: int | None = None
    data_nodes_ready: int | None = None
    ndb_visibility: Literal["ok", "engine_absent", "ndbinfo_absent", "privilege_missing"] | None = (
        Field(
            None,
            description="What the exporter's account sees of NDB (ndb_engine_visibility): ok, or"
            " why the ndbinfo collectors are skipped: no ndbcluster engine, no ndbinfo schema, or no"
            " privilege to read it",
        )
    )


class RestartProgress(BaseModel):
    """A data node's restart under way, as ndbinfo.restart_info shows it, and the estimate
    of the restart_info collector (ndb_restart_progress_ratio, ndb_restart_remaining_seconds)."""

    status: str | None = Field(
        None, description="node_restart_status: the restart's current step in NDB's words"
    )
    progress: float | None = Field(
        None,
        description="0..0.99: share of the restart done, estimated from the other data nodes'"
        " last completed restarts; null without one to compare with",
    )
    remaining_seconds: float | None = Field(
        None, description="Estimated seconds until the node has started; null when progress is"
    )


class DataNode(BaseModel):
    node_id: int
    nodegroup: int | None = Field(
        None, description="Node group; kept from placement or earlier scrapes while stopped"
    )
    state: str = Field(
        description="ndbinfo.nodes status, or STOPPED when the node has no row (INACTIVE for a"
        " data node the configuration has not active: RonDB's NodeActive=0)"
    )
    running: bool
    active: bool = Field(
        True,
        description="False for a data node the configuration has not active (RonDB's"
        " NodeActive=0, from the management server): it never starts until it is activated",
    )
    start_phase: int | None = None
    uptime_seconds: float | None = None
    hostname: str | None = None
    version: str | None = None
    restart: RestartProgress | None = Field(
        None, description="Its restart, while ndbinfo.nodes shows it STARTING or it has an estimate"
    )


class NodeGroup(BaseModel):
    nodegroup: int
    nodes: list[DataNode]
    running: int = Field(description="Running data nodes of this node group")


class OtherNode(BaseModel):
    node_id: int
    node_type: Literal["MGM", "API"]
    connected: bool
    hostname: str | None = None
    version: str | None = None
    process_name: str | None = Field(None, description="mysqld, ndb_mgmd, or the NDB API program")


class Topology(BaseModel):
    node_groups: list[NodeGroup]
    unassigned_data_nodes: list[DataNode] = Field(
        description="Data nodes whose node group is not known (stopped since the exporter started)"
    )
    management_nodes: list[OtherNode]
    api_nodes: list[OtherNode] = Field(description="SQL and other API nodes, connected or not")
    president_node_id: int | None = None
    arbitrator_node_id: int | None = None


class Lcp(BaseModel):
    lcp_id: int | None = Field(None, description="Last completed local checkpoint (ndb_lcp_id)")
    replicas_lcp_ongoing: int | None = Field(None, description="Replicas with an LCP running now")
    replicas_lcp_ongoing_by_node: dict[int, int] = {}
    completed_gci: int | None = Field(None, description="GCI of the last LCP completion")
    current_gci: int | None = Field(None, description="floor(Ndb_last_commit_epoch_server / 2^32)")
    age_gcis: int | None = Field(None, description="current_gci - completed_gci")
    age_seconds: float | None = Field(
        None, description="age_gcis times TimeBetweenGlobalCheckpoints (an estimate)"
    )


class NodeResources(BaseModel):
    node_id: int
    data_memory_used_bytes: float | None = None
    data_memory_total_bytes: float | None = None
    data_memory_ratio: float | None = None
    redo_used_bytes: float | None = Field(None, description="REDO log space used, all log parts")
    redo_total_bytes: float | None = None
    redo_ratio: float | None = None
    redo_worst_part_ratio: float | None = Field(None, description="Fullest REDO log part")


class SqlEfficiency(BaseModel):
    basis: Literal["two scrapes", "since SQL node start", "no data"] = Field(
        description="Ratios come from the counter increase between the last two scrapes; "
        "before a second scrape exists, from the counters since the SQL node started"
    )
    window_seconds: float | None = Field(None, description="Time between the two scrapes")
    scans: float | None = Field(None, description="Table and range scans in the window")
    pruned_scans: float | None = None
    pruned_scan_ratio: float | None = Field(None, description="Pruned scans / all scans")
    commits: float | None = Field(None, description="Committed transactions in the window")
    round_trips: float | None = Field(None, description="Ndb_api_wait_exec_complete_count increase")
    round_trips_per_commit: float | None = None
    key_operations: float | None = None
    key_operations_per_round_trip: float | None = None


class ApplierWorker(BaseModel):
    worker: int = Field(
        description="WORKER_ID: 1 and up for the applier's workers, 0 for the SQL thread"
        " applying without workers"
    )
    state: str | None = Field(None, description="SERVICE_STATE, lower case: on or off")
    last_error_number: int | None = Field(None, description="LAST_ERROR_NUMBER; 0 = no error")


class ReplicaChannel(BaseModel):
    channel: str = Field(description="Channel_Name; empty for the default channel")
    io_thread: Literal["yes", "connecting", "no"] | None = Field(
        None, description="Replica_IO_Running (Slave_IO_Running), lower case"
    )
    sql_thread: Literal["yes", "no"] | None = Field(
        None, description="Replica_SQL_Running (Slave_SQL_Running), lower case"
    )
    last_io_error_number: int | None = Field(None, description="Last_IO_Errno; 0 = no error")
    last_sql_error_number: int | None = Field(
        None, description="Last_SQL_Errno; 0 = no error, 1590 = a gap in the source's binary log"
    )
    seconds_behind_source: float | None = Field(
        None, description="Seconds_Behind_Source; null while it is NULL (the applier is stopped)"
    )
    source_server_id: int | None = Field(None, description="Source_Server_Id (Master_Server_Id)")
    relay_log_space_bytes: int | None = Field(
        None, description="Relay_Log_Space: bytes of the channel's relay log files"
    )
    transaction_retries: int | None = Field(
        None, description="COUNT_TRANSACTIONS_RETRIES: transactions the applier retried"
    )
    workers: list[ApplierWorker] = Field(
        default_factory=list,
        description="The applier's workers (replication_applier_status_by_worker)",
    )


class AppliedGci(BaseModel):
    server_id: int = Field(description="server_id of a source SQL node (mysql.ndb_apply_status)")
    applied_gci: int = Field(description="Newest GCI applied from it (epoch >> 32)")


class BinlogInjector(BaseModel):
    server_id: int | None = Field(None, description="This SQL node's @@server_id")
    buffered_gci: int | None = Field(
        None, description="latest_epoch >> 32: newest GCI fully received into the event buffer"
    )
    received_gci: int | None = Field(
        None, description="latest_received_binlog_epoch >> 32: newest GCI the injector took"
    )
    handled_gci: int | None = Field(
        None, description="latest_handled_binlog_epoch >> 32: newest GCI the injector finished"
    )
    written_gci: int | None = Field(
        None, description="latest_applied_binlog_epoch >> 32: newest GCI written to the binlog"
    )
    committed_gci: int | None = Field(
        None, description="floor(Ndb_last_commit_epoch_server / 2^32): the cluster's newest GCI"
    )
    injector_lag_gcis: int | None = Field(None, description="committed_gci - handled_gci")
    event_buffer_gcis: int | None = Field(None, description="buffered_gci - received_gci")


class ConflictHandling(BaseModel):
    """What the replica applier's conflict detection did (the default channel's Ndb_conflict_*
    status variables): on an NDB$EPOCH primary, an epoch that came back round the
    active-active pair with no conflict found since becomes the last stable epoch
    (ndb_replica.cc, update_global_state)."""

    last_conflict_gci: int | None = Field(
        None, description="Ndb_conflict_last_conflict_epoch >> 32; 0 for no conflict"
    )
    last_stable_gci: int | None = Field(
        None, description="Ndb_conflict_last_stable_epoch >> 32; 0 on a one-way replica"
    )
    converged: bool | None = Field(
        None,
        description="The active-active pair's conflicts are resolved on both sides: last stable"
        " epoch >= last conflict epoch; null unless epochs come back round"
        " (Ndb_replica_max_replicated_epoch > 0)",
    )
    rows_in_conflict: dict[str, int] = Field(
        default_factory=dict,
        description="Rows found in conflict per detection function (Ndb_conflict_fn_*), the"
        " functions that found any",
    )
    transactions_rejected: int | None = Field(
        None, description="Ndb_conflict_trans_reject_count (the *_TRANS functions)"
    )
    refresh_operations: int | None = Field(
        None, description="Ndb_conflict_refresh_op_count (the NDB$EPOCH functions)"
    )
    exceptions_rows: int | None = Field(
        None,
        description="Rows in the exceptions tables (`t$EX`) the conflict_exceptions collector"
        " exported (the fullest ones); null when it is off",
    )


class Replication(BaseModel):
    replicating: bool = Field(
        description="This SQL node has a replica channel, writes a binary log of NDB changes"
        " or its replica applier handled conflicts"
    )
    channels: list[ReplicaChannel] = Field(description="Replica channels (SHOW REPLICA STATUS)")
    applied: list[AppliedGci] = Field(description="Applied GCI per source server_id")
    binlog: BinlogInjector | None = Field(
        None, description="The binlog injector; null when this SQL node writes no binary log"
    )
    conflicts: ConflictHandling | None = Field(
        None,
        description="The replica applier's conflict handling; null while all its values are 0",
    )


class SchemaChange(BaseModel):
    """A schema change under way that moves rows: a copying ALTER TABLE or an ALTER TABLE ...
    REORGANIZE PARTITION, as the schema_changes collector measures it
    (ndb_table_copy_progress_ratio, ndb_table_copy_rows, ndb_table_copy_bytes,
    ndb_table_reorganize_progress_ratio)."""

    kind: Literal["copy", "reorganize"] = Field(
        description="copy: a copying ALTER TABLE; reorganize: REORGANIZE PARTITION"
    )
    database: str
    table: str | None = Field(
        None,
        description="The table altered; null for a copy whose table cannot be told (another"
        " table of its database has the same row size, or the database has several copies)",
    )
    copy_table: str | None = Field(
        None,
        description="A copy's #sql- table the rows go into; null for a reorganization and for"
        " a copy's share whose #sql- table cannot be told",
    )
    progress: float | None = Field(
        None, description="0..1: share of the rows copied or moved; null when it cannot be told"
    )
    rows: int | None = Field(None, description="A copy's rows copied so far")
    bytes: int | None = Field(None, description="Memory allocated to a copy's #sql- table")


class CollectorFailure(BaseModel):
    collector: str
    error: str = Field(description="Why it failed in this scrape, one line")


class ClusterView(ScrapeInfo):
    collectors_failed: list[CollectorFailure] = Field(
        [], description="Collectors that failed in this scrape: what the view cannot see"
    )
    sql_node: SqlNode
    topology: Topology
    lcp: Lcp
    resources: list[NodeResources]
    sql_efficiency: SqlEfficiency
    replication: Replication
    schema_changes: list[SchemaChange] = Field(
        [], description="Copying ALTER TABLEs and REORGANIZE PARTITIONs under way"
    )


class NodeValue(BaseModel):
    node_id: int
    value: float


class ConfigParam(BaseModel):
    param: str
    default: float | None = Field(None, description="Default where the parameter has a numeric one")
    values: list[NodeValue] = Field(description="Value on each data node")
    non_default_nodes: list[int] = Field(
        description="Data nodes where the value is not the default"
    )
    inconsistent: bool = Field(description="The value differs between data nodes")


class ConfigView(ScrapeInfo):
    unknown: str | None = Field(
        None, description="Why the parameters cannot be read now; the list is then empty"
    )
    params: list[ConfigParam] = Field(
        description="Parameters that differ from their default or between data nodes"
    )
    non_default_count: int
    inconsistent_count: int


class Evidence(BaseModel):
    label: str
    value: str


class Finding(BaseModel):
    id: str
    title: str
    status: Literal["problem", "ok", "unknown"] = Field(
        description="unknown: the data the check needs is missing, so it neither passed nor failed"
    )
    severity: Literal["critical", "warning", "info"]
    summary: str = Field(description="What was measured, in one or two sentences")
    evidence: list[Evidence] = []
    promql: str = Field(
        description="The same check as a PromQL expression over the exporter's metrics"
    )
    sql: str = Field(description="The SQL (ndbinfo / SHOW STATUS) the evidence comes from")
    guide: str = Field(description="Section of the NDB performance tuning guide")
    advice: str


class Fragment(BaseModel):
    fragment_id: int
    primary: int | None = Field(None, description="Current primary replica's node")
    preferred_primary: int | None = None
    backups: list[int] = Field(description="Nodes with an alive backup replica")
    dead: list[int] = Field(description="Nodes whose replica of this fragment is dead")
    lcp_ongoing: list[int] = Field(description="Nodes whose replica is in an LCP now")


class TableShare(BaseModel):
    node_id: int
    primaries: int = Field(description="Fragments of the table with their primary here")
    backups: int = Field(description="Alive backup replicas here")
    dead: int = Field(description="Dead replicas here")
    lcp_ongoing: int = Field(description="Replicas here in an LCP when the placement was read")


class PlacementTable(BaseModel):
    db: str
    table: str
    table_id: int
    read_backup: bool | None = None
    fully_replicated: bool | None = None
    fragments: int
    dead_replicas: int
    nodes: list[TableShare] = Field(description="The table's replicas per data node")


class TableFragments(BaseModel):
    target: str
    source_node: int = Field(description="Data node whose copy of table_fragments was read")
    db: str
    table: str
    table_id: int
    fragments: list[Fragment]


class PlacementNode(BaseModel):
    node_id: int
    nodegroup: int | None = None
    running: bool
    primaries: int = Field(description="Fragments of the matching tables with their primary here")
    replicas: int = Field(description="Alive replicas (primary and backup) here")
    dead_replicas: int


class DatabaseCount(BaseModel):
    db: str
    tables: int


class PlacementView(BaseModel):
    target: str
    source_node: int = Field(description="Data node whose copy of table_fragments was read")
    refreshed_at: float
    total_tables: int
    matched_tables: int
    page: int
    page_size: int
    pages: int
    databases: list[DatabaseCount] = Field(description="Matching tables per database")
    nodes: list[PlacementNode] = Field(description="Per-node summary over all matching tables")
    tables: list[PlacementTable] = Field(description="This page, ordered by database and table")


class ManagementServer(BaseModel):
    address: str
    answered: bool = Field(description="Answered get status at the last read")


class ManagedNode(BaseModel):
    node_id: int
    node_type: str = Field(description="NDB, MGM or API")
    status: str = Field(description="get status: STARTED, NO_CONTACT, CONNECTED, ...")
    start_phase: int | None = Field(None, description="Data nodes: the start phase")
    connect_count: int
    version: str | None = Field(None, description="NDB version, when the node reports one")


class LastBackup(BaseModel):
    backup_id: int
    completed_at: float = Field(description="Unix time its BackupCompleted arrived")
    bytes: int = Field(description="Data bytes written")
    records: int = Field(description="Records written")


class RunningBackup(BaseModel):
    """The backup the cluster log says runs, with the data nodes' reports of it (dump events
    BackupStatus, read with each get status while it runs)."""

    backup_id: int
    started_at: float = Field(description="Unix time its BackupStarted arrived")
    bytes: int | None = Field(
        None, description="Data bytes the data nodes have written so far; null before a report"
    )
    records: int | None = Field(None, description="Records written so far")
    read_at: float | None = Field(None, description="Unix time the reports were read")
    progress: float | None = Field(
        None,
        description="0..1: bytes so far over the last completed backup's; null without a"
        " completed backup to compare with",
    )
    remaining_seconds: float | None = Field(
        None,
        description="Estimated seconds left: the time since BackupStarted times"
        " (1 - progress) / progress; null while the progress is 0 or unknown",
    )


class LogEvent(BaseModel):
    type: str = Field(description="Event type name (ndb_logevent.h)")
    time: float = Field(description="Unix time the exporter received it")
    source_node: int
    severity: Literal["INFO", "WARNING", "ERROR", "ALERT"]
    text: str


class ForcedStop(BaseModel):
    """A data node's last forced stop (NDBStopForced), with NDB's words for its exit code
    (ndbd_exit_codes.cpp) and what the code usually means."""

    node_id: int
    time: float = Field(description="Unix time the exporter received the NDBStopForced")
    error: int = Field(description="ndbd exit code; 0 when a signal ended the process")
    signal: int = Field(description="Signal that ended the process, 0 for none")
    message: str | None = Field(None, description="errArray's text for the code; null for 0")
    classification: str | None = Field(
        None, description="ndbd_exit_cl_* without the prefix: internal_error, arbitration_error..."
    )
    classification_text: str | None = Field(None, description="NDB's text of the classification")
    status_text: str | None = Field(
        None, description="What NDB says to do: 'Temporary error, restart node', ..."
    )
    start_phase: int | None = Field(
        None, description="Start phase the node was in; null when it had started"
    )
    restarting: bool = Field(description="Its angel starts it again (StopOnError=false)")
    meaning: str = Field(description="What the code usually means, and where to look")
    status_now: str | None = Field(None, description="The node's status at the last get status")


class ManagementView(BaseModel):
    target: str = Field(description="The SQL node whose cluster this is")
    read_at: float | None = Field(None, description="Unix time of the last get status")
    servers: list[ManagementServer]
    nodes: list[ManagedNode] = Field(
        description="Every node (data, management, API) as the last get status reported it"
    )
    subscription_up: bool = Field(description="The cluster log subscription is open")
    listening_since: float | None = Field(
        None, description="Unix time the exporter first subscribed to the cluster log"
    )
    last_backup: LastBackup | None = Field(
        None, description="The last BackupCompleted since the exporter started listening"
    )
    running_backup: RunningBackup | None = Field(
        None, description="The backup that runs now, when its BackupStarted was received"
    )
    backups_aborted: int
    backups_failed_to_start: int
    events: list[LogEvent] = Field(description="The latest cluster log events, newest first")
    forced_stops: list[ForcedStop] = Field(
        default_factory=list,
        description="Each data node's last forced stop since the exporter started listening",
    )


class Alert(BaseModel):
    name: str = Field(description="alertname")
    state: Literal["firing", "pending"] = Field(
        description="pending: the condition holds, the rule's `for` has not passed yet"
    )
    severity: str | None = None
    summary: str | None = None
    since: str | None = Field(None, description="When the condition started (RFC 3339)")
    labels: dict[str, str]
    runbook_url: str | None = Field(
        None, description="The rule's runbook_url annotation; null unless an http(s) URL"
    )
    link: str = Field(
        description="Where the alert is shown in Prometheus or Alertmanager (http or https only)"
    )


class AlertsView(BaseModel):
    source: str | None = Field(
        description="Prometheus or Alertmanager the alerts come from (--view.alerts-url, or check's --alerts-url); "
        "null when none is configured"
    )
    alerts: list[Alert] = Field(description="Ndb* alerts: firing first, most severe first")
    error: str | None = Field(None, description="Why the alerts could not be read")
