"""The cluster model written into the engine: ids agree across tables, fragments follow the
partition balance, replicas sit on node-group members, and time moves GCIs, LCPs and counters."""

from __future__ import annotations

import pytest
from ndbsim.engine import model_tables
from ndbsim.engine.catalog import catalog_for
from ndbsim.engine.database import Engine
from ndbsim.model import config_params
from ndbsim.model.cluster import Cluster, ClusterSpec
from ndbsim.versions import SUPPORTED, parse_version


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def make(version: str = "8.4", **spec) -> tuple[Cluster, Engine, FakeClock]:
    clock = FakeClock()
    ndb = parse_version(version)
    cluster = Cluster(ClusterSpec(**spec), ndb, clock=clock)
    engine = Engine(catalog_for(ndb))
    model_tables.sync(cluster, engine)
    return cluster, engine, clock


def q(engine: Engine, sql: str) -> list[tuple]:
    return engine.execute(sql).fetchall()


@pytest.fixture(scope="module")
def four_nodes():
    return make(data_nodes=4, replicas=2, tables=30)


def test_fragments_follow_partition_balance(four_nodes):
    cluster, engine, _ = four_nodes
    rows = q(
        engine,
        """
        SELECT i.partition_balance, i.fully_replicated, d.tab_partitions, d.tab_fragments,
               (SELECT count(*) FROM ndbinfo.table_fragments f WHERE f.table_id = i.table_id)
        FROM ndbinfo.table_info i JOIN ndbinfo.table_distribution_status d USING (table_id)
        JOIN ndbinfo.dict_obj_info o ON o.id = i.table_id AND o.type = 2""",
    )
    ldm, nodes, groups = cluster.ldm, 4, 2
    assert rows
    for balance, fully_replicated, partitions, fragments, counted in rows:
        assert counted == fragments
        if fully_replicated:
            assert (partitions, fragments) == (ldm, ldm * groups)
        elif balance == "FOR_RP_BY_LDM":
            assert partitions == fragments == ldm * nodes
        elif balance == "FOR_RA_BY_LDM":
            assert partitions == fragments == ldm * groups


def test_replicas_are_on_members_of_one_nodegroup(four_nodes):
    _, engine, _ = four_nodes
    bad = q(
        engine,
        """
        SELECT r.table_id, r.fragment_id, count(DISTINCT m.group_id)
        FROM ndbinfo.table_replicas r JOIN ndbinfo.membership m ON m.node_id = r.replica_node_id
        GROUP BY 1, 2 HAVING count(DISTINCT m.group_id) <> 1""",
    )
    assert bad == []
    counts = q(
        engine,
        """SELECT count(*), count(DISTINCT replica_node_id)
                          FROM ndbinfo.table_replicas GROUP BY table_id, fragment_id""",
    )
    assert {c for c in counts} == {(2, 2)}


def test_primaries_spread_over_all_nodes(four_nodes):
    _, engine, _ = four_nodes
    per_node = dict(
        q(engine, "SELECT preferred_primary, count(*) FROM ndbinfo.table_fragments GROUP BY 1")
    )
    assert set(per_node) == {1, 2, 3, 4}
    assert max(per_node.values()) - min(per_node.values()) <= 0.1 * max(per_node.values())
    assert q(
        engine,
        "SELECT count(*) FROM ndbinfo.table_fragments WHERE current_primary <> preferred_primary",
    ) == [(0,)]


def test_ids_agree_across_tables(four_nodes):
    cluster, engine, _ = four_nodes
    orphans = q(
        engine,
        """SELECT count(*) FROM ndbinfo.table_fragments f
                           LEFT JOIN ndbinfo.dict_obj_info o ON o.id = f.table_id AND o.type <= 6
                           WHERE o.id IS NULL""",
    )
    assert orphans == [(0,)]
    assert q(
        engine,
        """SELECT count(*) FROM ndbinfo.memory_per_fragment m
                        LEFT JOIN ndbinfo.table_replicas r ON r.table_id = m.table_id
                          AND r.fragment_id = m.fragment_num AND r.replica_node_id = m.node_id
                        WHERE r.table_id IS NULL""",
    ) == [(0,)]
    configured = {r[0] for r in q(engine, "SELECT node_id FROM ndbinfo.config_nodes")}
    assert {r[0] for r in q(engine, "SELECT node_id FROM ndbinfo.processes")} <= configured
    assert {
        r[0] for r in q(engine, "SELECT remote_node_id FROM ndbinfo.transporters")
    } <= configured
    assert {r[0] for r in q(engine, "SELECT node_id FROM ndbinfo.nodes")} == {1, 2, 3, 4}
    # every data node reports a transporter to every other configured node
    assert q(engine, "SELECT count(*) FROM ndbinfo.transporters") == [(4 * (len(configured) - 1),)]
    free = [n.node_id for n in cluster.topology.api_nodes if not n.process_name]
    states = {
        r[0]
        for r in q(
            engine,
            f"SELECT status FROM ndbinfo.transporters "
            f"WHERE remote_node_id IN ({','.join(map(str, free))})",
        )
    }
    assert states == {"DISCONNECTED"}
    # memoryusage and resources agree on Data memory
    assert q(
        engine,
        """SELECT count(*) FROM ndbinfo.memoryusage m JOIN ndbinfo.resources r
                        ON r.node_id = m.node_id AND r.resource_name = 'DATA_MEMORY'
                        WHERE m.memory_type = 'Data memory' AND m.used_pages <> r.used""",
    ) == [(0,)]
    # membership: president and arbitrator
    assert {
        r for r in q(engine, "SELECT president, arbitrator, arb_state FROM ndbinfo.membership")
    } == {(1, 49, "ARBIT_RUN")}


