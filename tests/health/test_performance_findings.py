"""The latency, thread, transaction and lock findings from ScrapeResult-shaped data."""

from __future__ import annotations

from dataclasses import replace

from ndbinfo_exporter.health import findings, placement
from ndbinfo_exporter.health.samples import Samples
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

from tests.health.scrape_data import cluster, config_of, placement_rows, view_of

IDS = ("hot_table_primary_reads", "ldm_saturated_tc_idle", "idle_transactions_holding_locks")


def evaluate(extra, rows=True):
    result = cluster()
    result = replace(result, families=[*result.families, *extra])
    data = placement.build(placement_rows(), 1, result.finished_at) if rows else None
    view = view_of(result, None, {})
    inputs = findings.Inputs(view, Samples(result.families), config_of(result), data)
    return {f.id: f for f in findings.evaluate(inputs)}


def key_reads(**tables: float) -> CounterMetricFamily:
    family = CounterMetricFamily("ndb_table_key_reads", "test", labels=["db", "table"])
    for table, value in tables.items():
        family.add_metric(["app", table], value)
    return family


def thread_exec(values: dict[tuple[str, str], float]) -> GaugeMetricFamily:
    family = GaugeMetricFamily(
        "ndb_thread_time_ratio", "test", labels=["node_id", "thread", "activity"]
    )
    for (node, thread), value in values.items():
        family.add_metric([node, thread, "exec"], value)
    return family


def transactions(idle: dict[str, float], held: dict[str, float]) -> list[GaugeMetricFamily]:
    inactive = GaugeMetricFamily(
        "ndb_transaction_longest_inactive_seconds", "test", labels=["node_id"]
    )
    locks = GaugeMetricFamily("ndb_locks", "test", labels=["node_id", "state"])
    for node, seconds in idle.items():
        inactive.add_metric([node], seconds)
        locks.add_metric([node, "held"], held.get(node, 0))
        locks.add_metric([node, "waiting"], 0)
    return [inactive, locks]


def test_without_the_new_collectors_the_findings_are_unknown():
    found = evaluate([])
    assert {found[i].status for i in IDS} == {"unknown"}


def test_busy_table_without_read_backup_is_a_problem():
    # t0 is the placement rows' table without READ_BACKUP
    found = evaluate([key_reads(t0=700, t1=200, t2=100)])["hot_table_primary_reads"]
    assert found.status == "problem"
    assert {e.label: e.value for e in found.evidence}["busiest table"] == "app.t0"
    assert evaluate([key_reads(t0=100, t1=700, t2=200)])["hot_table_primary_reads"].status == "ok"
    assert evaluate([key_reads(t0=290, t1=250, t2=240, t3=220)])[
        "hot_table_primary_reads"
    ].status == ("ok")


def test_saturated_ldm_beside_idle_tc_is_a_problem():
    values = {("1", "ldm"): 0.9, ("1", "tc"): 0.1, ("2", "ldm"): 0.5, ("2", "tc"): 0.1}
    found = evaluate([thread_exec(values)])["ldm_saturated_tc_idle"]
    assert found.status == "problem"
    assert "node(s) 1 " in found.summary
    busy_tc = {("1", "ldm"): 0.9, ("1", "tc"): 0.6}
    assert evaluate([thread_exec(busy_tc)])["ldm_saturated_tc_idle"].status == "ok"
    below = {("1", "ldm"): 0.84, ("1", "tc"): 0.1}
    assert evaluate([thread_exec(below)])["ldm_saturated_tc_idle"].status == "ok"


def test_idle_transaction_with_locks_held_is_a_problem():
    found = evaluate(transactions({"1": 0, "2": 300}, {"2": 5}))["idle_transactions_holding_locks"]
    assert found.status == "problem"
    assert "node(s) 2 " in found.summary
    no_locks = evaluate(transactions({"2": 300}, {}))
    assert no_locks["idle_transactions_holding_locks"].status == "ok"
    short = evaluate(transactions({"2": 60}, {"2": 5}))
    assert short["idle_transactions_holding_locks"].status == "ok"
