"""Distribution findings: tables that read only from their primary replica, and primaries
spread unevenly over the data nodes of a node group."""

from __future__ import annotations

from ndbinfo_exporter.health import thresholds
from ndbinfo_exporter.health.findings.check import Check
from ndbinfo_exporter.health.findings.inputs import Inputs
from ndbinfo_exporter.health.findings.wording import NAMES_SHOWN, count, percent
from ndbinfo_exporter.health.models import Evidence, Finding


def read_backup(check: Check, inputs: Inputs) -> Finding:
    without = inputs.samples.total("ndb_user_tables", read_backup="0", fully_replicated="0")
    total = inputs.samples.total("ndb_user_tables")
    if total is None:
        return check.no_data("table_info")
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
        return check.finding("ok", "Every user table reads from backup replicas.", evidence)
    return check.finding(
        "problem",
        f"{count(without)} of {count(total)} user tables read only from the primary replica.",
        evidence,
    )


READ_BACKUP_OFF = Check(
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
    family="distribution",
    reads=("table_info",),
    evaluate=read_backup,
)


def unbalanced_primaries(check: Check, inputs: Inputs) -> Finding:
    primaries = inputs.samples.by_node("ndb_fragment_primaries")
    if not primaries:
        return check.no_data("fragments")
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
        return check.finding("unknown", "No node group with all of its data nodes running.")
    if unbalanced:
        groups = ", ".join(str(g) for g in unbalanced)
        return check.finding(
            "problem",
            f"Primaries differ by more than {percent(thresholds.PRIMARY_SPREAD_HIGH)} within node group(s) {groups}.",
            evidence,
        )
    return check.finding(
        "ok", "Primaries are spread evenly within every complete node group.", evidence
    )


UNBALANCED_PRIMARIES = Check(
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
    family="distribution",
    reads=("fragments", "membership"),
    evaluate=unbalanced_primaries,
)
