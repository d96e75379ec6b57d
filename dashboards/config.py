"""Configuration: what differs from the defaults, what differs between nodes, key parameters."""

from __future__ import annotations

from .alerts import threshold
from .common import (
    ZERO_IS_GOOD_WARNING,
    alert_steps,
    bargauge_panel,
    bottom,
    joined_table,
    matrix_table,
    per_node,
    q,
    sel,
    stat_panel,
    thresholds,
    timeseries_panel,
)
from .layout import Board, Layout

UID = "ndb-config"
# A cluster configured alike on every data node has no inconsistent parameters; ndbsim shows
# one when started with a per-node override.
DRIFT = "config:MaxNoOfConcurrentScans=400@2"

# The exporter's key parameters (exported at their default too), with their units.
MEMORY_PARAMS = {
    "DataMemory": "bytes",
    "TransactionMemory": "bytes",
    "SharedGlobalMemory": "bytes",
    "DiskPageBufferMemory": "bytes",
    "TotalSendBufferMemory": "bytes",
}
REDO_LCP_PARAMS = {
    "NoOfFragmentLogParts": "none",
    "NoOfFragmentLogFiles": "none",
    "FragmentLogFileSize": "bytes",
    "RedoBuffer": "bytes",
    "TimeBetweenGlobalCheckpoints": "ms",
    "MinDiskWriteSpeed": "Bps",
    "MaxDiskWriteSpeed": "Bps",
}
TRANSACTION_PARAMS = {
    "NoOfReplicas": "none",
    "TransactionDeadlockDetectionTimeout": "ms",
    "TransactionInactiveTimeout": "ms",
}


def _params(params: dict[str, str]) -> str:
    matcher = 'param=~"' + "|".join(params) + '"'
    return f"max by (node_id, param) ({sel('ndb_config_value', matcher, node=True)})"


def _summary_row(layout: Layout) -> None:
    non_default = sel("ndb_config_non_default_params", node=True)
    layout.row(
        "Summary",
        bargauge_panel(
            "Parameters set away from their defaults",
            "Data node parameters whose value differs from the built-in default, per node. "
            "Expect the usual sizing parameters (DataMemory, NoOfReplicas, DataDir ...); a "
            "node with a different count from its peers has a config section of its own.",
            "none",
            per_node(non_default, instant=True),
            steps=thresholds((None, "blue")),
            width=8,
        ),
        stat_panel(
            "Parameters that differ between data nodes",
            "Parameters (other than per-node ones such as NodeId, HostName and DataDir) whose "
            "value is not the same on every data node. Data nodes should be configured alike: "
            "a node with less DataMemory or a smaller redo log fills first and limits the "
            "whole node group. Also nonzero in the middle of a rolling restart.",
            "none",
            q(f"max({sel('ndb_config_inconsistent_params')})", instant=True),
            steps=ZERO_IS_GOOD_WARNING,
            width=8,
            height=8,
        ),
        timeseries_panel(
            "Configuration generation",
            "How many data nodes run each generation of the cluster configuration, and the "
            "generation each SQL node runs. After a configuration change every node should "
            "reach the new generation once the rolling restart is done "
            "(NdbConfigGenerationSkew).",
            "none",
            q(
                'count by (generation) (count_values("generation", max by (node_id) '
                f"({sel('ndb_data_node_config_generation', node=True)})))",
                "data nodes at generation {{generation}}",
            ),
            q(f"max by (instance) ({sel('ndb_sql_config_generation')})", "{{instance}}"),
            width=8,
        ),
    )


def _difference_row(layout: Layout) -> None:
    value = sel("ndb_config_value", node=True)
    defaults = sel("ndb_config_default_value")
    inconsistent = sel("ndb_config_inconsistent")
    differing = (
        f"max by (param, node_id) ({value}) != on (param) group_left max by (param) ({defaults})"
    )
    default_column = (
        f"label_replace(max by (param) ({defaults}) and on (param) count by (param) ({differing}), "
        f'"node_id", "default", "", "")'
    )
    layout.row(
        "Differences",
        matrix_table(
            "Parameters that differ from their defaults",
            "One row per parameter that differs from its default on at least one data node: "
            "the default, then each node's value where it differs (an empty cell keeps the "
            "default). Values are in the parameter's own unit (bytes, milliseconds, counts).",
            q(f"{differing} or {default_column}", table=True),
            rows="param",
            columns="node_id",
            height=12,
        ),
        matrix_table(
            "Parameters that differ between data nodes",
            "Each data node's value of every parameter that is not the same on all data "
            "nodes. Empty in a consistently configured cluster.",
            q(
                f"max by (param, node_id) ({value}) and on (param) (max by (param) ({inconsistent}) == 1)",
                table=True,
                fault=DRIFT,
            ),
            rows="param",
            columns="node_id",
            height=12,
        ),
    )


