"""How ``check`` judges a reading: the selection by declared family, the status, UNKNOWN for
what a selected check could not judge, the management and SQL nodes that went away, and the
performance data."""

from __future__ import annotations

from dataclasses import replace

import pytest
from ndbinfo_exporter.collectors.registry import all_collectors
from ndbinfo_exporter.report import nagios
from ndbinfo_exporter.report.options import FAMILIES
from ndbinfo_exporter.view.findings.evaluation import CHECKS
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

from tests.report.recorded import judged, scrape_data
from tests.view.scrape_data import cluster, gauge

READ = ("status", "nodes", "processes", "membership", "memoryusage", "logspaces", "fragments")


def read(result, collectors=READ):
    """``result`` with these collectors succeeding, as the scrape reports them."""
    success = [gauge("ndb_exporter_collector_success", {"collector": c}) for c in collectors]
    return replace(result, families=[*result.families, *success])


def links(result, connects: dict[int, float]):
    """Data node 1's transporters to other nodes, with their connect counts."""
    family = CounterMetricFamily(
        "ndb_transporter_link_connects", "t", labels=["node_id", "remote_node_id"]
    )
    for remote, count in connects.items():
        family.add_metric(["1", str(remote)], count)
    return replace(result, families=[*result.families, family])


def test_every_check_declares_a_family_and_what_it_reads():
    assert {c.family for c in CHECKS} == set(FAMILIES)
    assert all(c.reads for c in CHECKS)
    collectors = {c.name for c in all_collectors()}
    assert {name for c in CHECKS for name in c.reads} <= collectors
    storage = nagios.select(("storage",)).checks
    assert {c.family for c in storage} == {"storage"} and len(storage) > 1


def test_a_healthy_cluster_is_ok_with_a_count_per_node_type():
    verdict = judged(read(links(cluster(), {49: 1, 51: 1, 52: 0})), "--only", "availability")
    assert verdict.code == nagios.OK, verdict.output()
    perfdata = verdict.perfdata.split()
    assert "'ndbd_nodes'=4;;;0;4" in perfdata
    assert "'ndb_mgmd_nodes'=1;;;0;1" in perfdata
    assert "'mysqld_nodes'=1;;;0;1" in perfdata  # the spare slot 52 never connected


def test_a_sql_node_that_went_away_is_a_warning():
    result = cluster()
    gone = [f for f in result.families if f.name != "ndb_node_connected"]
    connected = GaugeMetricFamily("ndb_node_connected", "t", labels=["node_id", "node_type"])
    for node, kind in ((1, "NDB"), (2, "NDB"), (3, "NDB"), (4, "NDB"), (49, "MGM")):
        connected.add_metric([str(node), kind], 1)
    connected.add_metric(["51", "API"], 0)
    connected.add_metric(["52", "API"], 0)
    result = links(replace(result, families=[*gone, connected]), {49: 1, 51: 3, 52: 0})
    verdict = judged(read(result), "--only", "nodes_gone")
    assert verdict.code == nagios.WARNING, verdict.output()
    assert "SQL/API node 51 went away" in verdict.text and "52" not in verdict.text
    assert "'mysqld_nodes'=0;;;0;1" in verdict.perfdata


def test_no_management_node_left_is_critical():
    result = cluster()
    families = [f for f in result.families if f.name != "ndb_node_connected"]
    connected = GaugeMetricFamily("ndb_node_connected", "t", labels=["node_id", "node_type"])
    connected.add_metric(["49", "MGM"], 0)
    connected.add_metric(["51", "API"], 1)
    verdict = judged(read(links(replace(result, families=[*families, connected]), {49: 1})))
    assert verdict.code == nagios.CRITICAL, verdict.output()
    assert "Management node 49 not connected" in verdict.text
    assert "'ndb_mgmd_nodes'=0;;;0;1" in verdict.perfdata


def test_a_selected_check_without_its_collector_is_unknown_and_says_which():
    verdict = judged(read(cluster()), "--only", "transporter_overloaded")
    assert verdict.code == nagios.UNKNOWN
    assert verdict.text == (
        "not judged: transporter_overloaded: The transporter_links collector gave no data"
    )


def test_replication_named_on_a_sql_node_that_does_not_replicate_is_unknown():
    result = scrape_data.replication(read(cluster()))
    named = judged(result, "--only", "replication")
    assert named.code == nagios.UNKNOWN, named.output()
    assert "it is not a replica" in named.text and "no binlog server" in named.text
    by_default = judged(result)  # nothing to judge is not a problem of the default selection
    assert "replica" not in by_default.text and "binlog" not in by_default.text


def test_a_critical_problem_outranks_what_could_not_be_judged():
    verdict = judged(read(cluster(stopped=(2,))), "--only", "dead_replicas,transporter_overloaded")
    assert verdict.code == nagios.CRITICAL
    assert verdict.text.startswith("Fragments with dead replicas: ")
    assert verdict.text.endswith(
        "(1 not judged: transporter_overloaded: The transporter_links collector gave no data)"
    )


@pytest.mark.parametrize(
    "flags, code, perfdata",
    [
        ((), nagios.OK, "'data_memory_node_1'=25%;80;95;0;100"),
        (("-w", "data_memory=20", "-c", "data_memory=30"), nagios.WARNING, ";20;30;0;100"),
        (("-w", "data_memory=10", "-c", "data_memory=20"), nagios.CRITICAL, ";10;20;0;100"),
        (("-c", "data_memory=@20:30"), nagios.CRITICAL, ";80;@20:30;0;100"),
        (("-c", "data_memory=@30:40"), nagios.OK, ";80;@30:40;0;100"),
        (("--warning-only", "-c", "data_memory=20"), nagios.WARNING, ";80;20;0;100"),
    ],
)
def test_thresholds_judge_what_the_perfdata_shows(flags, code, perfdata):
    verdict = judged(read(cluster()), "--only", "data_memory_full", *flags)
    assert verdict.code == code, verdict.output()
    assert perfdata in verdict.perfdata
    assert verdict.perfdata.count("'data_memory_node_") == 4


def test_a_stopped_data_node_has_unknown_values():
    verdict = judged(read(cluster(stopped=(2,))), "--only", "storage")
    items = verdict.perfdata.split()
    assert "'data_memory_node_2'=U;80;95;0;100" in items
    assert "'redo_fullest_part_node_2'=U;70;90;0;100" in items


def test_redo_perfdata_is_the_fullest_part_the_finding_judges():
    # parts at 10, 20, 30 and 40 MiB of 256: overall 9.8 %, the fullest part 15.6 %
    verdict = judged(read(cluster()), "--only", "redo_log_full", "-w", "redo=15")
    assert verdict.code == nagios.WARNING
    assert "'redo_fullest_part_node_1'=15.625%;15;90;0;100" in verdict.perfdata.split()
