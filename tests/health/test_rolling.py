"""The rolling restart answers (health.rolling) on recorded scrape data: whether a node may be
stopped now and whether a restarted node is done, with the reasons they give."""

from __future__ import annotations

from dataclasses import replace

import pytest
from ndbinfo_exporter.health import rolling
from ndbinfo_exporter.health.assessment import assess
from ndbinfo_exporter.health.findings.alerting import with_alerts
from ndbinfo_exporter.health.models import Alert, AlertsView
from ndbinfo_exporter.health.rolling_nodes import UnknownNode, binlog_servers
from prometheus_client.core import GaugeMetricFamily

from tests.health.scrape_data import Result, arbitration, cluster, gauge, replication


def ask(result: Result, question: str, node: int, servers=None, alerts=None):
    judged = assess(result, checks=rolling.CHECKS)
    findings = judged.findings
    if alerts is not None:
        findings = with_alerts(findings, AlertsView(source="http://prom:9090", alerts=alerts))
    return rolling.ask(question, node, judged.inputs, findings, servers or {})


def added(result: Result, *families) -> Result:
    return replace(result, families=[*result.families, *families])


def healthy(**shape) -> Result:
    """Four data nodes with the membership's arbitrator (management node 49) and every
    fragment on its preferred primary."""
    away = [
        gauge("ndb_fragments_not_on_preferred_primary", {"node_id": str(node)}, 0)
        for node in (1, 2, 3, 4)
    ]
    return added(arbitration(cluster(**shape), 49), *away)


def replaced(result: Result, family) -> Result:
    """``result`` with ``family`` instead of the family of that name."""
    kept = [f for f in result.families if f.name != family.name]
    return replace(result, families=[*kept, family])


def starting(result: Result, node: int, phase: int) -> Result:
    """``result`` with data node ``node`` in STARTING, at start phase ``phase``."""
    status = GaugeMetricFamily("ndb_data_node_status", "t", labels=["node_id", "state"])
    for family in result.families:
        if family.name == "ndb_data_node_status":
            for sample in family.samples:
                mine = sample.labels["node_id"] == str(node)
                value = float(sample.labels["state"] == "STARTING") if mine else sample.value
                status.add_metric([sample.labels["node_id"], sample.labels["state"]], value)
    phases = gauge("ndb_data_node_start_phase", {"node_id": str(node)}, phase)
    return added(replaced(result, status), phases)


def connected_sql_node(result: Result, node: int) -> Result:
    """``result`` with the spare API slot ``node`` connected, a mysqld."""
    connected = GaugeMetricFamily("ndb_node_connected", "t", labels=["node_id", "node_type"])
    labels = ["node_id", "node_type", "hostname", "node_version", "process_name"]
    info = GaugeMetricFamily("ndb_node_info", "t", labels=labels)
    for family in result.families:
        for sample in family.samples if family.name == "ndb_node_connected" else ():
            mine = sample.labels["node_id"] == str(node)
            connected.add_metric([sample.labels[k] for k in labels[:2]], mine or sample.value)
        for sample in family.samples if family.name == "ndb_node_info" else ():
            values = [sample.labels[k] for k in labels]
            if sample.labels["node_id"] == str(node):
                values[3:] = ["8.4.3", "mysqld"]
            info.add_metric(values, 1)
    return replaced(replaced(result, connected), info)


def management_node(result: Result, node: int) -> Result:
    """``result`` with another management node, connected."""
    labels = {"node_id": str(node), "node_type": "MGM"}
    info = {
        **labels,
        "hostname": f"host{node}",
        "node_version": "8.4.3",
        "process_name": "ndb_mgmd",
    }
    return added(
        result,
        gauge("ndb_node_configured", labels),
        gauge("ndb_node_connected", labels),
        gauge("ndb_node_info", info),
    )


def latency(result: Result, means: dict[int, float], operations: float = 1000) -> Result:
    """``result`` with the tc_latency histograms' sum and count of key operations."""
    families = []
    for node, mean in means.items():
        labels = {"node_id": str(node), "operation": "key"}
        families.append(gauge("ndb_tc_operation_duration_seconds_sum", labels, mean * operations))
        families.append(gauge("ndb_tc_operation_duration_seconds_count", labels, operations))
    return added(result, *families)


def critical_alert(name: str, severity: str = "critical") -> Alert:
    return Alert(
        name=name, state="firing", severity=severity, summary=f"{name} summary",
        labels={"alertname": name}, link="http://prom:9090/alerts",
    )  # fmt: skip


def test_a_data_node_whose_partner_is_started_is_safe_to_stop():
    answer = ask(healthy(), rolling.SAFE_TO_STOP, 1)
    assert (answer.state, answer.node) == ("OK", "data node 1")
    assert "node group 0 keeps data node 2 started" in answer.reasons
    assert "the arbitrator is node 49" in answer.reasons
    assert answer.summary == "data node 1 is safe to stop: node group 0 keeps data node 2 started"


