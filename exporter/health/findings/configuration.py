"""Configuration findings: parameters, NDB versions and configuration generations that differ
between the nodes of one cluster, as a rolling restart or upgrade left half done leaves them."""

from __future__ import annotations

from ndbinfo_exporter.health.findings.check import Check
from ndbinfo_exporter.health.findings.inputs import Inputs
from ndbinfo_exporter.health.findings.wording import joined, named_nodes
from ndbinfo_exporter.health.models import Evidence, Finding
from ndbinfo_exporter.values import leading_version


def inconsistent_config(check: Check, inputs: Inputs) -> Finding:
    if not inputs.samples.has("ndb_config_inconsistent_params"):
        return check.no_data("config")
    bad = [p for p in inputs.config.params if p.inconsistent]
    evidence = [
        Evidence(label=p.param, value=", ".join(f"node {v.node_id}: {v.value:g}" for v in p.values))
        for p in bad
    ]
    if not bad:
        return check.finding("ok", "Every data node runs with the same parameters.")
    return check.finding("problem", f"{len(bad)} parameter(s) differ between data nodes.", evidence)


CONFIG_INCONSISTENT = Check(
    id="config_inconsistent",
    title="Parameters that differ between data nodes",
    severity="info",  # as NdbConfigInconsistent: often a rolling change under way
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
    family="configuration",
    reads=("config",),
    evaluate=inconsistent_config,
)


# The node types NdbVersionSkew compares: API and SQL nodes are upgraded last and apart, and may
# legitimately run other client versions.
VERSIONED_NODE_TYPES = {"NDB": "data node", "MGM": "management node"}


def _nodes_by_type(ids_and_types: list[tuple[int, str]]) -> str:
    """data nodes 1 and 2, management node 49"""
    return ", ".join(
        named_nodes(kind, sorted(i for i, t in ids_and_types if t == node_type))
        for node_type, kind in VERSIONED_NODE_TYPES.items()
        if any(t == node_type for _, t in ids_and_types)
    )


def _release_order(version: str) -> tuple:
    return (leading_version(version) or (0, 0, 0), version)


def version_skew(check: Check, inputs: Inputs) -> Finding:
    if not inputs.samples.has("ndb_node_info"):
        return check.no_data("processes")
    by_version: dict[str, list[tuple[int, str]]] = {}
    for labels, _ in inputs.samples.select("ndb_node_info"):
        if labels.get("node_type") in VERSIONED_NODE_TYPES and labels.get("node_version"):
            by_version.setdefault(labels["node_version"], []).append(
                (int(labels["node_id"]), labels["node_type"])
            )
    if not by_version:
        return check.finding("unknown", "No data or management node is connected.")
    versions = sorted(by_version, key=_release_order)
    evidence = [Evidence(label=f"NDB {v}", value=_nodes_by_type(by_version[v])) for v in versions]
    if len(versions) == 1:
        return check.finding(
            "ok", f"Every connected data and management node runs NDB {versions[0]}.", evidence
        )
    return check.finding(
        "problem",
        f"Data and management nodes run {len(versions)} NDB versions ({joined(versions)}): a "
        "rolling upgrade or downgrade is in progress or was left half done.",
        evidence,
    )


VERSION_SKEW = Check(
    id="version_skew",
    title="NDB versions that differ between nodes",
    severity="warning",
    promql=(
        "count without (node_version) (\n"
        "  count without (instance, job, node_id, node_type, hostname, process_name) (\n"
        '    ndb_node_info{node_type=~"NDB|MGM", node_version!=""}\n'
        "  )\n"
        ") > 1"
    ),
    sql=(
        "SELECT node_id, node_type, node_version FROM ndbinfo.processes\n"
        "WHERE node_type IN ('NDB', 'MGM') ORDER BY node_version, node_id"
    ),
    guide="Availability (outside the tuning guide): upgrading and downgrading NDB Cluster",
    advice=(
        "A rolling upgrade shows this on purpose while it runs: management nodes first, then "
        "the data nodes one at a time (or one per node group), then the SQL and API nodes. Left "
        "unfinished, NDB refuses DDL on NDB tables while data nodes run different releases. "
        "Finish the upgrade, or roll it back, node by node as the manual's 'Upgrading and "
        "Downgrading NDB Cluster' and 'Performing a Rolling Restart' describe. The alert "
        "NdbVersionSkew waits 2 hours; the view shows the skew at once."
    ),
    family="configuration",
    reads=("processes",),
    evaluate=version_skew,
)


def config_generation_skew(check: Check, inputs: Inputs) -> Finding:
    generations = inputs.samples.by_node("ndb_data_node_config_generation")
    if not generations:
        return check.no_data("nodes")
    by_generation: dict[int, list[int]] = {}
    for node_id, generation in sorted(generations.items()):
        by_generation.setdefault(int(generation), []).append(node_id)
    newest = max(by_generation)
    evidence = [
        Evidence(label=f"generation {g}", value=named_nodes("data node", by_generation[g]))
        for g in sorted(by_generation, reverse=True)
    ]
    if len(by_generation) == 1:
        return check.finding(
            "ok", f"Every running data node runs configuration generation {newest}.", evidence
        )
    behind = sorted(n for g, ids in by_generation.items() if g < newest for n in ids)
    return check.finding(
        "problem",
        f"{named_nodes('Data node', behind)} run{'s' if len(behind) == 1 else ''} an older "
        f"configuration generation than the newest ({newest}): the rolling restart that applies "
        "the new configuration has not reached "
        f"{'it' if len(behind) == 1 else 'them'}.",
        evidence,
    )


CONFIG_GENERATION_SKEW = Check(
    id="config_generation_skew",
    title="Configuration generations that differ between data nodes",
    severity="info",  # as NdbConfigGenerationSkew: a restart not yet applied everywhere
    promql=(
        "ndb_data_node_config_generation\n"
        "  < on (cluster, instance, job) group_left ()\n"
        "max by (cluster, instance, job) (ndb_data_node_config_generation)"
    ),
    sql="SELECT node_id, config_generation FROM ndbinfo.nodes ORDER BY config_generation, node_id",
    guide="4.6 Parameter tuning (Parameteroptimierung)",
    advice=(
        "A data node reads a changed configuration only when it restarts. A rolling restart "
        "shows this on purpose while it runs; finish it: restart the data nodes still on the "
        "older generation one at a time (ndb_mgm -e 'N RESTART'), each once the one before is "
        "started, as the manual's 'Performing a Rolling Restart' describes. The alert "
        "NdbConfigGenerationSkew waits 2 hours; the view shows the skew at once."
    ),
    family="configuration",
    reads=("nodes",),
    evaluate=config_generation_skew,
)
