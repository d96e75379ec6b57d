"""The two questions of a rolling restart, answered once for ``check --safe-to-stop N`` /
``--restart-done N`` and the view's ``/api/v1/nodes/{node_id}/safe-to-stop`` /
``restart-done``: may node N be stopped now, and is node N done restarting.

Stopping N is safe (OK) only when every node group keeps a started data node, no other node
is starting or stopping, an arbitrator stays (a new one is elected when N is the arbitrator
and another candidate is connected), the checkpoint checks and the firing alerts find no
critical trouble, and, for an SQL node, another binlog server writes the binary log.
Otherwise the answer is CRITICAL with each reason.

A restart is done (OK) when N is started, no replica of its fragments is dead, the fragments
that prefer it as primary have their primary back on it, and its operation latency is within
its peers'; otherwise the answer is CRITICAL, saying whether N is still on its way (its start
phase, what keeps it unfinished) or not connected at all.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

from ndbinfo_exporter.health import thresholds
from ndbinfo_exporter.health.assessment import assess
from ndbinfo_exporter.health.findings import alerting, availability, storage
from ndbinfo_exporter.health.findings.check import Check
from ndbinfo_exporter.health.findings.inputs import Inputs
from ndbinfo_exporter.health.findings.wording import count, named_nodes
from ndbinfo_exporter.health.models import ClusterView, Finding
from ndbinfo_exporter.health.placement import Placement
from ndbinfo_exporter.health.rolling_nodes import (
    NO_NODEGROUP,
    STARTED,
    Node,
    arbitrator,
    arbitrator_candidates,
    binlog_note,
    binlog_reasons,
    data_nodes,
    find,
    latencies,
    moving,
    restart_statuses,
    start_phase_text,
)
from ndbinfo_exporter.scrape.mgmd.reader import ManagementState
from ndbinfo_exporter.scrape.scraper import ScrapeResult
from pydantic import BaseModel, Field

State = Literal["OK", "CRITICAL"]
SAFE_TO_STOP, RESTART_DONE = "safe-to-stop", "restart-done"
# The checks whose critical problems make stopping a node unsafe: the cluster is not seen, an
# LCP does not complete, a REDO log part is nearly full.
CHECKS: tuple[Check, ...] = (
    availability.NDB_NOT_VISIBLE,
    availability.CLUSTER_NOT_VISIBLE,
    storage.LCP_OLD,
    storage.REDO_LOG_FULL,
)
# What the answers read besides those checks' collectors.
READS = (
    "nodes",
    "processes",
    "membership",
    "restart_info",
    "fragments",
    "binlog",
    "binlog_replicas",
    "tc_latency",
)


class RollingAnswer(BaseModel):
    node_id: int
    node: str = Field(description="What the node is: data node 2, management node 49, SQL node 51")
    question: Literal["safe-to-stop", "restart-done"]
    state: State = Field(
        description="OK or CRITICAL: restart-done is CRITICAL while the node is on its way"
        " (summary: still restarting) and while it is not connected (has not restarted)"
    )
    summary: str = Field(description="The answer in one line, with the first reason")
    reasons: list[str] = Field(
        description="Why, one line each: what fails (or, for OK, what was found)"
    )
    target: str = Field(description="The SQL node the cluster was read through")
    scraped_at: float = Field(description="Unix time the data was collected")


# (question, state) -> what the answer says of the node
VERDICTS = {
    (SAFE_TO_STOP, "OK"): "is safe to stop",
    (SAFE_TO_STOP, "CRITICAL"): "is not safe to stop",
    (RESTART_DONE, "OK"): "is done restarting",
    (RESTART_DONE, "CRITICAL"): "has not restarted",
}
ON_ITS_WAY = "is still restarting"  # restart-done, CRITICAL: connected, not done yet


def _answer(
    question: str,
    node: Node,
    inputs: Inputs,
    state: State,
    reasons: Sequence[str],
    verdict: str | None = None,
) -> RollingAnswer:
    more = f" (and {len(reasons) - 1} more)" if state != "OK" and len(reasons) > 1 else ""
    first = f": {reasons[0]}{more}" if reasons else ""
    return RollingAnswer(
        node_id=node.node_id,
        node=node.name,
        question=question,  # type: ignore[arg-type]
        state=state,
        summary=f"{node.name} {verdict or VERDICTS[question, state]}{first}",
        reasons=list(reasons),
        target=inputs.cluster.target,
        scraped_at=inputs.cluster.scraped_at,
    )


def inputs_of(
    result: ScrapeResult,
    previous: ScrapeResult | None,
    cluster: ClusterView,
    placement: Placement | None,
    management: ManagementState | None,
) -> Inputs | None:
    """The inputs of a model built already (the view's, whose samples are not kept): the
    scrape assessed again without checks, with the node groups its cluster view knows."""
    groups = {n.node_id: g.nodegroup for g in cluster.topology.node_groups for n in g.nodes}
    return assess(result, previous, placement, management, groups, checks=()).inputs


# --- safe to stop ------------------------------------------------------------------------------


def _node_groups(node: Node, inputs: Inputs) -> tuple[list[str], list[str]]:
    """(reasons, notes): a node group left without a started data node once ``node`` stops."""
    reasons, notes = [], []
    if node.data is not None and node.data.nodegroup is None and node.data.running:
        reasons.append(f"the node group of {node.name} is not known (membership gave no data)")
    for group in inputs.cluster.topology.node_groups:
        if group.nodegroup == NO_NODEGROUP:
            continue
        left = [n.node_id for n in group.nodes if n.state == STARTED and n.node_id != node.node_id]
        if not left:
            also = " with it" if any(n.node_id == node.node_id for n in group.nodes) else ""
            reasons.append(
                f"node group {group.nodegroup} would be lost{also}: no other data node of it "
                f"is started ({', '.join(f'node {n.node_id} {n.state}' for n in group.nodes)})"
            )
        elif any(n.node_id == node.node_id for n in group.nodes):
            notes.append(
                f"node group {group.nodegroup} keeps {named_nodes('data node', left)} started"
            )
    return reasons, notes


def _arbitration(node: Node, inputs: Inputs) -> tuple[list[str], list[str]]:
    """(reasons, notes): the arbitrator stays, or a new one can be elected."""
    current = arbitrator(inputs.cluster)
    if current is None:
        return ["the arbitrator is not known (the membership collector gave no data)"], []
    if current != node.node_id:
        return [], [f"the arbitrator is node {current}" if current else "no arbitrator is set"]
    candidates = arbitrator_candidates(inputs.cluster, node.node_id)
    if candidates:
        return [], [
            f"{node.name} is the arbitrator: the president elects a new one among the "
            f"connected candidates ({named_nodes('management node', candidates)})"
        ]
    return [
        f"{node.name} is the arbitrator and no other arbitrator candidate is connected (no "
        "other management node; ndbinfo does not show an SQL or API node's ArbitrationRank): "
        "a network split or node failure while it is down shuts the cluster down"
    ], []


def _judged(findings: Sequence[Finding]) -> list[str]:
    """Critical problems of the checkpoint and visibility checks, the checks that could not
    judge, and the firing critical alerts (or alerts that could not be read)."""
    ids = {check.id for check in CHECKS}
    reasons = []
    for finding in findings:
        if finding.id in ids and finding.status == "problem" and finding.severity == "critical":
            reasons.append(f"{finding.title}: {finding.summary}")
        elif finding.id in {storage.LCP_OLD.id, storage.REDO_LOG_FULL.id} and (
            finding.status == "unknown"
        ):
            reasons.append(f"{finding.title} not judged: {finding.summary}")
        elif finding.id == alerting.UNREADABLE:
            reasons.append(f"{finding.title}: {finding.summary}")
        elif (
            alerting.is_alert(finding)
            and finding.status == "problem"
            and (finding.severity == "critical")
        ):
            reasons.append(f"alert {finding.title} fires: {finding.summary}")
    return reasons


def safe_to_stop(
    node_id: int,
    inputs: Inputs,
    findings: Sequence[Finding],
    binlog_servers: Mapping[int, bool],
) -> RollingAnswer:
    """Whether node ``node_id`` may be stopped now. ``findings``: those of ``CHECKS`` and the
    alerts'; ``binlog_servers``: SQL node id -> it writes a binary log, for the SQL nodes read
    (``rolling_nodes.binlog_servers``). UnknownNode for an id that names no node."""
    node = find(inputs.cluster, node_id)
    reasons, notes = _node_groups(node, inputs)
    reasons += moving(inputs, but=node_id)
    arbitration, arbitration_notes = _arbitration(node, inputs)
    reasons += arbitration + _judged(findings)
    notes += arbitration_notes
    if node.kind == "SQL node" and node.up:
        binlog = binlog_reasons(node, inputs, binlog_servers)
        reasons += binlog
        if not binlog:
            notes.append(binlog_note(node, inputs.cluster, binlog_servers))
    if not node.up:
        notes.insert(0, f"{node.name} is not running")
    if reasons:
        return _answer(SAFE_TO_STOP, node, inputs, "CRITICAL", reasons)
    return _answer(SAFE_TO_STOP, node, inputs, "OK", notes)


# --- restart done ------------------------------------------------------------------------------


def _connected_data_node(node: Node, inputs: Inputs) -> bool:
    """The data node's process is connected though not in ndbinfo.nodes (processes, or the
    management server's `get status`)."""
    connected = inputs.samples.by_node("ndb_node_connected", node_type="NDB")
    if connected.get(node.node_id):
        return True
    if inputs.management is None:
        return False
    return any(
        s.node_id == node.node_id and s.status not in ("NO_CONTACT", "UNKNOWN")
        for s in inputs.management.nodes
    )


def _on_its_way(node: Node, inputs: Inputs) -> str:
    """How far a data node that is not started yet is, in one line."""
    data = node.data
    assert data is not None
    status = restart_statuses(inputs.samples).get(node.node_id)
    restart = f"; restart_info: '{status}'" if status else ""
    if data.running:
        return f"{node.name} is {data.state}{start_phase_text(data)}{restart}"
    phase = next(
        (
            f", start phase {s.start_phase}"
            for s in (inputs.management.nodes if inputs.management else ())
            if s.node_id == node.node_id and s.status == "STARTING"
        ),
        "",
    )
    return f"{node.name} is connected but not started yet{phase}{restart}"


def _dead_replicas(node: Node, inputs: Inputs) -> str | None:
    """Why replicas on the node may still be dead; None when none are."""
    if inputs.placement is not None:
        dead = sum(
            t.shares[node.node_id].dead for t in inputs.placement.tables if node.node_id in t.shares
        )
        return f"{count(dead)} replicas on {node.name} are dead" if dead else None
    dead = inputs.samples.value("ndb_fragments_with_dead_replicas")
    if dead is None:
        return "whether its replicas are alive is not known (the fragments collector gave no data)"
    if not dead:
        return None
    down = [
        n.node_id
        for n in data_nodes(inputs.cluster)
        if n.state != STARTED and n.node_id != node.node_id
    ]
    if down:
        return (
            f"{count(dead)} fragments have a dead replica and {named_nodes('data node', down)} "
            f"{'is' if len(down) == 1 else 'are'} not started: whether any is on "
            f"{node.name} is not known"
        )
    return f"{count(dead)} fragments still have a dead replica"


def _primaries(node: Node, inputs: Inputs) -> str | None:
    """Why the node's primaries may not be back; None when they are."""
    away = inputs.samples.by_node("ndb_fragments_not_on_preferred_primary")
    if not away:
        return "whether its primaries are back is not known (the fragments collector gave no data)"
    if away.get(node.node_id):
        return (
            f"{count(away[node.node_id])} fragments that prefer {node.name} as primary have "
            "their primary elsewhere still"
        )
    return None


def _latency(node: Node, inputs: Inputs) -> tuple[str | None, str]:
    """(reason, note): its operation latency beside its started peers'."""
    peers = [
        n.node_id
        for n in data_nodes(inputs.cluster)
        if n.state == STARTED and n.node_id != node.node_id
    ]
    found = latencies(inputs, node.node_id, peers)
    if found is None:
        return None, "latency not compared: the tc_latency collector gave no per-node figures"
    factor, least = thresholds.RESTART_LATENCY_FACTOR, thresholds.RESTART_LATENCY_MIN_OPERATIONS
    slow = [
        f"{f.operation} {f.node_seconds * 1000:.2f} ms against {f.peers_seconds * 1000:.2f} ms"
        for f in found
        if f.operations >= least and f.node_seconds > factor * f.peers_seconds
    ]
    if slow:
        return (
            f"its mean latency is over {factor:g} times its peers': {'; '.join(slow)}",
            "",
        )
    return None, f"its mean latency is within {factor:g} times its peers'"


def _data_node_done(node: Node, inputs: Inputs) -> RollingAnswer:
    data = node.data
    assert data is not None
    if not data.running and not _connected_data_node(node, inputs):
        return _answer(RESTART_DONE, node, inputs, "CRITICAL", [f"{node.name} is not connected"])
    if data.state != STARTED:
        on_its_way = [_on_its_way(node, inputs)]
        return _answer(RESTART_DONE, node, inputs, "CRITICAL", on_its_way, ON_ITS_WAY)
    reasons = [r for r in (_dead_replicas(node, inputs), _primaries(node, inputs)) if r]
    slow, note = _latency(node, inputs)
    reasons += [slow] if slow else []
    if reasons:
        return _answer(RESTART_DONE, node, inputs, "CRITICAL", reasons, ON_ITS_WAY)
    notes = [
        f"{node.name} is started",
        "no replica of its fragments is dead",
        "its primaries are back",
        note,
    ]
    return _answer(RESTART_DONE, node, inputs, "OK", notes)


def restart_done(node_id: int, inputs: Inputs) -> RollingAnswer:
    """Whether node ``node_id`` is done restarting. UnknownNode for an id that names no
    node."""
    node = find(inputs.cluster, node_id)
    if node.data is not None:
        return _data_node_done(node, inputs)
    if node.up:
        return _answer(RESTART_DONE, node, inputs, "OK", [f"{node.name} is connected"])
    return _answer(RESTART_DONE, node, inputs, "CRITICAL", [f"{node.name} is not connected"])


def ask(
    question: str,
    node_id: int,
    inputs: Inputs,
    findings: Sequence[Finding],
    binlog_servers: Mapping[int, bool],
) -> RollingAnswer:
    """The answer to ``question`` (SAFE_TO_STOP or RESTART_DONE) about node ``node_id``."""
    if question == SAFE_TO_STOP:
        return safe_to_stop(node_id, inputs, findings, binlog_servers)
    return restart_done(node_id, inputs)