def test_the_last_started_data_node_of_its_node_group_is_not_safe_to_stop():
    answer = ask(healthy(stopped=(2,)), rolling.SAFE_TO_STOP, 1)
    assert answer.state == "CRITICAL"
    # One read: data node 2, never seen running, has no known node group.
    assert answer.reasons == [
        "node group 0 would be lost with it: no other data node of it is started (node 1 STARTED)"
    ]
    # Another node group keeps its partner: a node down elsewhere starts or stops nothing.
    assert ask(healthy(stopped=(2,)), rolling.SAFE_TO_STOP, 3).state == "OK"


def test_a_node_starting_elsewhere_makes_every_stop_unsafe():
    answer = ask(starting(healthy(), 3, 5), rolling.SAFE_TO_STOP, 1)
    assert answer.state == "CRITICAL"
    assert answer.reasons == [
        "node 3 is starting or stopping: ndbinfo.nodes says STARTING, start phase 5"
    ]
    restarting = added(
        healthy(),
        gauge("ndb_restart_status", {"node_id": "4", "status": "Restore fragments ongoing"}),
        gauge("ndb_restart_status", {"node_id": "2", "status": "Restart completed"}),
        gauge("ndb_restart_status", {"node_id": "3", "status": "Node failure handling complete"}),
    )
    answer = ask(restarting, rolling.SAFE_TO_STOP, 1)
    assert answer.reasons == [
        "node 4 is starting or stopping: restart_info says 'Restore fragments ongoing'"
    ]


def test_the_arbitrator_may_stop_only_while_another_candidate_is_connected():
    alone = ask(healthy(), rolling.SAFE_TO_STOP, 49)
    assert alone.state == "CRITICAL" and alone.node == "management node 49"
    assert alone.reasons[0].startswith(
        "management node 49 is the arbitrator and no other arbitrator candidate is connected"
    )
    paired = ask(management_node(healthy(), 50), rolling.SAFE_TO_STOP, 49)
    assert paired.state == "OK"
    assert paired.reasons == [
        "management node 49 is the arbitrator: the president elects a new one among the "
        "connected candidates (management node 50)"
    ]
    unknown = ask(cluster(), rolling.SAFE_TO_STOP, 1)
    assert unknown.reasons == [
        "the arbitrator is not known (the membership collector gave no data)"
    ]


def test_a_stalled_lcp_and_a_firing_critical_alert_make_a_stop_unsafe():
    stalled = ask(healthy(lcp_completed_gci=1000), rolling.SAFE_TO_STOP, 1)
    assert stalled.state == "CRITICAL"
    assert stalled.reasons == [
        "Local checkpoint not completed for long: The last LCP completed 4,010 GCIs ago "
        "(threshold 300)."
    ]
    paged = ask(healthy(), rolling.SAFE_TO_STOP, 1, alerts=[critical_alert("NdbGcpStalled")])
    assert paged.reasons == ["alert NdbGcpStalled fires: NdbGcpStalled summary"]
    warned = ask(healthy(), rolling.SAFE_TO_STOP, 1, alerts=[critical_alert("NdbX", "warning")])
    assert warned.state == "OK"


@pytest.mark.parametrize(
    "servers, state, reason",
    [
        ({51: False}, "OK", "SQL node 51 writes no binary log"),
        ({51: True, 52: True}, "CRITICAL", "SQL node 51 is the only binlog server read"),
        ({}, "CRITICAL", "whether SQL node 51 writes a binary log is not known"),
        ({51: True}, "CRITICAL", "SQL node 51 is the only binlog server read"),
    ],
)
def test_an_sql_node_may_stop_only_while_another_binlog_server_writes(servers, state, reason):
    """SQL node 52 is a spare slot, not connected: it serves no replica."""
    answer = ask(healthy(), rolling.SAFE_TO_STOP, 51, servers)
    assert (answer.state, answer.node) == (state, "SQL node 51")
    assert any(r.startswith(reason) for r in answer.reasons), answer.reasons


def attached(result: Result, count: int, *replicas: tuple[int, str, int]) -> Result:
    """``result`` with the binlog_replicas families: ``count`` replicas registered, the info
    series of ``replicas`` (server_id, host, port)."""
    info = [
        gauge("ndb_binlog_replica_info", {"server_id": str(sid), "host": host, "port": str(port)})
        for sid, host, port in replicas
    ]
    return added(result, gauge("ndb_binlog_replicas_attached", {}, count), *info)