def _key_parameter_row(layout: Layout) -> None:
    layout.row(
        "Key parameters per data node",
        matrix_table(
            "Memory parameters",
            "Memory sizing of each data node. DataMemory holds rows and (since 7.6) hash "
            "indexes; TransactionMemory (8.0) replaces the MaxNoOfConcurrent* operation "
            "records; DiskPageBufferMemory caches disk-data pages; SharedGlobalMemory backs "
            "the undo buffer and the resources without a fixed limit. Other memory parameters "
            "show in the table of parameters that differ from their defaults.",
            q(_params(MEMORY_PARAMS), table=True),
            rows="node_id",
            columns="param",
            column_units=MEMORY_PARAMS,
            width=24,
            height=6,
        ),
        matrix_table(
            "Redo log and checkpoint parameters",
            "Redo log size per node is NoOfFragmentLogParts x NoOfFragmentLogFiles x "
            "FragmentLogFileSize; it must hold the writes made during about two local "
            "checkpoints. TimeBetweenGlobalCheckpoints sets how often the redo log is flushed "
            "to disk; the disk write speeds bound the LCP writing rate.",
            q(_params(REDO_LCP_PARAMS), table=True),
            rows="node_id",
            columns="param",
            column_units=REDO_LCP_PARAMS,
            width=24,
            height=6,
        ),
        matrix_table(
            "Replicas and transaction timeouts",
            "The number of replicas and the timeouts that abort transactions: a deadlock "
            "timeout (error 266) aborts a transaction waiting for a lock, the inactive "
            "timeout one that the application left open.",
            q(_params(TRANSACTION_PARAMS), table=True),
            rows="node_id",
            columns="param",
            column_units=TRANSACTION_PARAMS,
            width=24,
            height=6,
        ),
    )


def _backup_and_version_row(layout: Layout) -> None:
    info = sel("ndb_node_info", 'node_version!=""')
    backup_changed = sel("cluster:ndb_backup_last_id_change:timestamp_seconds")
    too_old = threshold("NdbBackupTooOld")
    skew = threshold("NdbVersionSkew")
    layout.row(
        "Backups, versions and certificates",
        stat_panel(
            "Hours since a backup last started",
            "Hours since the id of the last backup (ndbinfo.backup_id) last increased, as the "
            "recording rule cluster:ndb_backup_last_id_change:timestamp_seconds tracks it. "
            f"NdbBackupTooOld fires above {too_old:g} hours: restores need a recent backup.",
            "h",
            q(f"(time() - max({backup_changed})) / 3600", instant=True),
            steps=alert_steps(too_old),
            width=6,
            height=8,
        ),
        timeseries_panel(
            "Last backup id",
            "Id of the last backup started in the cluster; each step is a new backup "
            "(START BACKUP). 0 when the cluster has never been backed up.",
            "none",
            q(f"max({sel('ndb_backup_last_id')})", "backup id"),
            min_value=0,
            width=6,
        ),
        stat_panel(
            "NDB versions running",
            "Distinct NDB versions of the connected data and management nodes "
            "(ndbinfo.processes). More than one is normal only during a rolling upgrade; "
            "NdbVersionSkew warns when it lasts.",
            "none",
            q(f"count(count by (node_version) ({info}))", instant=True),
            steps=thresholds((None, "green"), (skew + 1, "orange")),
            width=3,
            height=8,
        ),
        matrix_table(
            "Versions",
            "Connected data and management nodes by NDB version (ndbinfo.processes), one "
            "column per node type.",
            q(
                f"count by (node_type, node_version) (max by (node_type, node_id, node_version) ({info}))",
                table=True,
            ),
            rows="node_version",
            columns="node_type",
            width=3,
        ),
        joined_table(
            "TLS certificates",
            "Each node's TLS certificate (ndbinfo.certificates, NDB 8.3+): name and serial, "
            "the ones that expire first (the Overview shows the time left).",
            ["node_id", "name", "serial"],
            [
                (
                    "expires",
                    q(
                        bottom(
                            "max by (node_id, name, serial) "
                            f"({sel('ndb_tls_certificate_expiry_timestamp_seconds')} * on (node_id) group_left (name, serial) "
                            f"max by (node_id, name, serial) ({sel('ndb_tls_certificate_info')})) * 1000",
                            20,
                        ),
                        table=True,
                    ),
                    "dateTimeAsIso",
                ),
            ],
            sort_by=("expires", False),
            width=6,
        ),
    )


def board() -> Board:
    layout = Layout(
        UID,
        "NDB Cluster / Configuration",
        "Data node configuration as the data nodes report it: non-default and inconsistent "
        "parameters and the key sizing parameters per node.",
        node_filter=True,
    )
    _summary_row(layout)
    _difference_row(layout)
    _key_parameter_row(layout)
    _backup_and_version_row(layout)
    return layout.build()
