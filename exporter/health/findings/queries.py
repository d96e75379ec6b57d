"""Findings on how the SQL node's queries use the data nodes: scans pruned to one partition
and round trips per committed transaction."""

from __future__ import annotations

from ndbinfo_exporter.health import thresholds
from ndbinfo_exporter.health.findings.check import Check
from ndbinfo_exporter.health.findings.inputs import Inputs
from ndbinfo_exporter.health.findings.wording import count, percent
from ndbinfo_exporter.health.models import Evidence, Finding


def _window(inputs: Inputs) -> str:
    efficiency = inputs.cluster.sql_efficiency
    if efficiency.basis == "two scrapes" and efficiency.window_seconds is not None:
        return f"between the last two scrapes ({efficiency.window_seconds:.0f} s apart)"
    return "since the SQL node started (a second scrape gives a recent window)"


def pruning(check: Check, inputs: Inputs) -> Finding:
    efficiency = inputs.cluster.sql_efficiency
    if (
        efficiency.scans is None
        or efficiency.pruned_scan_ratio is None
        or efficiency.scans < thresholds.MIN_SCANS
    ):
        return check.finding(
            "unknown", f"Fewer than {thresholds.MIN_SCANS} scans {_window(inputs)}."
        )
    evidence = [
        Evidence(label="scans", value=count(efficiency.scans)),
        Evidence(label="pruned to one partition", value=count(efficiency.pruned_scans)),
        Evidence(label="pruned ratio", value=percent(efficiency.pruned_scan_ratio)),
        Evidence(label="measured", value=_window(inputs)),
    ]
    low = efficiency.pruned_scan_ratio < thresholds.PRUNED_SCAN_RATIO_LOW
    return check.finding(
        "problem" if low else "ok",
        f"{percent(efficiency.pruned_scan_ratio)} of the scans were pruned to one partition "
        f"(threshold {percent(thresholds.PRUNED_SCAN_RATIO_LOW)}).",
        evidence,
    )


LOW_PARTITION_PRUNING = Check(
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
    family="queries",
    reads=("status",),
    evaluate=pruning,
    needs_history=True,
)


def round_trips(check: Check, inputs: Inputs) -> Finding:
    efficiency = inputs.cluster.sql_efficiency
    per_commit = efficiency.round_trips_per_commit
    if (
        per_commit is None
        or efficiency.commits is None
        or efficiency.commits < thresholds.MIN_COMMITS
    ):
        return check.finding(
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
    return check.finding(
        "problem" if per_commit > thresholds.ROUND_TRIPS_PER_COMMIT_HIGH else "ok",
        f"{per_commit:.2f} round trips to the data nodes per committed transaction "
        f"(threshold {thresholds.ROUND_TRIPS_PER_COMMIT_HIGH:g}).",
        evidence,
    )


MANY_ROUND_TRIPS = Check(
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
    family="queries",
    reads=("status",),
    evaluate=round_trips,
    needs_history=True,
)
