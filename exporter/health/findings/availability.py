"""Availability findings, outside the tuning guide: whether the exporter sees NDB and the
cluster, fragments running without redundancy, and arbitration after a network split."""

from __future__ import annotations

from ndbinfo_exporter.health import thresholds
from ndbinfo_exporter.health.findings.check import Check
from ndbinfo_exporter.health.findings.inputs import Inputs
from ndbinfo_exporter.health.findings.wording import count, joined, named_nodes
from ndbinfo_exporter.health.models import Evidence, Finding
from ndbinfo_exporter.health.samples import Samples
from ndbinfo_exporter.scrape.ndb_visibility import CAUSES, OK


def ndb_visible(check: Check, inputs: Inputs) -> Finding:
    """Whether the exporter's account sees the ndbcluster engine and the ndbinfo schema."""
    node = inputs.cluster.sql_node
    if node.ndb_visibility is None:
        return check.finding("unknown", "The scrape reported no ndb_engine_visibility.")
    evidence = [
        Evidence(label="state", value=node.ndb_visibility),
        Evidence(label="SQL node version", value=node.version or "n/a"),
    ]
    if node.ndb_visibility == OK:
        return check.finding(
            "ok", "The exporter's account sees the ndbcluster engine and ndbinfo.", evidence
        )
    return check.finding(
        "problem",
        f"NDB is not visible through SQL node {inputs.cluster.target}:"
        f" {CAUSES[node.ndb_visibility]}. Every ndbinfo collector is skipped, so the checks"
        " below cannot see the cluster.",
        evidence,
    )


NDB_NOT_VISIBLE = Check(
    id="ndb_not_visible",
    title="NDB not visible",
    severity="critical",
    promql='ndb_engine_visibility{state!="ok"} == 1',
    sql=(
        "SELECT ENGINE, SUPPORT FROM information_schema.ENGINES WHERE ENGINE = 'ndbcluster';\n"
        "SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = 'ndbinfo';\n"
        "SELECT @@version, @@ndbinfo_version;\n"
        "SHOW GRANTS"
    ),
    guide="Availability (outside the tuning guide): the checks need the NDB engine and ndbinfo",
    advice=(
        "engine_absent: start the mysqld with the NDB engine (ndbcluster and ndb-connectstring "
        "in its [mysqld] section), or point the exporter at a SQL node of the cluster. "
        "ndbinfo_absent: enable the ndbinfo plugin (no ndbinfo=OFF) and restart the mysqld. "
        "privilege_missing: GRANT SELECT ON ndbinfo.* to the exporter's account. The runbook's "
        "NdbEngineUnavailable section tells the causes apart."
    ),
    family="availability",
    reads=("status",),
    evaluate=ndb_visible,
)


def visibility(check: Check, inputs: Inputs) -> Finding:
    """What the exporter cannot see: a cluster without a ready data node, failed collectors."""
    view = inputs.cluster
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
        return check.finding(
            "problem",
            f"No data node is ready: the cluster is down or cut off from SQL node "
            f"{view.target}, and the checks below cannot see it{error}.",
            evidence,
            severity="critical",
        )
    if failed:
        names = joined([f.collector for f in failed])
        return check.finding(
            "problem",
            f"{len(failed)} collector(s) failed in the last scrape ({names}): the checks "
            "that need their data are unknown.",
            evidence,
        )
    if ready is None:
        return check.finding("unknown", "The SQL node reported no Ndb_number_of_ready_data_nodes.")
    return check.finding(
        "ok",
        "Every collector answered and at least one data node is ready.",
        [Evidence(label="data nodes ready", value=count(ready))],
    )


CLUSTER_NOT_VISIBLE = Check(
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
    family="availability",
    reads=("status", "nodes"),
    evaluate=visibility,
)


