"""End to end, the transaction, resource, buffer, transporter, latency, restart and error
alerts on their own stack (e2e_alerts_stack.py), beside test_e2e_alerts.py: every injected
fault makes its alert's expression true, as Prometheus evaluates it over the scraped series.
The tests whose 5-minute rates or restarts keep their alerts true come last."""

# ruff: noqa: F401, F811 - the fixtures `stack` and `healthy` are imported for the tests' arguments
from __future__ import annotations

import time

import pytest

from tests.rules.e2e_alerts_stack import (
    CLUSTER,
    FAULT_SECONDS,
    OVERLOADED_LINK,
    RECOVERY_SECONDS,
    RESTART_ALERTS,
    RESTART_SECONDS,
    SPEED_A,
    Stack,
    healthy,
    stack,
)
from tests.support.live_stack import wait_until

pytestmark = pytest.mark.integration


@pytest.mark.parametrize(
    ("fault", "params", "alert", "node_id"),
    [
        ("long-transaction", {"node": 2}, "NdbLongRunningTransaction", "2"),
        ("lock-contention", {}, "NdbLockWaits", "1"),
    ],
)
def test_transaction_faults_make_their_alert_true(healthy: Stack, fault, params, alert, node_id):
    healthy.sim_a.fault(fault, **params)
    found = healthy.wait_for_alert(alert, healthy.exporter_a)
    assert {metric["node_id"] for metric in found} == {node_id}


@pytest.mark.parametrize(
    ("fault", "params", "alert", "labels"),
    [
        ("send-buffer-pressure", {"node": 3}, "NdbSendBufferHigh", {"node_id": "3"}),
        ("tablespace-full", {"share": 0.95}, "NdbTablespaceFull", {"filegroup": "ts_1"}),
    ],
)
def test_resource_faults_make_resource_alerts_true(healthy: Stack, fault, params, alert, labels):
    healthy.sim_a.fault(fault, **params)
    found = healthy.wait_for_alert(alert, healthy.exporter_a)
    assert [{key: metric[key] for key in labels} for metric in found] == [labels] * len(found)
    healthy.sim_a.clear(fault)
    healthy.wait_healthy_a()


def test_expiring_certificate_makes_certificate_expiring_true(healthy: Stack):
    """A data node takes its certificate into use when it starts, and the exporter reads the
    certificates again when a node starts (else hourly): the node restarts with the expiring
    certificate, and again with a renewed one."""
    sim = healthy.sim_a
    sim.fault("certificate-expiring", node=2, days=2)
    sim.stop_node(2)
    sim.start_node(2)
    found = healthy.wait_for_alert("NdbTlsCertificateExpiring", healthy.exporter_a)
    assert {metric["node_id"] for metric in found} == {"2"}
    sim.clear("certificate-expiring")
    sim.stop_node(2)
    sim.start_node(2)
    healthy.wait_healthy_a()


@pytest.mark.parametrize(
    ("fault", "params", "alerts"),
    [
        ("resource-pool", {"share": 0.95}, ("NdbResourcePoolHigh",)),
        ("buffer-full", {"buffer": "long-message", "share": 0.9}, ("NdbLongMessageBufferHigh",)),
        ("buffer-full", {"buffer": "redo", "share": 0.9}, ("NdbRedoBufferHigh",)),
        ("buffer-full", {"buffer": "undo", "share": 0.9}, ("NdbUndoBufferHigh",)),
        (
            "undo-log-growth",
            {"rate": 0.01, "share": 0.97},
            ("NdbUndoLogSpaceHigh", "NdbUndoLogSpaceCritical"),
        ),
    ],
    ids=["resource-pool", "long-message", "redo", "undo", "undo-log"],
)
def test_buffer_and_pool_faults_make_their_alerts_true(healthy: Stack, fault, params, alerts):
    healthy.sim_a.fault(fault, **params)
    for alert in alerts:
        found = healthy.wait_for_alert(alert, healthy.exporter_a)
        assert {metric["node_id"] for metric in found} == {"1", "2", "3", "4"}
    healthy.sim_a.clear(fault)
    healthy.wait_healthy_a()


def test_restarted_node_makes_transporter_flapping_true(healthy: Stack):
    """Near the end: the reconnects stay in the rule's 15-minute window and keep it true."""
    for _ in range(3):
        healthy.sim_a.stop_node(2)
        healthy.sim_a.start_node(2)
    assert healthy.wait_for_alert("NdbTransporterFlapping", healthy.exporter_a, node_id="1")


