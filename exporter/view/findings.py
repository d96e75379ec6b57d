"""Tuning findings: checks from the NDB performance tuning guide over what a scrape collected.

Every finding carries the measured evidence, the PromQL expression that performs the same
check over the exporter's metrics (for an alert or a dashboard) and the SQL the evidence
comes from, so an operator can verify it by hand.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ndbinfo_exporter.view import thresholds
from ndbinfo_exporter.view.finding_spec import FindingSpec
from ndbinfo_exporter.view.models import ClusterView, ConfigView, Evidence, Finding
from ndbinfo_exporter.view.performance_findings import PERFORMANCE_CHECKS
from ndbinfo_exporter.view.placement import Placement
from ndbinfo_exporter.view.samples import Samples

NAMES_SHOWN = 20

ORDER = {"problem": 0, "unknown": 1, "ok": 2}
SEVERITY = {"critical": 0, "warning": 1, "info": 2}


@dataclass(frozen=True)
class Inputs:
    cluster: ClusterView
    samples: Samples
    config: ConfigView
    placement: Placement | None
    previous: Samples | None = None  # the scrape before, for counter increases


def percent(value: float | None) -> str:
    return "n/a" if value is None else f"{value * 100:.1f} %"


def count(value: float | None) -> str:
    return "n/a" if value is None else f"{value:,.0f}"


def _and(items: list) -> str:
    """1 / 1 and 2 / 1, 2 and 3"""
    words = [str(item) for item in items]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def _nodes(ids: list[int]) -> str:
    """data node 2 / data nodes 1 and 2: an id never reads like a count."""
    return f"data node{'s' if len(ids) > 1 else ''} {_and(ids)}"


def _window(inputs: Inputs) -> str:
    efficiency = inputs.cluster.sql_efficiency
    if efficiency.basis == "two scrapes" and efficiency.window_seconds is not None:
        return f"between the last two scrapes ({efficiency.window_seconds:.0f} s apart)"
    return "since the SQL node started (a second scrape gives a recent window)"


def read_backup(inputs: Inputs) -> Finding:
    spec = FindingSpec(
        id="read_backup_off",
        title="Tables without READ_BACKUP",
        severity="warning",
        promql='sum(ndb_user_tables{read_backup="0",fully_replicated="0"})',
        sql=(
            "SELECT o.fq_name FROM ndbinfo.table_info t\n"
            "JOIN ndbinfo.dict_obj_info o ON o.id = t.table_id AND o.type = 2\n"
            "WHERE t.read_backup = 0 AND t.fully_replicated = 0"
        ),
        guide="4.1 Access patterns (Zugriffsmuster): minimise network hops",
        advice=(
            "Committed reads of these tables always go to the primary replica, usually on "
            "another host. With READ_BACKUP a SQL node next to a data node reads its local "
            'replica: ALTER TABLE t COMMENT="NDB_TABLE=READ_BACKUP=1" (ndb_read_backup=ON '
            "makes it the default for new tables)."
        ),
    )
    without = inputs.samples.total("ndb_user_tables", read_backup="0", fully_replicated="0")
    total = inputs.samples.total("ndb_user_tables")
    if total is None:
        return spec.no_data("table_info")
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
        return spec.finding("ok", "Every user table reads from backup replicas.", evidence)
    return spec.finding(
        "problem",
        f"{count(without)} of {count(total)} user tables read only from the primary replica.",
        evidence,
    )


def pruning(inputs: Inputs) -> Finding:
    efficiency = inputs.cluster.sql_efficiency
    spec = FindingSpec(
        id="low_partition_pruning",
        title="Low partition-pruning ratio",
        severity="warning",
        promql=(
            "sum(rate(ndb_sql_api_pruned_scans_total[5m]))\n  / sum(rate(ndb_sql_api_scans_total[5m]))"
        ),
        sql=(
            "SHOW GLOBAL STATUS LIKE 'Ndb_api_%scan_count';  -- twice, then\n"
            "-- Δ Ndb_api_pruned_scan_count / (Δ Ndb_api_table_scan_count + Δ Ndb_api_range_scan_count)"
        ),
        guide="4.2 Distribution-aware applications (Verteilungsfähige Anwendungen)",
        advice=(
            "Scans that are not pruned visit every data node. Partition tables by the key the "
            "application reads together (PARTITION BY KEY (sub_id)) and give the whole partition "
            "key in the WHERE clause; EXPLAIN PARTITIONS shows whether one partition is read."
        ),
    )
    if (
        efficiency.scans is None
        or efficiency.pruned_scan_ratio is None
        or efficiency.scans < thresholds.MIN_SCANS
    ):
        return spec.finding(
            "unknown", f"Fewer than {thresholds.MIN_SCANS} scans {_window(inputs)}."
        )
    evidence = [
        Evidence(label="scans", value=count(efficiency.scans)),
        Evidence(label="pruned to one partition", value=count(efficiency.pruned_scans)),
        Evidence(label="pruned ratio", value=percent(efficiency.pruned_scan_ratio)),
        Evidence(label="measured", value=_window(inputs)),
    ]
    low = efficiency.pruned_scan_ratio < thresholds.PRUNED_SCAN_RATIO_LOW
    return spec.finding(
        "problem" if low else "ok",
        f"{percent(efficiency.pruned_scan_ratio)} of the scans were pruned to one partition "
        f"(threshold {percent(thresholds.PRUNED_SCAN_RATIO_LOW)}).",
        evidence,
    )


def round_trips(inputs: Inputs) -> Finding:
    efficiency = inputs.cluster.sql_efficiency
    spec = FindingSpec(
        id="many_round_trips",
        title="Many round trips per transaction",
        severity="warning",
        promql=(
            "rate(ndb_sql_api_round_trips_total[5m])\n  / rate(ndb_sql_api_transactions_committed_total[5m])"
        ),
        sql=(
            "SHOW GLOBAL STATUS WHERE Variable_name IN\n"
            "  ('Ndb_api_wait_exec_complete_count', 'Ndb_api_trans_commit_count');  -- twice, then Δ / Δ"
        ),
        guide="4.3 Batching (Stapelverarbeitung); 4.5 Query optimisation (Abfrageoptimierung)",
        advice=(
            "Each round trip waits for the data nodes. Batch: multi-row INSERT, IN (...) lists "
            "instead of repeated single-row SELECTs, transaction_allow_batching for multi-table "
            "writes, fewer nested-loop join levels."
        ),
    )
    per_commit = efficiency.round_trips_per_commit
    if (
        per_commit is None
        or efficiency.commits is None
        or efficiency.commits < thresholds.MIN_COMMITS
    ):
        return spec.finding(
            "unknown",
            f"Fewer than {thresholds.MIN_COMMITS} committed transactions {_window(inputs)}.",
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
    return spec.finding(
        "problem" if per_commit > thresholds.ROUND_TRIPS_PER_COMMIT_HIGH else "ok",
        f"{per_commit:.2f} round trips to the data nodes per committed transaction "
        f"(threshold {thresholds.ROUND_TRIPS_PER_COMMIT_HIGH:g}).",
        evidence,
    )


def unbalanced_primaries(inputs: Inputs) -> Finding:
    spec = FindingSpec(
        id="unbalanced_primaries",
        title="Primary replicas unbalanced within a node group",
        severity="warning",
        promql=(
            "max by (nodegroup) (ndb_fragment_primaries * on (node_id) group_left (nodegroup) ndb_data_node_nodegroup)\n"
            "  - min by (nodegroup) (ndb_fragment_primaries * on (node_id) group_left (nodegroup) ndb_data_node_nodegroup)\n"
            "# and: sum(ndb_fragments_not_on_preferred_primary) > 0"
        ),
        sql=(
            "SELECT current_primary, COUNT(*) AS primaries,\n"
            "  SUM(current_primary <> preferred_primary) AS not_preferred\n"
            "FROM ndbinfo.table_fragments WHERE node_id = <one running data node>\n"
            "GROUP BY current_primary"
        ),
        guide="4.1 Access patterns (Zugriffsmuster): each data node holds the primary of some partitions",
        advice=(
            "The primary replica serves the reads and coordinates the writes of its fragment, so a "
            "node with more primaries carries more load. Primaries move to the survivor when a node "
            "fails; after its restart check ndb_fragments_not_on_preferred_primary."
        ),
    )
    primaries = inputs.samples.by_node("ndb_fragment_primaries")
    if not primaries:
        return spec.no_data("fragments")
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
        if spread > thresholds.PRIMARY_SPREAD_HIGH:
            unbalanced.append(group.nodegroup)
    not_preferred = inputs.samples.total("ndb_fragments_not_on_preferred_primary")
    if not_preferred is not None:
        evidence.append(
            Evidence(label="fragments not on their preferred primary", value=count(not_preferred))
        )
    if not evidence:
        return spec.finding("unknown", "No node group with all of its data nodes running.")
    if unbalanced:
        groups = ", ".join(str(g) for g in unbalanced)
        return spec.finding(
            "problem",
            f"Primaries differ by more than {percent(thresholds.PRIMARY_SPREAD_HIGH)} within node group(s) {groups}.",
            evidence,
        )
    return spec.finding(
        "ok", "Primaries are spread evenly within every complete node group.", evidence
    )


def inconsistent_config(inputs: Inputs) -> Finding:
    spec = FindingSpec(
        id="config_inconsistent",
        title="Parameters that differ between data nodes",
        severity="warning",
        promql="ndb_config_inconsistent == 1",
        sql=(
            "SELECT p.param_name, v.node_id, v.config_value\n"
            "FROM ndbinfo.config_values v JOIN ndbinfo.config_params p ON p.param_number = v.config_param\n"
            "ORDER BY p.param_name, v.node_id"
        ),
        guide="4.6 Parameter tuning (Parameteroptimierung)",
        advice=(
            "Data nodes of one cluster should run with the same settings ([ndbd default] in "
            "config.ini); a differing value usually means an incomplete rolling restart."
        ),
    )
    if not inputs.samples.has("ndb_config_inconsistent_params"):
        return spec.no_data("config")
    bad = [p for p in inputs.config.params if p.inconsistent]
    evidence = [
        Evidence(label=p.param, value=", ".join(f"node {v.node_id}: {v.value:g}" for v in p.values))
        for p in bad
    ]
    if not bad:
        return spec.finding("ok", "Every data node runs with the same parameters.")
    return spec.finding("problem", f"{len(bad)} parameter(s) differ between data nodes.", evidence)


def data_memory(inputs: Inputs) -> Finding:
    spec = FindingSpec(
        id="data_memory_full",
        title="DataMemory nearly full",
        severity="warning",
        promql=(
            'ndb_memory_used_bytes{memory_type="Data memory"}\n'
            f'  / ndb_memory_total_bytes{{memory_type="Data memory"}} > {thresholds.DATA_MEMORY_WARNING}'
        ),
        sql="SELECT node_id, used, total FROM ndbinfo.memoryusage WHERE memory_type = 'Data memory'",
        guide="4.4 Schema optimisation (Schemaoptimierungen): efficient column types",
        advice=(
            "Inserts fail with 'table is full' when DataMemory runs out. Raise DataMemory (rolling "
            "restart), remove data, use smaller column types or disk data for cold columns."
        ),
    )
    ratios = {
        r.node_id: r.data_memory_ratio
        for r in inputs.cluster.resources
        if r.data_memory_ratio is not None
    }
    return _fullest_node(
        spec,
        ratios,
        collector="memoryusage",
        label="node {node}",
        ok="Fullest node uses {worst} of DataMemory.",
        problem=(
            "Data node {nodes} uses {worst} of its DataMemory.",
            "Data nodes {nodes} use up to {worst} of their DataMemory.",
        ),
        limits=(thresholds.DATA_MEMORY_WARNING, thresholds.DATA_MEMORY_CRITICAL),
    )


def redo(inputs: Inputs) -> Finding:
    spec = FindingSpec(
        id="redo_log_full",
        title="REDO log filling up",
        severity="warning",
        promql=(
            'ndb_log_space_used_bytes{log_type="REDO"}\n'
            f'  / ndb_log_space_total_bytes{{log_type="REDO"}} > {thresholds.REDO_WARNING}'
        ),
        sql="SELECT node_id, log_id, log_part, used, total FROM ndbinfo.logspaces WHERE log_type = 'REDO'",
        guide="4.6 Parameter tuning (Parameteroptimierung)",
        advice=(
            "A full REDO log part makes the cluster reject writes (error 410). Check that LCPs "
            "complete; size NoOfFragmentLogFiles × FragmentLogFileSize for the write rate."
        ),
    )
    ratios = {
        r.node_id: r.redo_worst_part_ratio
        for r in inputs.cluster.resources
        if r.redo_worst_part_ratio is not None
    }
    return _fullest_node(
        spec,
        ratios,
        collector="logspaces",
        label="node {node}, fullest part",
        ok="Fullest REDO log part is at {worst}.",
        problem=(
            "A REDO log part of data node {nodes} is {worst} full.",
            "REDO log parts of data nodes {nodes} are up to {worst} full.",
        ),
        limits=(thresholds.REDO_WARNING, thresholds.REDO_CRITICAL),
    )


def _fullest_node(
    spec: FindingSpec,
    ratios: dict[int, float] | dict[str, float],
    collector: str,
    label: str,
    ok: str,
    problem: tuple[str, str],
    limits: tuple[float, float],
) -> Finding:
    """A finding on a used/total ratio per data node: every node is evidence, the fullest one
    decides (warning above the first threshold, critical above the second); the summary names
    every node above the first (``problem`` holds the sentence for one node and for several)."""
    if not ratios:
        return spec.no_data(collector)
    evidence = [
        Evidence(label=label.format(node=node), value=percent(value))
        for node, value in sorted(ratios.items())
    ]
    worst = max(ratios.values())
    warning, critical = limits
    if worst <= warning:
        return spec.finding("ok", ok.format(worst=percent(worst)), evidence)
    over = sorted(node for node, value in ratios.items() if value > warning)
    sentence = problem[0] if len(over) == 1 else problem[1]
    return spec.finding(
        "problem",
        sentence.format(nodes=_and(over), worst=percent(worst)),
        evidence,
        severity="critical" if worst > critical else "warning",
    )


def lcp_age(inputs: Inputs) -> Finding:
    lcp = inputs.cluster.lcp
    spec = FindingSpec(
        id="lcp_old",
        title="Local checkpoint not completed for long",
        severity="critical",
        promql=(
            "floor(ndb_sql_last_commit_epoch / 2^32)\n"
            f"  - on (instance) max by (instance) (ndb_lcp_completed_gci) > {thresholds.LCP_AGE_GCIS}"
        ),
        sql=(
            "SELECT MAX(last_lcp_id), MAX(last_max_gci_completed) FROM ndbinfo.table_replicas\n"
            "WHERE node_id = <one running data node> AND is_replica_alive = 1;\n"
            "SHOW GLOBAL STATUS LIKE 'Ndb_last_commit_epoch_server';  -- GCI = epoch >> 32"
        ),
        guide="4.6 Parameter tuning (Parameteroptimierung)",
        advice=(
            "The REDO log can only be trimmed up to the last completed LCP. A stalled LCP fills "
            "the REDO log; check disk write speed (MaxDiskWriteSpeed) and the cluster log."
        ),
    )
    if lcp.age_gcis is None:
        return spec.finding("unknown", "LCP or epoch data missing.")
    evidence = [
        Evidence(label="LCP id", value=count(lcp.lcp_id)),
        Evidence(label="last LCP completed at GCI", value=count(lcp.completed_gci)),
        Evidence(label="current GCI", value=count(lcp.current_gci)),
        Evidence(label="age in GCIs", value=count(lcp.age_gcis)),
    ]
    if lcp.age_seconds is not None:
        evidence.append(Evidence(label="age (estimate)", value=f"{lcp.age_seconds:,.0f} s"))
    old = lcp.age_gcis > thresholds.LCP_AGE_GCIS
    return spec.finding(
        "problem" if old else "ok",
        f"The last LCP completed {lcp.age_gcis:,} GCIs ago (threshold {thresholds.LCP_AGE_GCIS}).",
        evidence,
    )


def dead_replicas(inputs: Inputs) -> Finding:
    spec = FindingSpec(
        id="dead_replicas",
        title="Fragments with dead replicas",
        severity="critical",
        promql="ndb_fragments_with_dead_replicas > 0",
        sql=(
            "SELECT table_id, fragment_id, num_dead_replicas FROM ndbinfo.table_fragments\n"
            "WHERE node_id = <one running data node> AND num_dead_replicas > 0"
        ),
        guide="Availability (outside the tuning guide): every node group needs a running node",
        advice=(
            "These fragments run without redundancy: one more failure in the same node group "
            "shuts the cluster down. Start the stopped data node; it copies the fragments back."
        ),
    )
    fragments = inputs.samples.value("ndb_fragments_with_dead_replicas")
    stopped = [
        node.node_id
        for group in inputs.cluster.topology.node_groups
        for node in group.nodes
        if not node.running
    ] + [node.node_id for node in inputs.cluster.topology.unassigned_data_nodes if not node.running]
    if fragments is None and not stopped:
        return spec.no_data("fragments")
    evidence = [Evidence(label="fragments with dead replicas", value=count(fragments))]
    if stopped:
        evidence.append(Evidence(label="stopped", value=_nodes(sorted(stopped))))
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
        return spec.finding("ok", "Every fragment has all its replicas alive.", evidence)
    return spec.finding(
        "problem",
        f"{count(fragments)} fragments have dead replicas"
        + (f"; {_nodes(sorted(stopped))} stopped." if stopped else "."),
        evidence,
    )


def visibility(inputs: Inputs) -> Finding:
    """What the exporter cannot see: a cluster without a ready data node, failed collectors."""
    view = inputs.cluster
    spec = FindingSpec(
        id="cluster_not_visible",
        title="Cluster not visible",
        severity="warning",
        promql=(
            "ndb_sql_data_nodes_ready == 0\n"
            "# and what the exporter cannot read: ndb_exporter_collector_success == 0"
        ),
        sql=(
            "SHOW GLOBAL STATUS LIKE 'Ndb_number_of_ready_data_nodes';\n"
            "SELECT node_id, status FROM ndbinfo.nodes"
        ),
        guide="Availability (outside the tuning guide): the checks need the data nodes' view",
        advice=(
            "With no data node ready the cluster serves no NDB table and ndbinfo answers error "
            "1296: start the data nodes (ndb_mgm -e SHOW lists them). A single failed collector "
            "usually means a missing privilege on ndbinfo or a query slower than "
            "--exporter.query-timeout; the exporter's log names the error."
        ),
    )
    failed = view.collectors_failed
    by_error: dict[str, list[str]] = {}
    for failure in failed:
        by_error.setdefault(failure.error, []).append(failure.collector)
    evidence = [
        Evidence(label=f"collector {names[0]}", value=error)
        if len(names) == 1
        else Evidence(label=f"{len(names)} collectors", value=f"{error} ({', '.join(names)})")
        for error, names in by_error.items()
    ]
    ready = view.sql_node.data_nodes_ready
    running = [n for g in view.topology.node_groups for n in g.nodes if n.running]
    if ready == 0 or (ready is None and failed and not running):
        configured = view.sql_node.data_nodes_configured
        evidence.insert(
            0,
            Evidence(
                label="data nodes ready / configured", value=f"{count(ready)} / {count(configured)}"
            ),
        )
        error = f": {failed[0].error}" if failed else ""
        return spec.finding(
            "problem",
            f"No data node is ready: the cluster is down or cut off from SQL node "
            f"{view.target}, and the checks below cannot see it{error}.",
            evidence,
            severity="critical",
        )
    if failed:
        names = _and([f.collector for f in failed])
        return spec.finding(
            "problem",
            f"{len(failed)} collector(s) failed in the last scrape ({names}): the checks "
            "that need their data are unknown.",
            evidence,
        )
    if ready is None:
        return spec.finding("unknown", "The SQL node reported no Ndb_number_of_ready_data_nodes.")
    return spec.finding(
        "ok",
        "Every collector answered and at least one data node is ready.",
        [Evidence(label="data nodes ready", value=count(ready))],
    )


def arbitrator(inputs: Inputs) -> Finding:
    spec = FindingSpec(
        id="no_arbitrator",
        title="No arbitrator",
        severity="warning",
        promql=(
            "max(ndb_arbitrator_node_id) == 0\n"
            "  or max(ndb_arbitrator_connected) == 0\n"
            '  or max(ndb_arbitration_state{state="ARBIT_RUN"}) == 0'
        ),
        sql="SELECT node_id, arbitrator, arb_state, arb_connected FROM ndbinfo.membership",
        guide="Availability (outside the tuning guide): arbitration after a network split",
        advice=(
            "Without an arbitrator, a network split or the loss of half the data nodes shuts the "
            "whole cluster down instead of letting one half survive. Check that the management "
            "node (ArbitrationRank 1) runs and that the data nodes reach it; ndb_mgm -e SHOW."
        ),
    )
    nodes = inputs.samples.by_node("ndb_arbitrator_node_id")
    if not nodes:
        return spec.no_data("membership")
    connected = inputs.samples.by_node("ndb_arbitrator_connected")
    running = inputs.samples.by_node("ndb_arbitration_state", state="ARBIT_RUN")
    evidence = [
        Evidence(
            label=f"data node {node}",
            value=(f"arbitrator node {arbiter:.0f}" if arbiter else "no arbitrator")
            + ("" if connected.get(node) else ", not connected")
            + ("" if running.get(node) else ", not in ARBIT_RUN"),
        )
        for node, arbiter in sorted(nodes.items())
    ]
    if (
        max(nodes.values())
        and max(connected.values(), default=0)
        and max(running.values(), default=0)
    ):
        return spec.finding("ok", f"Node {max(nodes.values()):.0f} is the arbitrator.", evidence)
    return spec.finding(
        "problem",
        "No data node has a connected, running arbitrator: a network split would stop the cluster.",
        evidence,
    )


def transporter_overload(inputs: Inputs) -> Finding:
    spec = FindingSpec(
        id="transporter_overloaded",
        title="Overloaded transporters",
        severity="warning",
        promql="rate(ndb_transporter_overloads_total[5m]) > 0\n  or ndb_transporter_overloaded == 1",
        sql=(
            "SELECT node_id, remote_node_id, overloaded, overload_count, slowdown\n"
            "FROM ndbinfo.transporters WHERE overloaded = 1 OR overload_count > 0"
        ),
        guide="4.3 Batching (Stapelverarbeitung); 4.6 Parameter tuning: SendBufferMemory",
        advice=(
            "A full send buffer makes transactions fail with error 1218. Raise SendBufferMemory "
            "(or TotalSendBufferMemory), check the network between these nodes, and batch large "
            "writes into smaller transactions."
        ),
    )
    link = "node {} → node {}"
    now = {
        (labels["node_id"], labels["remote_node_id"]): value
        for labels, value in inputs.samples.select("ndb_transporter_overloaded")
    }
    if not now:
        return spec.no_data("transporters")
    overloaded = {key for key, value in now.items() if value}
    before = inputs.previous.select("ndb_transporter_overloads_total") if inputs.previous else []
    earlier = {(labels["node_id"], labels["remote_node_id"]): v for labels, v in before}
    grew = {
        (labels["node_id"], labels["remote_node_id"]): value - earlier[key]
        for labels, value in inputs.samples.select("ndb_transporter_overloads_total")
        if (key := (labels["node_id"], labels["remote_node_id"])) in earlier
        and value > earlier[key]
    }
    bad = sorted(overloaded | set(grew), key=lambda k: (int(k[0]), int(k[1])))
    evidence = [
        Evidence(
            label=link.format(*key),
            value=("overloaded now" if key in overloaded else "")
            + (", " if key in overloaded and key in grew else "")
            + (f"{grew[key]:,.0f} overloads since the previous scrape" if key in grew else ""),
        )
        for key in bad[:NAMES_SHOWN]
    ]
    if not bad:
        return spec.finding("ok", f"None of {len(now)} transporters is overloaded.")
    return spec.finding(
        "problem",
        f"{len(bad)} of {len(now)} transporters are overloaded or were since the "
        "previous scrape: their send buffers fill up.",
        evidence,
    )


def send_buffers(inputs: Inputs) -> Finding:
    spec = FindingSpec(
        id="send_buffers_full",
        title="Send buffer memory nearly used up",
        severity="warning",
        promql=(
            "ndb_send_buffer_allocated_bytes / ndb_send_buffer_limit_bytes"
            f" > {thresholds.SEND_BUFFER_WARNING}"
        ),
        sql=(
            "SELECT node_id, SUM(sendbuffer_alloc_bytes) FROM ndbinfo.transporter_details\n"
            "GROUP BY node_id;\n"
            "SELECT node_id, max * 32768 FROM ndbinfo.resources\n"
            "WHERE resource_name = 'TRANSPORTER_BUFFERS'"
        ),
        guide="4.6 Parameter tuning (Parameteroptimierung)",
        advice=(
            "When a data node's send buffer memory runs out its links overload and transactions "
            "abort with error 1218. Find the slow receiver (ndbinfo.transporter_details by "
            "link), add send threads, or raise TotalSendBufferMemory / SendBufferMemory."
        ),
    )
    allocated = inputs.samples.by_node("ndb_send_buffer_allocated_bytes")
    limits = inputs.samples.by_node("ndb_send_buffer_limit_bytes")
    ratios = {n: allocated[n] / limits[n] for n in allocated if limits.get(n)}
    return _fullest_node(
        spec,
        ratios,
        collector="send_buffers",
        label="node {node}",
        ok="The fullest data node holds {worst} of its send buffer memory.",
        problem=(
            "Data node {nodes} holds {worst} of its send buffer memory.",
            "Data nodes {nodes} hold up to {worst} of their send buffer memory.",
        ),
        limits=(thresholds.SEND_BUFFER_WARNING, thresholds.SEND_BUFFER_CRITICAL),
    )


def tablespace(inputs: Inputs) -> Finding:
    spec = FindingSpec(
        id="tablespace_full",
        title="Disk data tablespace filling up",
        severity="warning",
        promql=(
            '1 - sum by (filegroup) (ndb_disk_data_file_free_bytes{type="DATAFILE"})\n'
            '  / sum by (filegroup) (ndb_disk_data_file_size_bytes{type="DATAFILE"})'
            f" > {thresholds.TABLESPACE_WARNING}"
        ),
        sql=(
            "SELECT TABLESPACE_NAME, FILE_NAME, FREE_EXTENTS, TOTAL_EXTENTS, EXTENT_SIZE\n"
            "FROM information_schema.FILES\n"
            "WHERE ENGINE = 'ndbcluster' AND FILE_TYPE = 'DATAFILE'"
        ),
        guide="4.4 Schema optimisation (Schemaoptimierungen): disk data for cold columns",
        advice=(
            "Inserts into disk data tables fail with error 1601 once no extent is free, and "
            "deleted rows do not give extents back. Add a data file in time: ALTER TABLESPACE "
            "ts ADD DATAFILE 'data_2.dat' INITIAL_SIZE 1G."
        ),
    )
    free = inputs.samples.by("ndb_disk_data_file_free_bytes", "filegroup", type="DATAFILE")
    size = inputs.samples.by("ndb_disk_data_file_size_bytes", "filegroup", type="DATAFILE")
    used = {group: 1 - free.get(group, 0.0) / total for group, total in size.items() if total}
    return _fullest_node(
        spec,
        used,
        collector="disk_data",
        label="tablespace {node}",
        ok="The fullest tablespace is {worst} used.",
        problem=(
            "Tablespace {nodes} is {worst} used.",
            "Tablespaces {nodes} are up to {worst} used.",
        ),
        limits=(thresholds.TABLESPACE_WARNING, thresholds.TABLESPACE_CRITICAL),
    )


CHECKS: tuple[Callable[[Inputs], Finding], ...] = (
    visibility,
    dead_replicas,
    arbitrator,
    transporter_overload,
    data_memory,
    redo,
    lcp_age,
    read_backup,
    pruning,
    round_trips,
    unbalanced_primaries,
    inconsistent_config,
    *PERFORMANCE_CHECKS,
    send_buffers,
    tablespace,
)


def evaluate(inputs: Inputs) -> list[Finding]:
    """Every check, problems first (most severe first), then unknown, then ok. With no data
    node ready nothing is judged healthy: a check that passed on what the SQL node alone
    reports (its counters) is unknown too."""
    findings = [check(inputs) for check in CHECKS]
    if any(f.id == "cluster_not_visible" and f.severity == "critical" for f in findings):
        findings = [
            f.model_copy(
                update={
                    "status": "unknown",
                    "summary": f"Not judged while no data node is ready. {f.summary}",
                }
            )
            if f.status == "ok"
            else f
            for f in findings
        ]
    return sorted(findings, key=lambda f: (ORDER[f.status], SEVERITY[f.severity]))