def dead_replicas(check: Check, inputs: Inputs) -> Finding:
    """Fragments with a dead replica and the data nodes stopped. A data node the configuration
    has not active (RonDB's NodeActive=0) never started: neither it nor the replicas it would
    hold count, so where the cluster has one the dead replicas are those of the active nodes."""
    topology = inputs.cluster.topology
    nodes = [*(n for g in topology.node_groups for n in g.nodes), *topology.unassigned_data_nodes]
    inactive = {node.node_id for node in nodes if not node.active}
    label, fragments = (
        "fragments with dead replicas",
        inputs.samples.value("ndb_fragments_with_dead_replicas"),
    )
    if inactive:
        dead = inputs.samples.by_node("ndb_replicas", state="dead")
        label = "dead replicas on active data nodes"
        fragments = sum(v for n, v in dead.items() if n not in inactive) if dead else None
    stopped = [node.node_id for node in nodes if not node.running and node.active]
    if fragments is None and not stopped:
        return check.no_data("fragments")
    evidence = [Evidence(label=label, value=count(fragments))]
    if stopped:
        evidence.append(Evidence(label="stopped", value=named_nodes("data node", sorted(stopped))))
    if inactive:
        evidence.append(
            Evidence(label="not active", value=named_nodes("data node", sorted(inactive)))
        )
    for group in topology.node_groups:
        active = sum(node.active for node in group.nodes)
        if group.running < active:
            evidence.append(
                Evidence(
                    label=f"node group {group.nodegroup}",
                    value=f"{group.running} of {active} running",
                )
            )
    if inputs.placement is not None:
        affected = [t for t in inputs.placement.tables if t.dead_replicas]
        evidence.append(Evidence(label="tables affected", value=count(len(affected))))
    if not fragments and not stopped:
        return check.finding("ok", "Every fragment has all its replicas alive.", evidence)
    return check.finding(
        "problem",
        f"{count(fragments)} fragments have dead replicas"
        + (f"; {named_nodes('data node', sorted(stopped))} stopped." if stopped else "."),
        evidence,
    )


DEAD_REPLICAS = Check(
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
    family="availability",
    reads=("fragments", "nodes", "membership"),
    evaluate=dead_replicas,
)


def arbitrator(check: Check, inputs: Inputs) -> Finding:
    nodes = inputs.samples.by_node("ndb_arbitrator_node_id")
    if not nodes:
        return check.no_data("membership")
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
        return check.finding("ok", f"Node {max(nodes.values()):.0f} is the arbitrator.", evidence)
    return check.finding(
        "problem",
        "No data node has a connected, running arbitrator: a network split would stop the cluster.",
        evidence,
    )


NO_ARBITRATOR = Check(
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
    family="availability",
    reads=("membership",),
    evaluate=arbitrator,
)


def recent_restarts(check: Check, inputs: Inputs) -> Finding:
    """Data nodes whose uptime is shorter than the window of NdbDataNodeRestarted."""
    uptimes = inputs.samples.by_node("ndb_data_node_uptime_seconds")
    if not uptimes:
        return check.no_data("nodes")
    window = thresholds.RESTART_RECENT_SECONDS
    recent = sorted(node for node, uptime in uptimes.items() if uptime < window)
    evidence = [
        Evidence(label=f"node {node}", value=f"up {uptime:,.0f} s")
        for node, uptime in sorted(uptimes.items())
    ]
    if recent:
        return check.finding(
            "problem",
            f"{named_nodes('Data node', recent)} restarted in the last {window // 60} minutes:"
            " the data node's error log and the cluster log say why it stopped; a node that"
            " restarts again soon after each start is in a restart loop.",
            evidence,
        )
    return check.finding(
        "ok", f"No data node restarted in the last {window // 60} minutes.", evidence
    )


DATA_NODE_RESTARTED = Check(
    id="data_node_restarted",
    title="Data node restarted",
    severity="warning",
    promql=(
        "max without (instance, job)"
        " (max_over_time(ndb_data_node_uptime_seconds[15m]) > ndb_data_node_uptime_seconds)"
    ),
    sql="SELECT node_id, uptime, status, start_phase FROM ndbinfo.nodes ORDER BY uptime",
    guide="Runbook: NdbDataNodeRestarted, NdbDataNodeRestartLoop",
    advice=(
        "While a data node restarts its node group runs on fewer replicas. Read why it stopped "
        "(ndb_<node_id>_error.log, the trace file it names, the cluster log) before the next "
        "failure: a node that fails again after each start needs its cause removed (memory, "
        "disk, configuration), not another start."
    ),
    family="availability",
    reads=("nodes",),
    evaluate=recent_restarts,
)


