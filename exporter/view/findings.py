"""Tuning findings: checks from the NDB performance tuning guide over what a scrape collected.

Every finding carries the measured evidence, the PromQL expression that performs the same
check over the exporter's metrics (for an alert or a dashboard) and the SQL the evidence
comes from, so an operator can verify it by hand.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ndbinfo_exporter.view.models import ClusterView, ConfigView, Evidence, Finding
from ndbinfo_exporter.view.placement import Placement
from ndbinfo_exporter.view.samples import Samples

DATA_MEMORY_WARNING = 0.8
DATA_MEMORY_CRITICAL = 0.9
REDO_WARNING = 0.7
REDO_CRITICAL = 0.9
PRUNED_SCAN_RATIO_LOW = 0.5
ROUND_TRIPS_PER_COMMIT_HIGH = 4.0
PRIMARY_SPREAD_HIGH = 0.2  # (max - min) / max of the primaries within one node group
LCP_AGE_GCIS_HIGH = 900  # 30 minutes at the default TimeBetweenGlobalCheckpoints of 2 s
MIN_SCANS = 20  # fewer scans than this in the window say nothing about pruning
MIN_COMMITS = 20
NAMES_SHOWN = 20
SEND_BUFFER_WARNING = 0.8
SEND_BUFFER_CRITICAL = 0.95
TABLESPACE_WARNING = 0.8
TABLESPACE_CRITICAL = 0.9

ORDER = {"problem": 0, "ok": 1, "no_data": 2}
SEVERITY = {"critical": 0, "warning": 1, "info": 2}


@dataclass(frozen=True)
class Inputs:
    cluster: ClusterView
    samples: Samples
    config: ConfigView
    placement: Placement | None


def percent(value: float | None) -> str:
    return "n/a" if value is None else f"{value * 100:.1f} %"


def count(value: float | None) -> str:
    return "n/a" if value is None else f"{value:,.0f}"


def _window(inputs: Inputs) -> str:
    efficiency = inputs.cluster.sql_efficiency
    if efficiency.basis == "two scrapes" and efficiency.window_seconds is not None:
        return f"between the last two scrapes ({efficiency.window_seconds:.0f} s apart)"
    return "since the SQL node started (a second scrape gives a recent window)"


def read_backup(inputs: Inputs) -> Finding:
    base = {
        "id": "read_backup_off",
        "title": "Tables without READ_BACKUP",
        "severity": "warning",
        "promql": 'sum(ndb_user_tables{read_backup="0",fully_replicated="0"})',
        "sql": (
            "SELECT o.fq_name FROM ndbinfo.table_info t\n"
            "JOIN ndbinfo.dict_obj_info o ON o.id = t.table_id AND o.type = 2\n"
            "WHERE t.read_backup = 0 AND t.fully_replicated = 0"
        ),
        "guide": "4.1 Access patterns (Zugriffsmuster): minimise network hops",
        "advice": (
            "Committed reads of these tables always go to the primary replica, usually on "
            "another host. With READ_BACKUP a SQL node next to a data node reads its local "
            'replica: ALTER TABLE t COMMENT="NDB_TABLE=READ_BACKUP=1" (ndb_read_backup=ON '
            "makes it the default for new tables)."
        ),
    }
    without = inputs.samples.total("ndb_user_tables", read_backup="0", fully_replicated="0")
    total = inputs.samples.total("ndb_user_tables")
    if total is None:
        return Finding(status="no_data", summary="The table_info collector gave no data.", **base)
    evidence = [
        Evidence(label="user tables", value=count(total)),
        Evidence(label="without READ_BACKUP (not fully replicated)", value=count(without or 0)),
    ]
    if inputs.placement is not None:
        names = [f"{t.db}.{t.table}" for t in inputs.placement.tables_without_read_backup()]
        shown = ", ".join(names[:NAMES_SHOWN])
        more = f" and {len(names) - NAMES_SHOWN} more" if len(names) > NAMES_SHOWN else ""
        if names:
            evidence.append(Evidence(label="tables", value=shown + more))
    if not without:
        return Finding(
            status="ok",
            summary="Every user table reads from backup replicas.",
            evidence=evidence,
            **base,
        )
    return Finding(
        status="problem",
        summary=f"{count(without)} of {count(total)} user tables read only from the primary replica.",
        evidence=evidence,
        **base,
    )


def pruning(inputs: Inputs) -> Finding:
    efficiency = inputs.cluster.sql_efficiency
    base = {
        "id": "low_partition_pruning",
        "title": "Low partition-pruning ratio",
        "severity": "warning",
        "promql": (
            "sum(rate(ndb_sql_api_pruned_scans_total[5m]))\n  / sum(rate(ndb_sql_api_scans_total[5m]))"
        ),
        "sql": (
            "SHOW GLOBAL STATUS LIKE 'Ndb_api_%scan_count';  -- twice, then\n"
            "-- Δ Ndb_api_pruned_scan_count / (Δ Ndb_api_table_scan_count + Δ Ndb_api_range_scan_count)"
        ),
        "guide": "4.2 Distribution-aware applications (Verteilungsfähige Anwendungen)",
        "advice": (
            "Scans that are not pruned visit every data node. Partition tables by the key the "
            "application reads together (PARTITION BY KEY (sub_id)) and give the whole partition "
            "key in the WHERE clause; EXPLAIN PARTITIONS shows whether one partition is read."
        ),
    }
    if (
        efficiency.scans is None
        or efficiency.pruned_scan_ratio is None
        or efficiency.scans < MIN_SCANS
    ):
        return Finding(
            status="no_data", summary=f"Fewer than {MIN_SCANS} scans {_window(inputs)}.", **base
        )
    evidence = [
        Evidence(label="scans", value=count(efficiency.scans)),
        Evidence(label="pruned to one partition", value=count(efficiency.pruned_scans)),
        Evidence(label="pruned ratio", value=percent(efficiency.pruned_scan_ratio)),
        Evidence(label="measured", value=_window(inputs)),
    ]
    low = efficiency.pruned_scan_ratio < PRUNED_SCAN_RATIO_LOW
    return Finding(
        status="problem" if low else "ok",
        summary=f"{percent(efficiency.pruned_scan_ratio)} of the scans were pruned to one partition "
        f"(threshold {percent(PRUNED_SCAN_RATIO_LOW)}).",
        evidence=evidence,
        **base,
    )


def round_trips(inputs: Inputs) -> Finding:
    efficiency = inputs.cluster.sql_efficiency
    base = {
        "id": "many_round_trips",
        "title": "Many round trips per transaction",
        "severity": "warning",
        "promql": (
            "rate(ndb_sql_api_round_trips_total[5m])\n  / rate(ndb_sql_api_transactions_committed_total[5m])"
        ),
        "sql": (
            "SHOW GLOBAL STATUS WHERE Variable_name IN\n"
            "  ('Ndb_api_wait_exec_complete_count', 'Ndb_api_trans_commit_count');  -- twice, then Δ / Δ"
        ),
        "guide": "4.3 Batching (Stapelverarbeitung); 4.5 Query optimisation (Abfrageoptimierung)",
        "advice": (
            "Each round trip waits for the data nodes. Batch: multi-row INSERT, IN (...) lists "
            "instead of repeated single-row SELECTs, transaction_allow_batching for multi-table "
            "writes, fewer nested-loop join levels."
        ),
    }
    per_commit = efficiency.round_trips_per_commit
    if per_commit is None or efficiency.commits is None or efficiency.commits < MIN_COMMITS:
        return Finding(
            status="no_data",
            summary=f"Fewer than {MIN_COMMITS} committed transactions {_window(inputs)}.",
            **base,
        )
    evidence = [
        Evidence(label="round trips", value=count(efficiency.round_trips)),
        Evidence(label="committed transactions", value=count(efficiency.commits)),
        Evidence(label="round trips per commit", value=f"{per_commit:.2f}"),
        Evidence(
            label="key operations per round trip",
            value="n/a"
            if efficiency.key_operations_per_round_trip is None
            else f"{efficiency.key_operations_per_round_trip:.2f}",
        ),
        Evidence(label="measured", value=_window(inputs)),
    ]
    return Finding(
        status="problem" if per_commit > ROUND_TRIPS_PER_COMMIT_HIGH else "ok",
        summary=f"{per_commit:.2f} round trips to the data nodes per committed transaction "
        f"(threshold {ROUND_TRIPS_PER_COMMIT_HIGH:g}).",
        evidence=evidence,
        **base,
    )


def unbalanced_primaries(inputs: Inputs) -> Finding:
    base = {
        "id": "unbalanced_primaries",
        "title": "Primary replicas unbalanced within a node group",
        "severity": "warning",
        "promql": (
            "max by (nodegroup) (ndb_fragment_primaries * on (node_id) group_left (nodegroup) ndb_data_node_nodegroup)\n"
            "  - min by (nodegroup) (ndb_fragment_primaries * on (node_id) group_left (nodegroup) ndb_data_node_nodegroup)\n"
            "# and: sum(ndb_fragments_not_on_preferred_primary) > 0"
        ),
        "sql": (
            "SELECT current_primary, COUNT(*) AS primaries,\n"
            "  SUM(current_primary <> preferred_primary) AS not_preferred\n"
            "FROM ndbinfo.table_fragments WHERE node_id = <one running data node>\n"
            "GROUP BY current_primary"
        ),
        "guide": "4.1 Access patterns (Zugriffsmuster): each data node holds the primary of some partitions",
        "advice": (
            "The primary replica serves the reads and coordinates the writes of its fragment, so a "
            "node with more primaries carries more load. Primaries move to the survivor when a node "
            "fails; after its restart check ndb_fragments_not_on_preferred_primary."
        ),
    }
    primaries = inputs.samples.by_node("ndb_fragment_primaries")
    if not primaries:
        return Finding(status="no_data", summary="The fragments collector gave no data.", **base)
    evidence, unbalanced = [], []
    for group in inputs.cluster.topology.node_groups:
        if group.running < len(group.nodes) or len(group.nodes) < 2:
            continue  # a stopped node's primaries are on its partners: see dead replicas
        counts = {node.node_id: int(primaries.get(node.node_id, 0)) for node in group.nodes}
        most = max(counts.values())
        spread = (most - min(counts.values())) / most if most else 0.0
        evidence.append(
            Evidence(
                label=f"node group {group.nodegroup}",
                value=", ".join(f"node {n}: {c}" for n, c in counts.items())
                + f" (spread {percent(spread)})",
            )
        )
        if spread > PRIMARY_SPREAD_HIGH:
            unbalanced.append(group.nodegroup)
    not_preferred = inputs.samples.total("ndb_fragments_not_on_preferred_primary")
    if not_preferred is not None:
        evidence.append(
            Evidence(label="fragments not on their preferred primary", value=count(not_preferred))
        )
    if not evidence:
        return Finding(
            status="no_data", summary="No node group with all of its data nodes running.", **base
        )
    if unbalanced:
        groups = ", ".join(str(g) for g in unbalanced)
        return Finding(
            status="problem",
            summary=f"Primaries differ by more than {percent(PRIMARY_SPREAD_HIGH)} within node group(s) {groups}.",
            evidence=evidence,
            **base,
        )
    return Finding(
        status="ok",
        summary="Primaries are spread evenly within every complete node group.",
        evidence=evidence,
        **base,
    )


def inconsistent_config(inputs: Inputs) -> Finding:
    base = {
        "id": "config_inconsistent",
        "title": "Parameters that differ between data nodes",
        "severity": "warning",
        "promql": "ndb_config_inconsistent == 1",
        "sql": (
            "SELECT p.param_name, v.node_id, v.config_value\n"
            "FROM ndbinfo.config_values v JOIN ndbinfo.config_params p ON p.param_number = v.config_param\n"
            "ORDER BY p.param_name, v.node_id"
        ),
        "guide": "4.6 Parameter tuning (Parameteroptimierung)",
        "advice": (
            "Data nodes of one cluster should run with the same settings ([ndbd default] in "
            "config.ini); a differing value usually means an incomplete rolling restart."
        ),
    }
    if not inputs.samples.has("ndb_config_inconsistent_params"):
        return Finding(status="no_data", summary="The config collector gave no data.", **base)
    bad = [p for p in inputs.config.params if p.inconsistent]
    evidence = [
        Evidence(label=p.param, value=", ".join(f"node {v.node_id}: {v.value:g}" for v in p.values))
        for p in bad
    ]
    if not bad:
        return Finding(
            status="ok", summary="Every data node runs with the same parameters.", **base
        )
    return Finding(
        status="problem",
        summary=f"{len(bad)} parameter(s) differ between data nodes.",
        evidence=evidence,
        **base,
    )


def data_memory(inputs: Inputs) -> Finding:
    base = {
        "id": "data_memory_full",
        "title": "DataMemory nearly full",
        "severity": "warning",
        "promql": (
            'ndb_memory_used_bytes{memory_type="Data memory"}\n'
            '  / ndb_memory_total_bytes{memory_type="Data memory"} > 0.8'
        ),
        "sql": "SELECT node_id, used, total FROM ndbinfo.memoryusage WHERE memory_type = 'Data memory'",
        "guide": "4.4 Schema optimisation (Schemaoptimierungen): efficient column types",
        "advice": (
            "Inserts fail with 'table is full' when DataMemory runs out. Raise DataMemory (rolling "
            "restart), remove data, use smaller column types or disk data for cold columns."
        ),
    }
    ratios = {
        r.node_id: r.data_memory_ratio
        for r in inputs.cluster.resources
        if r.data_memory_ratio is not None
    }
    return _fullest_node(
        base,
        ratios,
        collector="memoryusage",
        label="node {node}",
        ok="Fullest node uses {worst} of DataMemory.",
        problem="A data node uses {worst} of its DataMemory.",
        thresholds=(DATA_MEMORY_WARNING, DATA_MEMORY_CRITICAL),
    )


def redo(inputs: Inputs) -> Finding:
    base = {
        "id": "redo_log_full",
        "title": "REDO log filling up",
        "severity": "warning",
        "promql": 'ndb_log_space_used_bytes{log_type="REDO"} / ndb_log_space_total_bytes{log_type="REDO"} > 0.7',
        "sql": "SELECT node_id, log_id, log_part, used, total FROM ndbinfo.logspaces WHERE log_type = 'REDO'",
        "guide": "4.6 Parameter tuning (Parameteroptimierung)",
        "advice": (
            "A full REDO log part makes the cluster reject writes (error 410). Check that LCPs "
            "complete; size NoOfFragmentLogFiles × FragmentLogFileSize for the write rate."
        ),
    }
    ratios = {
        r.node_id: r.redo_worst_part_ratio
        for r in inputs.cluster.resources
        if r.redo_worst_part_ratio is not None
    }
    return _fullest_node(
        base,
        ratios,
        collector="logspaces",
        label="node {node}, fullest part",
        ok="Fullest REDO log part is at {worst}.",
        problem="A REDO log part is {worst} full.",
        thresholds=(REDO_WARNING, REDO_CRITICAL),
    )


def _fullest_node(
    base: dict,
    ratios: dict[int, float] | dict[str, float],
    collector: str,
    label: str,
    ok: str,
    problem: str,
    thresholds: tuple[float, float],
) -> Finding:
    """A finding on a used/total ratio per data node (or tablespace): every one is evidence,
    the fullest decides (warning above the first threshold, critical above the second)."""
    if not ratios:
        return Finding(status="no_data", summary=f"The {collector} collector gave no data.", **base)
    evidence = [
        Evidence(label=label.format(node=node), value=percent(value))
        for node, value in sorted(ratios.items())
    ]
    worst = max(ratios.values())
    warning, critical = thresholds
    if worst <= warning:
        return Finding(
            status="ok", summary=ok.format(worst=percent(worst)), evidence=evidence, **base
        )
    base["severity"] = "critical" if worst > critical else "warning"
    return Finding(
        status="problem",
        summary=problem.format(worst=percent(worst)),
        evidence=evidence,
        **base,
    )


def lcp_age(inputs: Inputs) -> Finding:
    lcp = inputs.cluster.lcp
    base = {
        "id": "lcp_old",
        "title": "Local checkpoint not completed for long",
        "severity": "warning",
        "promql": "floor(ndb_sql_last_commit_epoch / 2^32) - ndb_lcp_completed_gci > 900",
        "sql": (
            "SELECT MAX(last_lcp_id), MAX(last_max_gci_completed) FROM ndbinfo.table_replicas\n"
            "WHERE node_id = <one running data node> AND is_replica_alive = 1;\n"
            "SHOW GLOBAL STATUS LIKE 'Ndb_last_commit_epoch_server';  -- GCI = epoch >> 32"
        ),
        "guide": "4.6 Parameter tuning (Parameteroptimierung)",
        "advice": (
            "The REDO log can only be trimmed up to the last completed LCP. A stalled LCP fills "
            "the REDO log; check disk write speed (MaxDiskWriteSpeed) and the cluster log."
        ),
    }
    if lcp.age_gcis is None:
        return Finding(status="no_data", summary="LCP or epoch data missing.", **base)
    evidence = [
        Evidence(label="LCP id", value=count(lcp.lcp_id)),
        Evidence(label="last LCP completed at GCI", value=count(lcp.completed_gci)),
        Evidence(label="current GCI", value=count(lcp.current_gci)),
        Evidence(label="age in GCIs", value=count(lcp.age_gcis)),
    ]
    if lcp.age_seconds is not None:
        evidence.append(Evidence(label="age (estimate)", value=f"{lcp.age_seconds:,.0f} s"))
    old = lcp.age_gcis > LCP_AGE_GCIS_HIGH
    return Finding(
        status="problem" if old else "ok",
        summary=f"The last LCP completed {lcp.age_gcis:,} GCIs ago (threshold {LCP_AGE_GCIS_HIGH}).",
        evidence=evidence,
        **base,
    )


def dead_replicas(inputs: Inputs) -> Finding:
    base = {
        "id": "dead_replicas",
        "title": "Fragments with dead replicas",
        "severity": "critical",
        "promql": "ndb_fragments_with_dead_replicas > 0",
        "sql": (
            "SELECT table_id, fragment_id, num_dead_replicas FROM ndbinfo.table_fragments\n"
            "WHERE node_id = <one running data node> AND num_dead_replicas > 0"
        ),
        "guide": "Availability (outside the tuning guide): every node group needs a running node",
        "advice": (
            "These fragments run without redundancy: one more failure in the same node group "
            "shuts the cluster down. Start the stopped data node; it copies the fragments back."
        ),
    }
    fragments = inputs.samples.value("ndb_fragments_with_dead_replicas")
    stopped = [
        node.node_id
        for group in inputs.cluster.topology.node_groups
        for node in group.nodes
        if not node.running
    ] + [node.node_id for node in inputs.cluster.topology.unassigned_data_nodes if not node.running]
    if fragments is None and not stopped:
        return Finding(status="no_data", summary="The fragments collector gave no data.", **base)
    evidence = [Evidence(label="fragments with dead replicas", value=count(fragments))]
    if stopped:
        evidence.append(
            Evidence(label="stopped data nodes", value=", ".join(str(n) for n in sorted(stopped)))
        )
    for group in inputs.cluster.topology.node_groups:
        if group.running < len(group.nodes):
            evidence.append(
                Evidence(
                    label=f"node group {group.nodegroup}",
                    value=f"{group.running} of {len(group.nodes)} running",
                )
            )
    if inputs.placement is not None:
        affected = [t for t in inputs.placement.tables if t.dead_replicas]
        evidence.append(Evidence(label="tables affected", value=count(len(affected))))
    if not fragments and not stopped:
        return Finding(
            status="ok",
            summary="Every fragment has all its replicas alive.",
            evidence=evidence,
            **base,
        )
    return Finding(
        status="problem",
        summary=f"{count(fragments)} fragments have dead replicas"
        + (
            f"; data node(s) {', '.join(str(n) for n in sorted(stopped))} stopped."
            if stopped
            else "."
        ),
        evidence=evidence,
        **base,
    )


def send_buffers(inputs: Inputs) -> Finding:
    base = {
        "id": "send_buffers_full",
        "title": "Send buffer memory nearly used up",
        "severity": "warning",
        "promql": "ndb_send_buffer_allocated_bytes / ndb_send_buffer_limit_bytes > 0.8",
        "sql": (
            "SELECT node_id, SUM(sendbuffer_alloc_bytes) FROM ndbinfo.transporter_details\n"
            "GROUP BY node_id;\n"
            "SELECT node_id, max * 32768 FROM ndbinfo.resources\n"
            "WHERE resource_name = 'TRANSPORTER_BUFFERS'"
        ),
        "guide": "4.6 Parameter tuning (Parameteroptimierung)",
        "advice": (
            "When a data node's send buffer memory runs out its links overload and transactions "
            "abort with error 1218. Find the slow receiver (ndbinfo.transporter_details by "
            "link), add send threads, or raise TotalSendBufferMemory / SendBufferMemory."
        ),
    }
    allocated = inputs.samples.by_node("ndb_send_buffer_allocated_bytes")
    limits = inputs.samples.by_node("ndb_send_buffer_limit_bytes")
    ratios = {n: allocated[n] / limits[n] for n in allocated if limits.get(n)}
    return _fullest_node(
        base,
        ratios,
        collector="send_buffers",
        label="node {node}",
        ok="The fullest data node holds {worst} of its send buffer memory.",
        problem="A data node holds {worst} of its send buffer memory.",
        thresholds=(SEND_BUFFER_WARNING, SEND_BUFFER_CRITICAL),
    )


def tablespace(inputs: Inputs) -> Finding:
    base = {
        "id": "tablespace_full",
        "title": "Disk data tablespace filling up",
        "severity": "warning",
        "promql": (
            '1 - sum by (filegroup) (ndb_disk_data_file_free_bytes{type="DATAFILE"})\n'
            '  / sum by (filegroup) (ndb_disk_data_file_size_bytes{type="DATAFILE"}) > 0.8'
        ),
        "sql": (
            "SELECT TABLESPACE_NAME, FILE_NAME, FREE_EXTENTS, TOTAL_EXTENTS, EXTENT_SIZE\n"
            "FROM information_schema.FILES\n"
            "WHERE ENGINE = 'ndbcluster' AND FILE_TYPE = 'DATAFILE'"
        ),
        "guide": "4.4 Schema optimisation (Schemaoptimierungen): disk data for cold columns",
        "advice": (
            "Inserts into disk data tables fail with error 1601 once no extent is free, and "
            "deleted rows do not give extents back. Add a data file in time: ALTER TABLESPACE "
            "ts ADD DATAFILE 'data_2.dat' INITIAL_SIZE 1G."
        ),
    }
    free = inputs.samples.by("ndb_disk_data_file_free_bytes", "filegroup", type="DATAFILE")
    size = inputs.samples.by("ndb_disk_data_file_size_bytes", "filegroup", type="DATAFILE")
    used = {group: 1 - free.get(group, 0.0) / total for group, total in size.items() if total}
    return _fullest_node(
        base,
        used,
        collector="disk_data",
        label="tablespace {node}",
        ok="The fullest tablespace is {worst} used.",
        problem="A tablespace is {worst} used.",
        thresholds=(TABLESPACE_WARNING, TABLESPACE_CRITICAL),
    )


CHECKS: tuple[Callable[[Inputs], Finding], ...] = (
    dead_replicas,
    data_memory,
    redo,
    lcp_age,
    read_backup,
    pruning,
    round_trips,
    unbalanced_primaries,
    inconsistent_config,
    send_buffers,
    tablespace,
)


def evaluate(inputs: Inputs) -> list[Finding]:
    """Every check, problems first (most severe first), then ok, then no data."""
    findings = [check(inputs) for check in CHECKS]
    return sorted(findings, key=lambda f: (ORDER[f.status], SEVERITY[f.severity]))
