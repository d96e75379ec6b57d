"""How ``check`` judges a reading: the selection by declared family, the status, UNKNOWN for
what a selected check could not judge, the management and SQL nodes that went away, and the
performance data."""

from __future__ import annotations

import time
from dataclasses import replace
from functools import partial

import pytest
from ndbinfo_exporter.collectors.registry import all_collectors
from ndbinfo_exporter.health.findings import management as management_checks
from ndbinfo_exporter.health.findings.evaluation import CHECKS
from ndbinfo_exporter.report import nagios
from ndbinfo_exporter.report.options import FAMILIES
from ndbinfo_exporter.scrape.mgmd.events import CompletedBackup
from ndbinfo_exporter.scrape.mgmd.reader import ManagementState
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

from tests.health.scrape_data import cluster, gauge
from tests.report.recorded import judged, reading, scrape_data

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
    # the management server's checks read no collector: the reader of --mgmd.address
    assert all(c.reads for c in CHECKS if c.evaluate.__module__ != management_checks.__name__)
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


def managed(
    completed_hours_ago: float | None = 2.0,
    failed_hours_ago: float | None = None,
    answered: bool = True,
    listened_hours: float = 30.0,
) -> ManagementState:
    """What the management server reader keeps of a cluster whose last backup completed (and
    one aborted) that many hours ago."""
    now = time.time()
    backup = None
    if completed_hours_ago is not None:
        backup = CompletedBackup(7, now - completed_hours_ago * 3600, 2**30, 10**6)
    return ManagementState(
        read_at=now,
        answered=(("mgm1:1186", answered),),
        nodes=(),
        subscription_up=answered,
        listening_since=now - listened_hours * 3600,
        last_backup=backup,
        backups_aborted=int(failed_hours_ago is not None),
        backups_failed_to_start=0,
        last_backup_failure=None if failed_hours_ago is None else now - failed_hours_ago * 3600,
        events=(),
    )


ONLY = ("--only", "backup,availability")


@pytest.mark.parametrize(
    "make_state, flags, code, text",
    [
        (partial(managed), ONLY, nagios.OK, "checks passed"),
        (partial(managed, failed_hours_ago=1), ONLY, nagios.CRITICAL, "none completed since"),
        (partial(managed, 2, failed_hours_ago=3), ONLY, nagios.OK, "checks passed"),
        (partial(managed, 30), ONLY, nagios.WARNING, "completed 30.0 h ago (over 26 h)"),
        (partial(managed, 2), (*ONLY, "-w", "backup_age=1"), nagios.WARNING, "backup_age_hours 2"),
        (
            partial(managed, None, listened_hours=27),
            ONLY,
            nagios.WARNING,
            "No backup completed in the 27",
        ),
        (partial(managed, None, listened_hours=1), ONLY, nagios.OK, "checks passed"),
        (partial(managed, answered=False), ONLY, nagios.WARNING, "mgm1:1186 does not answer"),
        (None, ("--only", "availability"), nagios.OK, "checks passed"),
        (None, ONLY, nagios.UNKNOWN, "No management server is read"),
    ],
)
def test_backup_state_and_management_server_from_the_cluster_log(make_state, flags, code, text):
    """The management server's findings: the latest backup aborted or failed (CRITICAL), none
    completed within backup_age hours (WARNING; -w/-c backup_age=), the management server
    not answering (WARNING); nothing to judge without one, UNKNOWN when asked for. The state
    is made when the test runs: its ages count from then."""
    state = None if make_state is None else make_state()
    verdict = judged(read(cluster()), *flags, management=state)
    assert verdict.code == code, verdict.output()
    assert text in verdict.output(), verdict.output()
    age = [p for p in verdict.perfdata.split() if p.startswith("'backup_age_hours'=")]
    if state is None or state.last_backup is None:
        assert age == []
    else:
        warning = "1" if "backup_age=1" in flags else "26"
        assert len(age) == 1 and age[0].split(";")[1:4] == [warning, "", "0"], age


def test_the_report_shows_every_node_and_the_backups_the_management_server_reports():
    from ndbinfo_exporter.collectors.registry import all_collectors
    from ndbinfo_exporter.report import document, render
    from ndbinfo_exporter.report.options import parse_options
    from ndbinfo_exporter.scrape.mgmd.protocol import NodeStatus

    state = replace(
        managed(failed_hours_ago=1),
        nodes=(
            NodeStatus(1, "NDB", "STARTED", 0, 1, 524816),
            NodeStatus(49, "MGM", "CONNECTED", 0, 0, 0),
        ),
    )
    options = parse_options("report", [], all_collectors())
    found = reading(read(cluster()), management=state)
    verdict = nagios.judge(found, nagios.select(()), options)
    report = document.build(found, options, verdict)
    assert report.status == "CRITICAL"
    assert [(n.node_id, n.status) for n in report.management.nodes] == [
        (1, "STARTED"),
        (49, "CONNECTED"),
    ]
    assert report.management.last_backup.backup_id == 7 and report.management.backups_aborted == 1
    shown = render.text(report)
    assert "Management server: every node" in shown and "backup 7: 1.0 GiB" in shown
    without = document.build(reading(read(cluster())), options, verdict)
    assert without.management is None
