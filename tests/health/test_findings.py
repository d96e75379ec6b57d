"""The findings of every check from ScrapeResult-shaped data."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import replace

import pytest
import yaml
from ndbinfo_exporter.health import findings, placement
from ndbinfo_exporter.health.findings.management import NO_MANAGEMENT_SERVER
from ndbinfo_exporter.health.samples import Samples

from tests.health.scrape_data import (
    arbitration,
    cluster,
    config_of,
    later,
    links,
    placement_rows,
    view_of,
)


def evaluate(result, previous=None, rows=None, groups=None):
    data = placement.build(rows, 1, result.finished_at) if rows is not None else None
    view = view_of(result, previous, groups or {})
    before = Samples(previous.families) if previous is not None else None
    inputs = findings.Inputs(view, Samples(result.families), config_of(result), data, before)
    return {f.id: f for f in findings.evaluate(inputs)}


def test_healthy_cluster_has_only_read_backup_problem():
    found = evaluate(cluster(), rows=placement_rows())
    problems = {k for k, f in found.items() if f.status == "problem"}
    assert problems == {"read_backup_off"}
    names = {e.label: e.value for e in found["read_backup_off"].evidence}
    assert names["tables"] == "app.t0"
    assert found["dead_replicas"].status == "ok"


def test_dead_replicas_finding_names_the_stopped_node():
    result = cluster(stopped=(2,))
    found = evaluate(result, rows=placement_rows(stopped=(2,)), groups={2: 0})
    dead = found["dead_replicas"]
    assert (dead.status, dead.severity) == ("problem", "critical")
    evidence = {e.label: e.value for e in dead.evidence}
    assert evidence["stopped"] == "data node 2"
    assert dead.summary.endswith("; data node 2 stopped.")
    assert evidence["node group 0"] == "1 of 2 running"
    # the survivor holds every primary of its group: that is not reported as imbalance
    assert found["unbalanced_primaries"].status == "ok"


def test_an_inactive_data_node_is_not_a_stopped_one():
    """RonDB's NodeActive=0 (the management server's configuration): data node 2 never started;
    its dead replicas and its place in node group 0 do not count, and the view says so."""
    from ndbinfo_exporter.scrape.mgmd.configuration import DataNodeConfig
    from ndbinfo_exporter.scrape.mgmd.reader import active_family
    from prometheus_client.core import GaugeMetricFamily

    dead = GaugeMetricFamily("ndb_replicas", "t", labels=["node_id", "state"])
    dead.add_metric(["2", "dead"], 20)
    configured = [DataNodeConfig(n, n != 2, 0 if n < 3 else 1) for n in (1, 2, 3, 4)]
    result = with_families(cluster(stopped=(2,)), dead, active_family(configured))
    found = evaluate(result, rows=placement_rows(stopped=(2,)), groups={2: 0})["dead_replicas"]
    assert (found.status, found.summary) == ("ok", "Every fragment has all its replicas alive.")
    evidence = {e.label: e.value for e in found.evidence}
    assert evidence["not active"] == "data node 2"
    assert evidence["dead replicas on active data nodes"] == "0"
    (group,) = [g for g in view_of(result, None, {}).topology.node_groups if g.nodegroup == 0]
    assert [(n.node_id, n.state, n.active) for n in group.nodes] == [
        (1, "STARTED", True),
        (2, "INACTIVE", False),
    ]


def test_efficiency_findings_fire_on_low_pruning_and_many_round_trips():
    first = cluster()
    second = later(
        first,
        30,
        ndb_sql_api_scans_total=1200,
        ndb_sql_api_pruned_scans_total=820,
        ndb_sql_api_round_trips_total=4000,
        ndb_sql_api_transactions_committed_total=1100,
    )
    found = evaluate(second, previous=first)
    assert found["low_partition_pruning"].status == "problem"
    assert found["many_round_trips"].status == "problem"
    assert (
        "30 s apart" in {e.label: e.value for e in found["many_round_trips"].evidence}["measured"]
    )


def test_thresholds_for_memory_primaries_config_and_lcp():
    found = evaluate(
        cluster(
            data_memory={1: 0.97},
            primaries={1: 60, 2: 20, 3: 40, 4: 40},
            inconsistent={"MaxNoOfConcurrentOperations": {1: 1, 2: 2}},
            lcp_completed_gci=1000,
            current_gci=5000,
        )
    )
    assert (found["data_memory_full"].status, found["data_memory_full"].severity) == (
        "problem",
        "critical",
    )
    assert found["unbalanced_primaries"].status == "problem"
    assert found["config_inconsistent"].status == "problem"
    assert found["lcp_old"].status == "problem"
    assert list(found)[0] == "data_memory_full"  # critical problems first


def test_missing_collectors_give_unknown_not_errors():
    from tests.health.scrape_data import Result, gauge

    found = evaluate(Result(families=[gauge("ndb_up")]))
    without_management = {f.id for f in found.values() if f.summary == NO_MANAGEMENT_SERVER}
    assert without_management == {"backup_failed", "backup_not_completed", "mgmd_unreachable"}
    assert {f.status for f in found.values() if f.id not in without_management} == {"unknown"}


def test_whole_cluster_down_is_a_critical_finding_and_no_check_passes():
    from tests.health.scrape_data import Result, gauge

    error = "1296 (HY000): Got error 4009 'Cluster Failure' from NDB"
    down = Result(
        families=[
            gauge("ndb_up"),
            gauge("ndb_sql_data_nodes_ready", value=0),
            gauge("ndb_sql_data_nodes_configured", value=2),
        ],
        collector_errors={"nodes": error, "memoryusage": error},
    )
    found = evaluate(down)
    seen = found["cluster_not_visible"]
    assert (seen.status, seen.severity) == ("problem", "critical")
    assert seen.summary.startswith("No data node is ready")
    assert error in seen.summary
    assert list(found)[0] == "cluster_not_visible"
    assert {f.status for k, f in found.items() if k != "cluster_not_visible"} == {"unknown"}
    # Checks that pass on the SQL node's own counters are not judged with the cluster down.
    counted = evaluate(replace(cluster(), collector_errors={"nodes": error}))
    assert counted["many_round_trips"].status == "ok"
    down_counted = replace(
        cluster(),
        families=[f for f in cluster().families if f.name != "ndb_sql_data_nodes_ready"]
        + [gauge("ndb_sql_data_nodes_ready", value=0)],
        collector_errors={"nodes": error},
    )
    judged = evaluate(down_counted)["many_round_trips"]
    assert judged.status == "unknown"
    assert judged.summary.startswith("Not judged while no data node is ready.")
    config = config_of(down)
    assert config.unknown is None or "config" in config.unknown
    assert config_of(replace(down, collector_errors={"config": error})).unknown == (
        f"the config collector failed: {error}"
    )


def without_ndb(state: str, families=()):
    """What a scrape of a SQL node without NDB gives: the exporter's own families and, on an
    NDB build, the SQL node's status."""
    from tests.health.scrape_data import Result, gauge

    return Result(
        families=[
            gauge("ndb_up"),
            gauge("ndb_version_info", {"version": "10.11.6-MariaDB", "ndb_version": "0.0.0"}),
            gauge("ndb_engine_visibility", {"state": state}),
            *families,
        ]
    )