@pytest.mark.parametrize(
    "count, replicas, named",
    [
        (
            1,
            [(101, "dr-sql1", 3306)],
            "replica server 101 (host dr-sql1:3306) reads its binary log and loses its source",
        ),
        (
            2,
            [(102, "dr-sql2", 3307), (101, "", 3306)],
            "replica servers 101 (no report_host) and 102 (host dr-sql2:3307) read its binary"
            " log and lose their source",
        ),
        (
            18,
            [(100 + n, f"dr-sql{n}", 3306) for n in range(1, 17)],
            "replica servers 101 (host dr-sql1:3306), ",
        ),
        (0, [], "a replica reading its binary log loses its source"),
    ],
)
def test_the_only_binlog_server_names_the_replicas_reading_it(count, replicas, named):
    answer = ask(attached(healthy(), count, *replicas), rolling.SAFE_TO_STOP, 51, {51: True})
    assert answer.state == "CRITICAL"
    (reason,) = answer.reasons
    assert reason.startswith(f"SQL node 51 is the only binlog server read: {named}"), reason
    if count > len(replicas):
        assert f" and {count - len(replicas)} more read its binary log" in reason


def test_the_replicas_of_a_binlog_server_not_read_through_are_not_known():
    """The families are those of the SQL node read (51): of SQL node 52 nothing is known."""
    result = attached(connected_sql_node(healthy(), 52), 1, (101, "dr-sql1", 3306))
    answer = ask(result, rolling.SAFE_TO_STOP, 52, {52: True})
    assert answer.reasons[0].startswith(
        "SQL node 52 is the only binlog server read: a replica reading its binary log loses"
    )


def test_the_binlog_servers_are_the_sql_nodes_read_with_a_binlog_injector():
    writer = replication(
        healthy(), binlog={"buffered": 9, "received": 9, "handled": 9, "written": 9}
    )
    views = [assess(writer).cluster, assess(healthy()).cluster]
    assert binlog_servers(views[:1], "demo_cluster") == {51: True}
    assert binlog_servers(views[1:], "demo_cluster") == {51: False}
    assert binlog_servers(views, "another_cluster") == {}


def test_an_id_that_names_no_node_is_refused_in_one_line():
    with pytest.raises(
        UnknownNode, match=r"^node 99 is not a node of this cluster; its nodes: 1, 2"
    ):
        ask(healthy(), rolling.SAFE_TO_STOP, 99)


def test_a_started_node_with_its_replicas_and_primaries_back_is_done():
    answer = ask(
        latency(healthy(), {1: 0.001, 2: 0.0012, 3: 0.001, 4: 0.0009}), rolling.RESTART_DONE, 2
    )
    assert answer.state == "OK"
    assert answer.reasons == [
        "data node 2 is started",
        "no replica of its fragments is dead",
        "its primaries are back",
        "its mean latency is within 2 times its peers'",
    ]
    unmeasured = ask(healthy(), rolling.RESTART_DONE, 2)
    assert unmeasured.state == "OK"
    assert unmeasured.reasons[-1] == (
        "latency not compared: the tc_latency collector gave no per-node figures"
    )


def test_a_restart_on_its_way_and_a_node_not_connected_are_critical_each_said_as_it_is():
    on_its_way = ask(starting(healthy(), 2, 4), rolling.RESTART_DONE, 2)
    assert (on_its_way.state, on_its_way.reasons) == (
        "CRITICAL",
        ["data node 2 is STARTING, start phase 4"],
    )
    assert (
        on_its_way.summary
        == "data node 2 is still restarting: data node 2 is STARTING, start phase 4"
    )
    gone = ask(healthy(stopped=(2,)), rolling.RESTART_DONE, 2)
    assert (gone.state, gone.reasons) == ("CRITICAL", ["data node 2 is not connected"])
    assert gone.summary == "data node 2 has not restarted: data node 2 is not connected"
    assert ask(healthy(), rolling.RESTART_DONE, 49).state == "OK"


def test_primaries_away_dead_replicas_and_slow_operations_keep_a_restart_unfinished():
    away = replaced(
        healthy(), gauge("ndb_fragments_not_on_preferred_primary", {"node_id": "2"}, 12)
    )
    assert ask(away, rolling.RESTART_DONE, 2).reasons == [
        "12 fragments that prefer data node 2 as primary have their primary elsewhere still"
    ]
    dead = replaced(healthy(), gauge("ndb_fragments_with_dead_replicas", value=80))
    assert ask(dead, rolling.RESTART_DONE, 2).reasons == ["80 fragments still have a dead replica"]
    slow = latency(healthy(), {1: 0.001, 2: 0.004, 3: 0.001, 4: 0.001})
    answer = ask(slow, rolling.RESTART_DONE, 2)
    assert answer.state == "CRITICAL" and answer.summary.startswith("data node 2 is still")
    assert answer.reasons == [
        "its mean latency is over 2 times its peers': key 4.00 ms against 1.00 ms"
    ]
    few = latency(healthy(), {1: 0.001, 2: 0.004, 3: 0.001, 4: 0.001}, operations=10)
    assert ask(few, rolling.RESTART_DONE, 2).state == "OK"