def _connected_before(samples: Samples, node: int) -> bool:
    """A data node's transporter to ``node`` connected at least once since that data node
    started (ndbinfo.transporters connect_count > 0): a slot that never connected is a spare."""
    return any(
        value > 0
        for labels, value in samples.select("ndb_transporter_link_connects_total")
        if labels.get("remote_node_id") == str(node)
    )


def api_nodes_gone(inputs: Inputs) -> list[int]:
    """SQL/API nodes not connected now that were connected to a running data node."""
    return [
        n.node_id
        for n in inputs.cluster.topology.api_nodes
        if not n.connected and _connected_before(inputs.samples, n.node_id)
    ]


def nodes_gone(check: Check, inputs: Inputs) -> Finding:
    """Management nodes configured but not connected, and SQL/API nodes that were connected to
    the data nodes and went away (a spare [api] slot that never connected is not counted)."""
    topology = inputs.cluster.topology
    if not topology.management_nodes and not topology.api_nodes:
        return check.no_data("processes")
    links_read = bool(inputs.samples.select("ndb_transporter_link_connects_total"))
    mgm_gone = [n.node_id for n in topology.management_nodes if not n.connected]
    api_gone = api_nodes_gone(inputs)
    mgm_up = len(topology.management_nodes) - len(mgm_gone)
    evidence = [
        Evidence(
            label="management nodes connected",
            value=f"{mgm_up} of {len(topology.management_nodes)}",
        ),
        Evidence(
            label="SQL/API nodes connected",
            value=f"{sum(n.connected for n in topology.api_nodes)}"
            + (
                f", {len(api_gone)} gone"
                if links_read
                else " (gone ones not judged: the transporter_links collector gave no data)"
            ),
        ),
    ]
    if not mgm_gone and not api_gone:
        return check.finding(
            "ok", "Every management node is connected and no SQL/API node went away.", evidence
        )
    parts = []
    if mgm_gone:
        parts.append(f"{named_nodes('management node', mgm_gone)} not connected")
    if api_gone:
        parts.append(f"{named_nodes('SQL/API node', api_gone)} went away")
    lost_all = bool(mgm_gone) and not mgm_up
    summary = "; ".join(parts) + (": no management node is left." if lost_all else ".")
    return check.finding(
        "problem",
        summary[0].upper() + summary[1:],
        evidence,
        severity="critical" if lost_all else "warning",
    )


NODES_GONE = Check(
    id="nodes_gone",
    title="Management or SQL node gone",
    severity="warning",
    promql=(
        'ndb_node_connected{node_type="MGM"} == 0\n'
        '  or (ndb_node_connected{node_type="API"} == 0\n'
        "      and on (remote_node_id) max by (remote_node_id)"
        " (ndb_transporter_link_connects_total) > 0)"
    ),
    sql=(
        "SELECT c.node_id, c.node_type, p.process_name FROM ndbinfo.config_nodes c\n"
        "LEFT JOIN ndbinfo.processes p ON p.node_id = c.node_id;\n"
        "SELECT remote_node_id, MAX(connect_count), GROUP_CONCAT(DISTINCT status)\n"
        "FROM ndbinfo.transporters GROUP BY remote_node_id"
    ),
    guide="Availability (outside the tuning guide): management and SQL nodes",
    advice=(
        "Without a management node the data nodes cannot restart (they fetch their "
        "configuration from it) and the usual arbitrator is gone; start ndb_mgmd. A SQL node "
        "that went away no longer serves its applications: read its error log and start "
        "mysqld. An [api] slot that never connected is spare capacity, not a problem."
    ),
    family="availability",
    reads=("processes", "transporter_links"),
    evaluate=nodes_gone,
)