@pytest.mark.parametrize(
    ("state", "cause"),
    [
        ("engine_absent", "the SQL node has no ndbcluster storage engine, or it is disabled"),
        ("ndbinfo_absent", "the SQL node has the ndbcluster engine but no ndbinfo schema"),
        ("privilege_missing", "the exporter's account may not read the ndbinfo schema"),
    ],
)
def test_ndb_not_visible_is_a_critical_finding_and_no_check_passes(state, cause):
    found = evaluate(without_ndb(state))
    seen = found["ndb_not_visible"]
    assert (seen.status, seen.severity) == ("problem", "critical")
    assert seen.summary.startswith("NDB is not visible through SQL node 127.0.0.1:3306: " + cause)
    assert {e.label: e.value for e in seen.evidence} == {
        "state": state,
        "SQL node version": "10.11.6-MariaDB",
    }
    assert "ndb_engine_visibility" in seen.promql
    assert "information_schema.ENGINES" in seen.sql
    assert list(found)[0] == "ndb_not_visible"
    assert [k for k, f in found.items() if f.status == "problem"] == ["ndb_not_visible"]
    assert view_of(without_ndb(state), None, {}).sql_node.ndb_visibility == state


def test_counters_of_a_sql_node_without_ndbinfo_are_not_judged():
    from tests.health.scrape_data import counter

    counters = [
        counter("ndb_sql_api_round_trips_total", 3000.0),
        counter("ndb_sql_api_transactions_committed_total", 1000.0),
    ]
    judged = evaluate(without_ndb("privilege_missing", counters))["many_round_trips"]
    assert judged.status == "unknown"
    assert judged.summary.startswith("Not judged while NDB is not visible.")
    assert evaluate(cluster())["ndb_not_visible"].status == "ok"