def test_config_values_and_params(four_nodes):
    cluster, engine, _ = four_nodes
    missing = q(
        engine,
        """SELECT count(*) FROM ndbinfo.config_values v
                           LEFT JOIN ndbinfo.config_params p ON p.param_number = v.config_param
                           WHERE p.param_number IS NULL""",
    )
    assert missing == [(0,)]
    values = dict(
        q(
            engine,
            """SELECT p.param_name, v.config_value FROM ndbinfo.config_values v
                               JOIN ndbinfo.config_params p ON p.param_number = v.config_param
                               WHERE v.node_id = 1""",
        )
    )
    assert values["NoOfReplicas"] == "2"
    assert values["NoOfFragmentLogFiles"] == "384"
    assert values["TimeBetweenLocalCheckpoints"] == "6"
    assert values["MaxNoOfConcurrentOperations"] == "131072"
    assert values["HostName"] == cluster.topology.node(1).hostname
    assert "IndexMemory" not in values


def test_seed_parameters_of_7_5_4():
    ndb = parse_version("7.5.4")
    params = {p.name: p for p in config_params.params_for(ndb)}
    assert (params["DataMemory"].default, params["DataMemory"].maximum) == (
        "83886080",
        "1099511627776",
    )
    assert params["IndexMemory"].default == "18874368"
    assert (params["NodeId"].maximum, params["NodeId"].mandatory) == ("48", 1)
    assert (params["MaxNoOfConcurrentScans"].minimum, params["MaxNoOfConcurrentScans"].maximum) == (
        "2",
        "500",
    )
    names = [p.name for p in params.values() if p.name.lower().startswith("max")]
    assert names[:3] == ["MaxNoOfSavedMessages", "MaxNoOfTables", "MaxNoOfAttributes"]
    assert config_params.params_for(parse_version("8.4"))[0].name == "NodeId"
    assert {p.name for p in config_params.params_for(parse_version("8.4"))} >= {
        "TransactionMemory",
        "PartitionsPerNode",
        "AutomaticThreadConfig",
        "RequireEncryptedBackup",
    }


def test_config_override_per_node():
    cluster, engine, _ = make(
        config={"DataMemory": "512M", "MaxNoOfConcurrentOperations@2": "65536"}
    )
    rows = dict(
        q(
            engine,
            """SELECT v.node_id, v.config_value FROM ndbinfo.config_values v
                             WHERE v.config_param = 107""",
        )
    )
    assert rows == {1: "131072", 2: "65536"}
    assert q(
        engine, "SELECT DISTINCT total FROM ndbinfo.memoryusage WHERE memory_type = 'Data memory'"
    ) == [(512 * 1024 * 1024,)]


@pytest.mark.parametrize("version", SUPPORTED)
def test_every_version_fills_its_tables(version):
    cluster, engine, _ = make(version)
    catalog = engine.catalog
    for name in ("ndb$nodes", "ndb$table_fragments", "ndb$config_values", "ndb$counters"):
        assert q(engine, f'SELECT count(*) FROM ndbinfo."{name}"')[0][0] > 0
    types = [r[0] for r in q(engine, "SELECT memory_type FROM ndbinfo.memoryusage")]
    assert ("Index memory" in types) == (version == "7.5.4")
    assert ("ndb$processes" in catalog.objects) == (version != "7.5.4")