def test_send_overload_makes_transporter_overloaded_true(stack: Stack):
    """After the flapping test, which leaves A's NdbTransporterFlapping true. The overload
    counters only ever go up: once the fault is cleared the node has no overloaded link,
    while `rate(...[5m]) > 0` keeps the expression true for the rule's 5 minutes."""
    sim, exporter = stack.sim_a, stack.exporter_a
    sim.reset()
    node, remote = OVERLOADED_LINK
    sim.fault("send-overload", node=int(node), remote=int(remote))
    found = stack.wait_for_alert("NdbTransporterOverloaded", exporter)
    assert {metric["node_id"] for metric in found} == {node}
    sender = f'instance="{exporter.address}",node_id="{node}"'
    overloads = stack.wait_for_query(
        f"ndb_transporter_overloads_total{{{sender}}} > 0",
        FAULT_SECONDS,
        "the overload counter of the node to rise",
    )
    sim.clear("send-overload")
    stack.wait_for_query(
        f"ndb_transporter_overloaded_links{{{sender}}} == 0",
        RECOVERY_SECONDS,
        "the node's links to leave overload",
    )
    for name, prometheus in stack.servers.items():
        assert not prometheus.query(
            f'ndb_transporter_overloaded_links{{instance="{exporter.address}"}} > 0'
        )
        after = prometheus.query(f"ndb_transporter_overloads_total{{{sender}}}")
        assert float(after[0]["value"][1]) >= float(overloads[name][0]["value"][1])
        assert prometheus.query(f"resets(ndb_transporter_overloads_total{{{sender}}}[5m]) == 0")


def test_latency_degradation_makes_operation_latency_high_true(stack: Stack):
    """Near the end: the 5-minute rate keeps the slow operations, and the expression true,
    for 5 minutes after the fault is cleared."""
    sim, exporter = stack.sim_a, stack.exporter_a
    sim.reset()
    sim.fault("latency-degradation", factor=50)
    found = stack.wait_for_alert("NdbOperationLatencyHigh", exporter)
    assert {metric["node_id"] for metric in found} == {"1", "2", "3", "4"}
    assert {metric["operation"] for metric in found} == {"key"}
    sim.reset()


def test_restarts_make_restarted_and_restart_loop_true(stack: Stack):
    """Near the end: three restarts of data node 2 stay in the rules' windows and keep both
    alerts true for the rest of the module. Before each stop, a scrape of the started node
    with an uptime longer than the next restart's first scrape can show, so that each
    restart is a drop of the uptime: an uptime of this start (not more than the cluster
    seconds since it), scraped after it."""
    sim, exporter = stack.sim_a, stack.exporter_a
    sim.reset()
    selector = f'instance="{exporter.address}",node_id="2"'
    for _ in range(3):
        sim.stop_node(2)
        sim.start_node(2)
        started = time.time()
        since_start = f"(time() - {started}) * {SPEED_A} + {RESTART_SECONDS}"
        stack.wait_for_query(
            f"ndb_data_node_uptime_seconds{{{selector}}} > {5 * RESTART_SECONDS} < {since_start}"
            f" and timestamp(ndb_data_node_uptime_seconds{{{selector}}}) > {started}",
            FAULT_SECONDS,
            "data node 2 scraped a while after its start",
        )
    for alert in sorted(RESTART_ALERTS):
        assert stack.wait_for_alert(alert, exporter, node_id="2")


# The GCI must stay for the minute of NdbGlobalCheckpointStalled's comparison.
GCP_STALL_SECONDS = 120.0


def test_gcp_save_lag_makes_checkpoint_and_redo_alerts_true(stack: Stack):
    """Near the end: the redo IO lag's 5-minute rate keeps NdbRedoWritesLagging true after the
    fault is cleared. A slow redo disk: GCP_SAVE lags, the GCI stays while the micro GCPs go
    on (the SQL node's commit epoch moves within one GCI), and every data node's LDM threads
    count the redo IO lag; the checkpoint alert is true once, for the cluster."""
    sim, exporter = stack.sim_a, stack.exporter_a
    sim.reset()
    sim.fault("gcp-save-lag")
    found = stack.wait_for_alert("NdbRedoWritesLagging", exporter)
    assert {metric["node_id"] for metric in found} == {"1", "2", "3", "4"}
    found = wait_until(
        lambda: stack.matches("NdbGlobalCheckpointStalled", exporter),
        GCP_STALL_SECONDS,
        f"NdbGlobalCheckpointStalled to be true via {exporter.address}",
        interval=1.0,
    )
    assert {metric["cluster"] for metric in found} == {CLUSTER}
    assert all("node_id" not in metric and "instance" not in metric for metric in found)
    epoch = f'ndb_sql_last_commit_epoch{{instance="{exporter.address}"}}'
    for prometheus in stack.servers.values():
        assert prometheus.query(f"{epoch} > {epoch} offset 1m")  # the micro GCPs went on
    sim.reset()
    wait_until(
        lambda: stack.quiet("NdbGlobalCheckpointStalled", exporter),
        RECOVERY_SECONDS,
        "NdbGlobalCheckpointStalled quiet once GCP_SAVE caught up",
        interval=1.0,
    )


