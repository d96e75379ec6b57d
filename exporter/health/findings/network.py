"""Network findings: transporters that overload and data nodes running out of send buffer
memory (both end in error 1218)."""

from __future__ import annotations

from ndbinfo_exporter.health import thresholds
from ndbinfo_exporter.health.findings.check import Check
from ndbinfo_exporter.health.findings.fullest import Fullest
from ndbinfo_exporter.health.findings.inputs import Inputs
from ndbinfo_exporter.health.findings.wording import NAMES_SHOWN
from ndbinfo_exporter.health.models import Evidence, Finding


def transporter_overload(check: Check, inputs: Inputs) -> Finding:
    link = "node {} → node {}"
    now = {
        (labels["node_id"], labels["remote_node_id"]): value
        for labels, value in inputs.samples.select("ndb_transporter_link_overloaded")
    }
    if not now:
        return check.no_data("transporter_links")
    overloaded = {key for key, value in now.items() if value}
    before = (
        inputs.previous.select("ndb_transporter_link_overloads_total") if inputs.previous else []
    )
    earlier = {(labels["node_id"], labels["remote_node_id"]): v for labels, v in before}
    grew = {
        (labels["node_id"], labels["remote_node_id"]): value - earlier[key]
        for labels, value in inputs.samples.select("ndb_transporter_link_overloads_total")
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
        return check.finding("ok", f"None of {len(now)} transporters is overloaded.")
    return check.finding(
        "problem",
        f"{len(bad)} of {len(now)} transporters are overloaded or were since the "
        "previous scrape: their send buffers fill up.",
        evidence,
    )


TRANSPORTER_OVERLOADED = Check(
    id="transporter_overloaded",
    title="Overloaded transporters",
    severity="warning",
    promql="rate(ndb_transporter_overloads_total[5m]) > 0\n  or ndb_transporter_overloaded_links > 0",
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
    family="network",
    reads=("transporter_links",),
    evaluate=transporter_overload,
    needs_history=True,
)


def send_buffer_ratios(inputs: Inputs) -> dict[int, float]:
    allocated = inputs.samples.by_node("ndb_send_buffer_allocated_bytes")
    limits = inputs.samples.by_node("ndb_send_buffer_limit_bytes")
    return {n: allocated[n] / limits[n] for n in allocated if limits.get(n)}


SEND_BUFFERS_FULL = Check(
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
    family="network",
    reads=("transporters", "resources"),
    evaluate=Fullest(
        send_buffer_ratios,
        collector="transporters",
        label="node {node}",
        ok="The fullest data node holds {worst} of its send buffer memory.",
        problem=(
            "Data node {nodes} holds {worst} of its send buffer memory.",
            "Data nodes {nodes} hold up to {worst} of their send buffer memory.",
        ),
        limits=(thresholds.SEND_BUFFER_WARNING, thresholds.SEND_BUFFER_CRITICAL),
    ),
)