def test_time_moves_gci_lcp_and_counters():
    cluster, engine, clock = make()
    status0 = cluster.global_status()
    lcp0 = q(engine, "SELECT max(last_lcp_id) FROM ndbinfo.table_replicas")[0][0]
    reads0 = q(engine, "SELECT sum(val) FROM ndbinfo.counters WHERE counter_name = 'READS'")[0][0]
    cpu0 = q(engine, "SELECT sum(os_ru_utime) FROM ndbinfo.threadstat")[0][0]
    seen_ongoing = False
    replicas = engine.catalog.reads("table_replicas")
    for _ in range(30):
        clock.now += 10
        model_tables.sync(cluster, engine, replicas)  # what the statement below reads
        seen_ongoing |= (
            q(engine, "SELECT max(is_lcp_ongoing) FROM ndbinfo.table_replicas")[0][0] == 1
        )
    model_tables.sync(cluster, engine)
    status1 = cluster.global_status()
    assert (
        status1["Ndb_last_commit_epoch_server"] >> 32
        >= (status0["Ndb_last_commit_epoch_server"] >> 32) + 140
    )
    assert seen_ongoing
    assert q(engine, "SELECT max(last_lcp_id) FROM ndbinfo.table_replicas")[0][0] >= lcp0 + 3
    gci = status1["Ndb_last_commit_epoch_server"] >> 32
    assert (
        gci - q(engine, "SELECT max(last_max_gci_completed) FROM ndbinfo.table_replicas")[0][0] < 90
    )
    assert (
        q(engine, "SELECT sum(val) FROM ndbinfo.counters WHERE counter_name = 'READS'")[0][0]
        > reads0
    )
    assert q(engine, "SELECT sum(os_ru_utime) FROM ndbinfo.threadstat")[0][0] > cpu0
    for key, value in status0.items():
        if key.startswith(("Ndb_api_", "Com_", "Questions")):
            assert status1[key] >= value, key
    assert status1["Ndb_api_wait_exec_complete_count"] > status0["Ndb_api_wait_exec_complete_count"]
    # gauges stay within their totals
    assert q(engine, "SELECT count(*) FROM ndbinfo.logspaces WHERE used > total") == [(0,)]
    assert q(engine, "SELECT count(*) FROM ndbinfo.memoryusage WHERE used > total") == [(0,)]


def test_same_seed_same_cluster():
    a, ea, ca = make(seed=7)
    b, eb, cb = make(seed=7)
    for clock in (ca, cb):
        clock.now += 123
    model_tables.sync(a, ea)
    model_tables.sync(b, eb)
    sql = "SELECT * FROM ndbinfo.table_replicas ORDER BY 1, 2, 3, 5"
    assert q(ea, sql) == q(eb, sql)
    assert a.global_status() == b.global_status()


def test_workload_options_shape_counters():
    cluster, _, clock = make(ops_per_second=1000, batching=10, pruned_scan_share=0.5)
    clock.now += 100
    s = cluster.global_status()
    assert s["Ndb_api_wait_exec_complete_count"] == pytest.approx(
        s["Ndb_api_trans_start_count"] * 5 / 10, rel=0.01
    )
    scans = s["Ndb_api_table_scan_count"] + s["Ndb_api_range_scan_count"]
    assert s["Ndb_api_pruned_scan_count"] == pytest.approx(scans * 0.5, rel=0.01)


def test_bad_layout_is_rejected():
    with pytest.raises(ValueError, match="multiple of replicas"):
        make(data_nodes=3, replicas=2)


def test_each_sql_node_counts_its_own_share_since_its_mysqld_started():
    """The application's operations go through the SQL nodes that are up; a stopped SQL node
    counts nothing, and started again its mysqld counts from 0 (Uptime too), while its links
    count one more connect."""
    cluster, _, clock = make(sql_nodes=3)
    first, second, third = cluster.sql_node_ids
    stops: list[tuple[int, bool]] = []
    cluster.sql_node_listeners.append(lambda node, up: stops.append((node, up)))
    clock.now += 100
    shares = {n: cluster.global_status(n)["Ndb_api_trans_start_count"] for n in (first, third)}
    assert shares[first] == shares[third] > 0
    cluster.stop_node(second)
    clock.now += 100
    stopped = cluster.global_status(second)["Ndb_api_trans_start_count"]
    ran = cluster.global_status(first)["Ndb_api_trans_start_count"] - shares[first]
    assert stopped == shares[first] and ran > shares[first]  # two SQL nodes share it now
    cluster.start_node(second)
    clock.now += 10
    restarted = cluster.global_status(second)
    assert restarted["Uptime"] == 10 and restarted["Ndb_cluster_node_id"] == second
    assert 0 < restarted["Ndb_api_trans_start_count"] < stopped
    assert cluster.global_status(first)["Uptime"] == 210
    assert cluster.api_connect_count(second) == 2 and cluster.api_connect_count(first) == 1
    assert stops == [(second, False), (second, True)]