def test_a_failed_collector_is_a_warning_naming_it():
    result = replace(cluster(), collector_errors={"transporters": "timed out after 9.5s"})
    seen = evaluate(result)["cluster_not_visible"]
    assert (seen.status, seen.severity) == ("problem", "warning")
    assert {e.label: e.value for e in seen.evidence} == {
        "collector transporters": "timed out after 9.5s"
    }
    same = {"nodes": "1296 x", "config": "1296 x", "threads": "timed out"}
    grouped = evaluate(replace(cluster(), collector_errors=same))["cluster_not_visible"]
    assert {e.label: e.value for e in grouped.evidence} == {
        "2 collectors": "1296 x (config, nodes)",
        "collector threads": "timed out",
    }
    assert evaluate(cluster())["cluster_not_visible"].status == "ok"


def test_lost_arbitrator_is_a_finding():
    healthy = evaluate(arbitration(cluster(), arbitrator=49))["no_arbitrator"]
    assert healthy.status == "ok"
    lost = evaluate(arbitration(cluster(), arbitrator=0))["no_arbitrator"]
    assert (lost.status, lost.severity) == ("problem", "warning")
    assert {e.value for e in lost.evidence} == {"no arbitrator, not connected, not in ARBIT_RUN"}


def test_overloaded_transporter_now_or_since_the_previous_scrape():
    first = links(cluster(), overloaded={}, overloads=5)
    assert evaluate(first)["transporter_overloaded"].status == "ok"
    now = links(cluster(), overloaded={("1", "2")}, overloads=5)
    found = evaluate(now, previous=first)["transporter_overloaded"]
    assert found.status == "problem"
    assert {e.label: e.value for e in found.evidence} == {"node 1 → node 2": "overloaded now"}
    grew = replace(links(cluster(), overloaded={}, overloads=9), finished_at=1015.0)
    found = evaluate(grew, previous=first)["transporter_overloaded"]
    assert found.summary.startswith("2 of 2 transporters")
    assert found.evidence[0].value == "4 overloads since the previous scrape"


def test_several_full_nodes_are_named_in_the_summary():
    found = evaluate(cluster(data_memory={1: 0.97, 2: 0.96, 3: 0.5, 4: 0.5}))
    assert found["data_memory_full"].summary == (
        "Data nodes 1 and 2 use up to 97.0 % of their DataMemory."
    )
    one = evaluate(cluster(data_memory={1: 0.85, 2: 0.5, 3: 0.5, 4: 0.5}))["data_memory_full"]
    assert (one.summary, one.severity) == ("Data node 1 uses 85.0 % of its DataMemory.", "warning")