# NdbThreadBufferFull averages the last-second samples over 5 minutes: at the fault's 30% of
# the TC threads' time, a minute of samples passes 5%.
CONGESTION_SECONDS = 120.0


def test_overload_faults_make_slowdown_and_buffer_full_true(stack: Stack):
    """Near the end: both alerts read 5-minute windows that keep them true after the faults
    are cleared. An overloaded link is also in slowdown (send-overload); an overloaded LDM
    thread congests the job buffers of the TC and receive threads that send it signals
    (job-buffer-congestion), not those of the send threads."""
    sim, exporter = stack.sim_a, stack.exporter_a
    sim.reset()
    sender = OVERLOADED_LINK[0]
    sim.fault("send-overload", node=int(sender), remote=int(OVERLOADED_LINK[1]))
    sim.fault("job-buffer-congestion", node=1)
    found = stack.wait_for_alert("NdbTransporterSlowdown", exporter, node_id=sender)
    assert {metric["node_id"] for metric in found} == {sender}
    found = wait_until(
        lambda: stack.matches("NdbThreadBufferFull", exporter),
        CONGESTION_SECONDS,
        "NdbThreadBufferFull to be true",
        interval=1.0,
    )
    assert {(metric["node_id"], metric["thread"]) for metric in found} <= {
        ("1", "tc"),
        ("1", "recv"),
    }
    sim.reset()


def test_operation_errors_make_operation_errors_high_true(stack: Stack):
    """Near the end: the 5-minute rates keep the errors, and the expression true, for 5
    minutes after the fault is cleared. One error per success, so that the 5-minute ratio
    passes 5% within the wait (about 15 s of errors)."""
    sim, exporter = stack.sim_a, stack.exporter_a
    sim.reset()
    sim.fault("operation-errors", share=1.0)
    # each node passes the thresholds on its own rates, so each is waited for
    for node in ("1", "2", "3", "4"):
        stack.wait_for_alert(
            "NdbOperationErrorsHigh", exporter, operation="transaction", node_id=node
        )
    sim.reset()


def test_transaction_aborts_make_transaction_aborts_high_true(stack: Stack):
    """Near the end: the 5-minute rates keep the aborts, and the expression true, for 5
    minutes after the fault is cleared. Every transaction aborts, so that the 5-minute ratio
    passes 5% within the wait. The SQL node's own counters: the alert names its instance."""
    sim, exporter = stack.sim_a, stack.exporter_a
    sim.reset()
    sim.fault("transaction-aborts", share=1.0)
    found = stack.wait_for_alert("NdbTransactionAbortsHigh", exporter)
    assert {metric["instance"] for metric in found} == {exporter.address}
    assert stack.quiet("NdbTransactionAbortsHigh", stack.exporter_b)
    sim.reset()


def test_disk_page_buffer_misses_make_hit_ratio_low_true(stack: Stack):
    """Near the end: the 5-minute rates keep the misses, and the expression true, for
    5 minutes after the fault is cleared. Data node 1 never restarts in this module: it is
    past its cache's warm-up; the others may have restarted within the last 30 minutes."""
    sim, exporter = stack.sim_a, stack.exporter_a
    sim.reset()
    sim.fault("disk-page-buffer-misses", share=0.2)
    stack.wait_for_alert("NdbDiskPageBufferHitRatioLow", exporter, node_id="1")
    sim.reset()
    requests = f'ndb_disk_page_buffer_page_requests_total{{instance="{exporter.address}"'
    stack.wait_for_query(
        f'min(sum without (result) (increase({requests}, result="direct_return"}}[20s]))'
        f' / sum without (result) (increase({requests}, result=~"direct_return|wait_io"}}[20s])))'
        " > 0.95",
        RECOVERY_SECONDS,
        "the disk page buffer to serve the new requests again",
    )