@pytest.mark.skipif(
    shutil.which("promtool") is None, reason="promtool (Debian package prometheus) is missing"
)
@pytest.mark.integration
def test_every_findings_promql_parses(tmp_path):
    expressions = {f.id: f.promql for f in evaluate(cluster()).values()}
    rules = {
        "groups": [
            {
                "name": "findings",
                "rules": [
                    {"record": f"view:{name}", "expr": expr} for name, expr in expressions.items()
                ],
            }
        ]
    }
    path = tmp_path / "findings.yml"
    path.write_text(yaml.safe_dump(rules))
    checked = subprocess.run(
        ["promtool", "check", "rules", str(path)], capture_output=True, text=True
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_send_buffer_and_tablespace_findings():
    from tests.health.scrape_data import Result, gauge

    def families(allocated: float, free: float) -> list:
        node, data = {"node_id": "3"}, {"type": "DATAFILE", "filegroup": "ts_1", "file": "./d.dat"}
        undo = {"type": "UNDO LOG", "filegroup": "lg_1", "file": "./u.log"}
        return [
            gauge("ndb_up"),
            gauge("ndb_send_buffer_allocated_bytes", node, allocated),
            gauge("ndb_send_buffer_limit_bytes", node, 100.0),
            gauge("ndb_disk_data_file_free_bytes", data, free),
            gauge("ndb_disk_data_file_size_bytes", data, 100.0),
            gauge("ndb_disk_data_file_free_bytes", undo, 1.0),
            gauge("ndb_disk_data_file_size_bytes", undo, 100.0),
        ]

    found = evaluate(Result(families=families(allocated=10, free=60)))
    assert found["send_buffers_full"].status == "ok"
    assert found["tablespace_full"].status == "ok"
    assert {e.label: e.value for e in found["tablespace_full"].evidence} == {
        "tablespace ts_1": "40.0 %"
    }
    found = evaluate(Result(families=families(allocated=97, free=15)))
    send, space = found["send_buffers_full"], found["tablespace_full"]
    assert (send.status, send.severity) == ("problem", "critical")
    assert (space.status, space.severity) == ("problem", "warning")
    assert space.summary == "Tablespace ts_1 is 85.0 % used."


def test_replica_card_lists_channels_and_applied_gcis():
    from tests.health.scrape_data import Channel, replication

    result = replication(
        cluster(),
        channels=(
            Channel(
                behind=4.0,
                relay_log_space=1355,
                retries=2,
                workers=((2, "off", 1032), (1, "on", 0)),
            ),
            Channel(name="east", source_server_id=7, workers=((0, "on", 0),)),
        ),
        applied={7: 8812, 1: 9001},
    )
    card = view_of(result).replication
    assert card.replicating
    assert [
        (c.channel, c.io_thread, c.sql_thread, c.seconds_behind_source) for c in card.channels
    ] == [
        ("", "yes", "yes", 4.0),
        ("east", "yes", "yes", 0.0),
    ]
    assert (card.channels[1].source_server_id, card.channels[1].last_sql_error_number) == (7, 0)
    default, east = card.channels
    assert (default.relay_log_space_bytes, default.transaction_retries) == (1355, 2)
    assert [(w.worker, w.state, w.last_error_number) for w in default.workers] == [
        (1, "on", 0),
        (2, "off", 1032),
    ]
    assert (east.relay_log_space_bytes, east.transaction_retries) == (None, None)
    assert [(w.worker, w.state) for w in east.workers] == [(0, "on")]
    assert [(a.server_id, a.applied_gci) for a in card.applied] == [(1, 9001), (7, 8812)]
    assert card.binlog is None
    found = evaluate(result)
    replicating = {k: f for k, f in found.items() if k in REPLICATION_CHECKS}
    assert {f.status for f in replicating.values()} == {"ok"}
    assert found["binlog_injector_behind"].summary.endswith("it is no binlog server.")
    assert {e.label: e.value for e in found["replication_lag_high"].evidence} == {
        "the default channel": "4 s behind the source",
        "channel 'east'": "0 s behind the source",
    }


REPLICATION_CHECKS = {
    "replication_stopped",
    "binlog_gap",
    "replication_lag_high",
    "binlog_injector_behind",
    "event_buffer_backlog",
}


def test_stopped_channel_and_binlog_gap_are_critical():
    from tests.health.scrape_data import Channel, replication

    result = replication(
        cluster(),
        channels=(
            Channel(sql="no", sql_error=1590, behind=None),
            Channel(name="east", io="connecting", io_error=2003),
        ),
    )
    card = view_of(result).replication
    assert card.channels[0].seconds_behind_source is None
    found = evaluate(result)
    stopped, gap = found["replication_stopped"], found["binlog_gap"]
    assert (stopped.status, stopped.severity) == ("problem", "critical")
    assert stopped.summary.startswith(
        "Replication is stopped on the default channel and channel 'east'"
    )
    assert {e.label: e.value for e in stopped.evidence} == {
        "the default channel": "I/O yes (error 0), SQL no (error 1590)",
        "channel 'east'": "I/O connecting (error 2003), SQL yes (error 0)",
    }
    assert (gap.status, gap.severity) == ("problem", "critical")
    assert gap.summary.startswith("Replication on the default channel stopped on error 1590")
    assert [e.label for e in gap.evidence] == ["the default channel"]
    assert found["replication_lag_high"].status == "ok"
    assert list(found)[:2] == ["replication_stopped", "binlog_gap"]


def test_replica_behind_its_source_is_a_warning():
    from tests.health.scrape_data import Channel, replication

    found = evaluate(replication(cluster(), channels=(Channel(behind=301.0),)))
    lag = found["replication_lag_high"]
    assert (lag.status, lag.severity) == ("problem", "warning")
    assert lag.summary == "Replication on the default channel is more than 300 s behind the source."
    assert "> 150" in lag.promql and "> 300" in lag.promql
    ok = evaluate(replication(cluster(), channels=(Channel(behind=300.0),)))
    assert ok["replication_lag_high"].status == "ok"


def test_binlog_server_card_and_injector_findings():
    from tests.health.scrape_data import replication

    gcis = {"buffered": 5020, "received": 5005, "handled": 5000, "written": 4998}
    result = replication(cluster(current_gci=5031), binlog=gcis, server_id=1)
    card = view_of(result).replication
    assert card.replicating and card.channels == [] and card.applied == []
    injector = card.binlog
    assert (injector.server_id, injector.buffered_gci, injector.written_gci) == (1, 5020, 4998)
    assert (injector.committed_gci, injector.injector_lag_gcis) == (5031, 31)
    assert injector.event_buffer_gcis == 15
    found = evaluate(result)
    behind, backlog = found["binlog_injector_behind"], found["event_buffer_backlog"]
    assert (behind.status, behind.severity) == ("problem", "warning")
    assert behind.summary == "The binlog injector's lag is 31 GCIs (threshold 30)."
    assert {e.label: e.value for e in behind.evidence}["handled GCI"] == "5,000"
    assert (backlog.status, backlog.summary) == (
        "problem",
        "The event buffer is 15 GCIs (threshold 10).",
    )
    assert found["replication_stopped"].summary.endswith("it is not a replica.")
    unknown_id = replication(cluster(), binlog=gcis, server_id="")
    assert view_of(unknown_id).replication.binlog.server_id is None
    calm = {"buffered": 5030, "received": 5029, "handled": 5025, "written": 5024}
    quiet = evaluate(replication(cluster(current_gci=5031), binlog=calm))
    assert {quiet[k].status for k in REPLICATION_CHECKS} == {"ok"}
    assert quiet["event_buffer_backlog"].summary == "The event buffer is 1 GCI (threshold 10)."


def conflict_handling(result, last_conflict_gci: int, last_stable_gci: int, max_rep_gci: int):
    """``result`` with the conflict families of the status and conflict_exceptions collectors,
    epochs as a NDB$EPOCH primary records them (GCI << 32 | micro GCP, 0 for none)."""
    from tests.health.scrape_data import counter, gauge

    gcis = {
        "ndb_sql_conflict_last_conflict_epoch": last_conflict_gci,
        "ndb_sql_conflict_last_stable_epoch": last_stable_gci,
        "ndb_sql_replica_max_replicated_epoch": max_rep_gci,
    }
    families = [gauge(name, value=gci << 32 | 3 if gci else 0) for name, gci in gcis.items()]
    families += [
        counter("ndb_sql_conflict_transactions_rejected", 4),
        counter("ndb_sql_conflict_refresh_operations", 12),
        counter("ndb_sql_conflicts", 9, {"function": "NDB$EPOCH2"}),
        counter("ndb_sql_conflicts", 0, {"function": "NDB$MAX"}),
        gauge("ndb_conflict_exceptions_rows", {"database": "shop", "table": "t1$EX"}, 9),
        gauge("ndb_conflict_exceptions_rows", {"database": "shop", "table": "t2$EX"}, 2),
    ]
    return replace(result, families=[*result.families, *families])


def test_conflict_handling_tells_whether_the_pair_converged():
    from tests.health.scrape_data import Channel, counter, gauge, replication

    replica = replication(cluster(), channels=(Channel(),))
    diverged = view_of(conflict_handling(replica, 5020, 5012, 5012)).replication.conflicts
    assert (diverged.last_conflict_gci, diverged.last_stable_gci) == (5020, 5012)
    assert diverged.converged is False
    assert diverged.rows_in_conflict == {"NDB$EPOCH2": 9}
    assert (diverged.transactions_rejected, diverged.refresh_operations) == (4, 12)
    assert diverged.exceptions_rows == 11
    converged = view_of(conflict_handling(replica, 5020, 5025, 5025)).replication
    assert converged.conflicts.converged is True
    # Without epochs coming back round (a one-way replica) convergence cannot be told.
    one_way = view_of(conflict_handling(cluster(), 5020, 0, 0)).replication
    assert one_way.replicating and one_way.conflicts.converged is None
    assert view_of(replica).replication.conflicts is None
    zeros = [
        gauge("ndb_sql_conflict_last_conflict_epoch", value=0),
        gauge("ndb_sql_conflict_last_stable_epoch", value=0),
        counter("ndb_sql_conflict_transactions_rejected", 0),
        counter("ndb_sql_conflicts", 0, {"function": "NDB$MAX"}),
    ]
    no_conflict = replace(replica, families=[*replica.families, *zeros])
    assert view_of(no_conflict).replication.conflicts is None


def test_not_replicating_is_quiet_and_unread_collectors_are_unknown():
    from tests.health.scrape_data import replication

    none = replication(cluster())
    card = view_of(none).replication
    assert (card.replicating, card.channels, card.applied, card.binlog) == (False, [], [], None)
    found = evaluate(none)
    assert {found[k].status for k in REPLICATION_CHECKS} == {"ok"}
    assert [k for k, f in found.items() if f.status == "problem"] == ["read_backup_off"]
    # Collectors off or failed: the checks cannot tell, and the card says nothing either.
    unread = evaluate(replication(cluster(), read=()))
    assert {unread[k].status for k in REPLICATION_CHECKS} == {"unknown"}
    assert unread["replication_stopped"].summary == "The replica_status collector gave no data."
    assert not view_of(cluster()).replication.replicating


def with_families(result, *families):
    """``result`` with ``families`` added, each in place of the family of its name."""
    names = {f.name for f in families}
    return replace(
        result, families=[f for f in result.families if f.name not in names] + [*families]
    )


def node_info(versions: dict[tuple[int, str], str]):
    from prometheus_client.core import GaugeMetricFamily

    info = GaugeMetricFamily(
        "ndb_node_info",
        "t",
        labels=["node_id", "node_type", "hostname", "node_version", "process_name"],
    )
    for (node, kind), version in versions.items():
        info.add_metric([str(node), kind, f"host{node}", version, "p"], 1)
    return info


def node_gauge(name: str, values: dict[int, float]):
    """A gauge with one value per data node."""
    from prometheus_client.core import GaugeMetricFamily

    family = GaugeMetricFamily(name, "t", labels=["node_id"])
    for node, value in values.items():
        family.add_metric([str(node)], value)
    return family


def config_generations(generations: dict[int, float]):
    return node_gauge("ndb_data_node_config_generation", generations)


def test_version_skew_lists_each_version_with_its_data_and_management_nodes():
    versions = {(1, "NDB"): "8.4.10", (2, "NDB"): "8.4.10", (3, "NDB"): "8.4.9"}
    versions |= {(4, "NDB"): "8.4.9", (49, "MGM"): "8.4.10", (51, "API"): "8.0.40", (52, "API"): ""}
    skew = evaluate(with_families(cluster(), node_info(versions)))["version_skew"]
    assert (skew.status, skew.severity) == ("problem", "warning")
    assert skew.summary.startswith(
        "Data and management nodes run 2 NDB versions (8.4.9 and 8.4.10)"
    )
    assert [(e.label, e.value) for e in skew.evidence] == [
        ("NDB 8.4.9", "data nodes 3 and 4"),
        ("NDB 8.4.10", "data nodes 1 and 2, management node 49"),
    ]
    assert "ndbinfo.processes" in skew.sql and "NdbVersionSkew" in skew.advice
    same = evaluate(cluster())["version_skew"]
    assert (same.status, same.summary) == (
        "ok",
        "Every connected data and management node runs NDB 8.4.3.",
    )
    assert [(e.label, e.value) for e in same.evidence] == [
        ("NDB 8.4.3", "data nodes 1, 2, 3 and 4, management node 49")
    ]
    absent = replace(
        cluster(), families=[f for f in cluster().families if f.name != "ndb_node_info"]
    )
    unread = evaluate(absent)["version_skew"]
    assert (unread.status, unread.summary) == ("unknown", "The processes collector gave no data.")


def test_config_generation_skew_names_the_nodes_behind():
    behind = with_families(cluster(), config_generations({1: 2, 2: 2, 3: 1, 4: 2}))
    skew = evaluate(behind)["config_generation_skew"]
    assert (skew.status, skew.severity) == ("problem", "info")
    assert skew.summary.startswith(
        "Data node 3 runs an older configuration generation than the newest (2)"
    )
    assert [(e.label, e.value) for e in skew.evidence] == [
        ("generation 2", "data nodes 1, 2 and 4"),
        ("generation 1", "data node 3"),
    ]
    two = with_families(cluster(), config_generations({1: 3, 2: 3, 3: 1, 4: 2}))
    assert evaluate(two)["config_generation_skew"].summary.startswith(
        "Data nodes 3 and 4 run an older configuration generation than the newest (3)"
    )
    same = evaluate(with_families(cluster(), config_generations({1: 2, 2: 2, 3: 2, 4: 2})))
    assert same["config_generation_skew"].status == "ok"
    unread = evaluate(cluster())["config_generation_skew"]  # cluster() has no nodes family
    assert (unread.status, unread.summary) == ("unknown", "The nodes collector gave no data.")


def disk_page_buffer(
    requests: dict[int, tuple[float, float]], uptimes: dict[int, float], memory: float
) -> list:
    """ndbinfo.diskpagebuffer's requests per node as (direct_return, wait_io), the nodes'
    uptimes and DiskPageBufferMemory."""
    from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

    pages = CounterMetricFamily(
        "ndb_disk_page_buffer_page_requests", "t", labels=["node_id", "result"]
    )
    uptime = GaugeMetricFamily("ndb_data_node_uptime_seconds", "t", labels=["node_id"])
    config = GaugeMetricFamily("ndb_config_value", "t", labels=["node_id", "param"])
    for node, (hits, misses) in requests.items():
        pages.add_metric([str(node), "direct_return"], hits)
        pages.add_metric([str(node), "wait_queue"], hits)  # counts neither way
        pages.add_metric([str(node), "wait_io"], misses)
        uptime.add_metric([str(node)], uptimes[node])
        config.add_metric([str(node), "DiskPageBufferMemory"], memory)
    return [pages, uptime, config]


def test_disk_page_buffer_hit_ratio_per_node_with_its_memory():
    mib64 = 64 * 2**20
    uptimes = {1: 3600, 2: 3600, 3: 600, 4: 3600}
    since_start = {
        1: (90_000, 10_000),  # 90 % of 27.8 requests a second
        2: (99_000, 1_000),  # 99 %
        3: (50_000, 50_000),  # started 10 minutes ago: its cache is still cold
        4: (100, 100),  # 0.06 requests a second: too few to judge
    }
    first = with_families(cluster(), *disk_page_buffer(since_start, uptimes, mib64))
    found = evaluate(first)["disk_page_buffer_hit_low"]
    assert (found.status, found.severity) == ("problem", "warning")
    assert found.summary == (
        "Data node 1 serves only 90.0 % of its disk data page requests from the disk page "
        "buffer (threshold 95.0 %): raise DiskPageBufferMemory."
    )
    assert [(e.label, e.value) for e in found.evidence] == [
        ("node 1", "90.0 % hits, 28 requests/s; DiskPageBufferMemory 64 MiB"),
        ("node 2", "99.0 % hits, 28 requests/s; DiskPageBufferMemory 64 MiB"),
        (
            "node 3",
            "50.0 % hits, 167 requests/s; DiskPageBufferMemory 64 MiB; "
            "warming up (started 600 s ago)",
        ),
        (
            "node 4",
            "50.0 % hits, 0 requests/s; DiskPageBufferMemory 64 MiB; too few requests to judge",
        ),
    ]
    # a minute later node 1 served 97 % of 100 requests a second: judged on that minute
    later_requests = {**since_start, 1: (95_820, 10_180)}
    later_uptimes = {node: uptime + 60 for node, uptime in uptimes.items()}
    second = with_families(
        replace(cluster(), finished_at=1060.0),
        *disk_page_buffer(later_requests, later_uptimes, mib64),
    )
    found = evaluate(second, previous=first)["disk_page_buffer_hit_low"]
    assert (found.status, found.summary) == (
        "ok",
        "Every data node serves at least 95.0 % of its disk page requests from cache.",
    )
    assert [(e.label, e.value) for e in found.evidence] == [
        ("node 1", "97.0 % hits, 100 requests/s; DiskPageBufferMemory 64 MiB")
    ]
    absent = evaluate(cluster())["disk_page_buffer_hit_low"]
    assert (absent.status, absent.summary) == (
        "unknown",
        "The diskpagebuffer collector gave no data.",
    )


def test_disk_page_buffer_sized_by_automatic_memory():
    """RonDB's DiskPageBufferMemory reads 0 in the configuration: the region the data node
    reserved for it is its size."""
    from prometheus_client.core import GaugeMetricFamily

    reserved = GaugeMetricFamily("ndb_resource_reserved_bytes", "t", labels=["node_id", "resource"])
    reserved.add_metric(["1", "DISK_PAGE_BUFFER"], 96 * 2**20)
    families = disk_page_buffer({1: (99_000, 1_000)}, {1: 3600}, 0)
    found = evaluate(with_families(cluster(), *families, reserved))["disk_page_buffer_hit_low"]
    assert [(e.label, e.value) for e in found.evidence] == [
        ("node 1", "99.0 % hits, 28 requests/s; DiskPageBufferMemory 96 MiB")
    ]


def uptimes(seconds: dict[int, float]):
    return node_gauge("ndb_data_node_uptime_seconds", seconds)


def test_data_node_restarted_within_the_alerts_window():
    quiet = evaluate(cluster())["data_node_restarted"]
    assert (quiet.status, quiet.summary) == (
        "ok",
        "No data node restarted in the last 15 minutes.",
    )
    # node 2 up 14:59, node 3 up exactly 15 minutes
    restarted = with_families(cluster(), uptimes({1: 3600, 2: 899, 3: 900, 4: 3600}))
    found = evaluate(restarted)["data_node_restarted"]
    assert (found.status, found.severity) == ("problem", "warning")
    assert found.summary.startswith("Data node 2 restarted in the last 15 minutes:")
    assert [(e.label, e.value) for e in found.evidence][:3] == [
        ("node 1", "up 3,600 s"),
        ("node 2", "up 899 s"),
        ("node 3", "up 900 s"),
    ]
    unread = evaluate(with_families(cluster(), uptimes({})))["data_node_restarted"]
    assert (unread.status, unread.summary) == ("unknown", "The nodes collector gave no data.")


def tc_outcomes(outcomes: dict[tuple[int, str], tuple[float, float]], uptime: float) -> list:
    """ndbinfo.tc_time_track_stats per node and operation as (errors, successes), and the
    nodes' uptime."""
    from prometheus_client.core import CounterMetricFamily, Metric

    errors = CounterMetricFamily("ndb_tc_operation_errors", "t", labels=["node_id", "operation"])
    durations = Metric("ndb_tc_operation_duration_seconds", "t", "histogram")
    for (node, operation), (failed, succeeded) in outcomes.items():
        errors.add_metric([str(node), operation], failed)
        labels = {"node_id": str(node), "operation": operation}
        durations.add_sample("ndb_tc_operation_duration_seconds_count", labels, succeeded)
    nodes = {node for node, _ in outcomes}
    return [errors, durations, uptimes(dict.fromkeys(nodes, uptime))]


def test_operation_errors_per_node_against_the_alerts_share_and_rate():
    since_start = {
        (1, "transaction"): (3_600, 32_400),  # 10 %, one error a second
        (2, "transaction"): (7_200, 64_800),  # 10 %, 2 errors a second
        (2, "key"): (180, 35_820),  # 0.5 %
        (3, "scan"): (7_200, 136_800),  # 5 %, 2 errors a second: not over 5 %
    }
    first = with_families(cluster(), *tc_outcomes(since_start, 3600))
    found = evaluate(first)["operation_errors_high"]
    assert (found.status, found.severity) == ("problem", "warning")
    assert found.summary == (
        "Data node 2 ends up to 10.0 % of its operations in an error (threshold 5.0 %): look "
        "up the NDB error codes in the SQL nodes' warnings."
    )
    assert [(e.label, e.value) for e in found.evidence] == [
        ("node 1 transaction", "10.0 % in error, 1.0 errors/s"),
        ("node 2 key", "0.5 % in error, 0.1 errors/s"),
        ("node 2 transaction", "10.0 % in error, 2.0 errors/s"),
        ("node 3 scan", "5.0 % in error, 2.0 errors/s"),
    ]
    # a minute later node 2 had no new error: judged on that minute
    later_outcomes = {**since_start, (2, "transaction"): (7_200, 66_000)}
    second = with_families(
        replace(cluster(), finished_at=1060.0), *tc_outcomes(later_outcomes, 3660)
    )
    found = evaluate(second, previous=first)["operation_errors_high"]
    assert found.status == "ok"
    absent = evaluate(cluster())["operation_errors_high"]
    assert (absent.status, absent.summary) == ("unknown", "The tc_latency collector gave no data.")
