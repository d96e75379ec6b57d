"""Each fault changes exactly the ndbinfo rows and status variables a real cluster shows it in,
and clearing it returns the cluster to healthy."""

from __future__ import annotations

import pytest
from ndbsim.model import fault_effects
from ndbsim.model.cluster import STEADY_GROWTH, Cluster, ClusterSpec, NodeError
from ndbsim.model.faults import FaultError, Faults
from ndbsim.versions import parse_version

from tests.simulator.model.fault_sim import Sim, healthy


@pytest.fixture
def sim() -> Sim:
    return Sim(data_nodes=4, replicas=2, tables=12)


def test_stop_and_start_data_node(sim):
    sim.cluster.stop_node(2)
    assert sim.cluster.global_status()["Ndb_number_of_ready_data_nodes"] == 3
    assert sim.q("SELECT node_id FROM ndbinfo.nodes ORDER BY 1") == [(1,), (3,), (4,)]
    for table in (
        "threadstat",
        "counters",
        "memoryusage",
        "logspaces",
        "membership",
        "diskpagebuffer",
        "resources",
        "config_values",
    ):
        assert sim.one(f"SELECT count(*) FROM ndbinfo.{table} WHERE node_id = 2") == 0, table
    # fragments whose preferred primary was node 2 moved to the other member of its group
    moved = sim.q("""SELECT DISTINCT current_primary, num_alive_replicas, num_dead_replicas
                     FROM ndbinfo.table_fragments WHERE preferred_primary = 2""")
    assert moved == [(1, 1, 1)]
    assert (
        sim.one(
            "SELECT count(*) FROM ndbinfo.table_fragments "
            "WHERE current_primary = 2 OR current_first_backup = 2"
        )
        == 0
    )
    dead = sim.q(
        "SELECT DISTINCT replica_node_id, is_replica_alive, num_crashed_replicas "
        "FROM ndbinfo.table_replicas WHERE is_replica_alive = 0"
    )
    assert dead == [(2, 0, 1)]
    assert sim.one("SELECT count(*) FROM ndbinfo.processes WHERE node_id = 2") == 0
    assert {
        r[0]
        for r in sim.q("SELECT DISTINCT status FROM ndbinfo.transporters WHERE remote_node_id = 2")
    } == {"DISCONNECTED"}
    assert (
        sim.one("SELECT count(*) FROM ndbinfo.membership WHERE left_node = 2 OR right_node = 2")
        == 0
    )

    sim.cluster.start_node(2)
    sim.tick(2)
    assert sim.q("SELECT status FROM ndbinfo.nodes WHERE node_id = 2") == [("STARTING",)]
    assert sim.q("SELECT node_restart_status FROM ndbinfo.restart_info WHERE node_id = 2") != []
    assert sim.cluster.global_status()["Ndb_number_of_ready_data_nodes"] == 3
    sim.tick(sim.cluster.spec.restart_seconds)
    assert sim.q(
        "SELECT node_restart_status, total_restart_secs FROM ndbinfo.restart_info WHERE node_id = 2"
    ) == [("Restart completed", 12)]
    assert sim.one("SELECT uptime FROM ndbinfo.nodes WHERE node_id = 2") < 30
    healthy(sim)
    assert (
        sim.one(
            "SELECT max(num_crashed_replicas) FROM ndbinfo.table_replicas WHERE replica_node_id = 2"
        )
        == 1
    )


def test_president_moves_when_it_stops(sim):
    sim.cluster.stop_node(1)
    assert {r[0] for r in sim.q("SELECT president FROM ndbinfo.membership")} == {2}
    assert {r[0] for r in sim.q("SELECT node_id FROM ndbinfo.table_fragments")} == {2}
    assert {
        r[0] for r in sim.q('SELECT DISTINCT node_id FROM ndbinfo."ndb$table_fragments_all"')
    } == {2, 3, 4}


def test_whole_nodegroup_down_takes_cluster_down(sim):
    sim.cluster.stop_node(3)
    sim.cluster.stop_node(4)
    assert not sim.cluster.data_nodes_reachable()
    assert sim.cluster.global_status()["Ndb_number_of_ready_data_nodes"] == 0
    assert all(s["state"] == "STOPPED" for s in sim.cluster.status()["nodes"] if s["type"] == "NDB")
    epoch = sim.cluster.global_status()["Ndb_last_commit_epoch_server"]
    sim.tick(30)
    assert sim.cluster.global_status()["Ndb_last_commit_epoch_server"] == epoch
    sim.cluster.reset()
    sim.tick(1)
    healthy(sim)
    assert sim.cluster.global_status()["Ndb_connect_count"] == 2


def test_cluster_restarts_when_every_group_has_a_starting_node(sim):
    sim.cluster.stop_node(3)
    sim.cluster.stop_node(4)
    sim.cluster.start_node(1)
    sim.tick(60)
    assert not sim.cluster.data_nodes_reachable()
    sim.cluster.start_node(3)
    sim.tick(sim.cluster.spec.restart_seconds + 1)
    assert sim.cluster.data_nodes_reachable()
    assert sim.cluster.global_status()["Ndb_number_of_ready_data_nodes"] == 2


def test_lcp_stall(sim):
    sim.cluster.faults.set("lcp-stall")
    sim.tick(5)
    lcp = sim.one("SELECT max(last_lcp_id) FROM ndbinfo.table_replicas")
    gci_done = sim.one("SELECT max(last_max_gci_completed) FROM ndbinfo.table_replicas")
    sim.tick(600)
    assert sim.one("SELECT max(last_lcp_id) FROM ndbinfo.table_replicas") == lcp
    assert (
        sim.one(
            "SELECT min(is_lcp_ongoing) FROM ndbinfo.table_replicas "
            "WHERE table_id IN (SELECT id FROM ndbinfo.dict_obj_info WHERE type = 2)"
        )
        == 1
    )
    assert "ACTIVE" in {
        r[0] for r in sim.q("SELECT tab_lcp_status FROM ndbinfo.table_distribution_status")
    }
    gci = sim.cluster.global_status()["Ndb_last_commit_epoch_server"] >> 32
    assert gci - gci_done > 290
    sim.cluster.faults.clear("lcp-stall")
    sim.tick(120)
    assert sim.one("SELECT max(last_lcp_id) FROM ndbinfo.table_replicas") > lcp


def test_data_memory(sim):
    sim.cluster.faults.set("data-memory", share=0.95)
    rows = sim.q(
        "SELECT used_pages, total_pages FROM ndbinfo.memoryusage WHERE memory_type = 'Data memory'"
    )
    assert len(rows) == 4
    assert all(used == int(total * 0.95) for used, total in rows)
    assert {
        r for r in sim.q("SELECT used FROM ndbinfo.resources WHERE resource_name = 'DATA_MEMORY'")
    } == {(rows[0][0],)}
    sim.cluster.faults.clear("data-memory")
    used = sim.one(
        "SELECT max(used_pages / total_pages) FROM ndbinfo.memoryusage "
        "WHERE memory_type = 'Data memory'"
    )
    assert used < 0.6


def test_data_memory_fills_index_memory_of_ndb_7_5():
    sim = Sim(data_nodes=2, replicas=2, tables=4, version="7.5.4")
    index_memory = "SELECT used, total FROM ndbinfo.memoryusage WHERE memory_type = 'Index memory'"
    assert all(used < total * 0.5 for used, total in sim.q(index_memory))
    sim.cluster.faults.set("data-memory", share=0.97)
    assert [used for used, _ in sim.q(index_memory)] == [
        int(total / 8192 * 0.97) * 8192 for _, total in sim.q(index_memory)
    ]


def test_redo_log(sim):
    sim.cluster.faults.set("redo-log", share=0.9)
    shares = {
        round(u / t, 3)
        for u, t in sim.q("SELECT used, total FROM ndbinfo.logspaces WHERE log_type = 'REDO'")
    }
    assert shares == {0.9}
    sim.cluster.faults.clear("redo-log")
    assert sim.one("SELECT max(used / total) FROM ndbinfo.logspaces WHERE log_type = 'REDO'") < 0.1


GROWTH_LEVEL_SQL = {
    "data-memory-growth": "SELECT min(used_pages / total_pages) FROM ndbinfo.memoryusage "
    "WHERE memory_type = 'Data memory'",
    "redo-log-growth": "SELECT min(used / total) FROM ndbinfo.logspaces WHERE log_type = 'REDO'",
    "undo-log-growth": "SELECT min(used / total) FROM ndbinfo.logspaces WHERE log_type = 'DD-UNDO'",
    "tablespace-growth": "SELECT 1 - free_extents / total_extents FROM ndbinfo.files "
    "WHERE type = 'Data file'",
}


@pytest.mark.parametrize("fault", GROWTH_LEVEL_SQL)
def test_growth_raises_the_lowest_level_at_its_rate(fault):
    # few writes, so that the healthy DataMemory does not grow much over the hours ticked
    sim = Sim(data_nodes=4, replicas=2, tables=12, ops_per_second=50)
    level_sql = GROWTH_LEVEL_SQL[fault]
    assert sim.one(level_sql) < 0.5
    assert sim.cluster.faults.set(fault, rate=0.1, share=0.55)["since"] == sim.cluster.now
    for hours in (0, 1, 2):
        # the lowest of an hour's samples: the logs keep their sawtooth above the troughs
        low = min(sim.one(level_sql) for _ in range(6) if sim.tick(600) is None)
        assert 0.55 + 0.1 * hours <= low < 0.55 + 0.1 * hours + 0.05, (hours, low)
    sim.cluster.faults.set(fault, rate=1.0)
    sim.tick(2 * 3600)
    assert 0.99 < sim.one(level_sql) <= 1.0
    sim.cluster.faults.clear(fault)
    assert sim.one(level_sql) < 0.5
    healthy(sim)


def test_a_healthy_workload_reaches_a_steady_data_memory():
    """Its inserts and deletes balance after a while: DataMemory grows by STEADY_GROWTH at
    most, so that a healthy cluster left running predicts no exhaustion."""
    sim = Sim(data_nodes=2, replicas=2, tables=12)
    level_sql = GROWTH_LEVEL_SQL["data-memory-growth"]
    start = sim.one(level_sql)
    levels = []
    for _ in range(6):
        sim.tick(4 * 3600)
        levels.append(sim.one(level_sql))
    assert start < levels[0] <= start + STEADY_GROWTH + 0.001
    assert levels[-1] == levels[0]


def test_backups_stop_and_resume(sim):
    def backup_id() -> int:
        return sim.one("SELECT max(id) FROM ndbinfo.backup_id")

    first = backup_id()
    sim.tick(4 * 3600)
    assert backup_id() == first + 1
    sim.cluster.faults.set("backups-stopped")
    sim.tick(12 * 3600)
    assert backup_id() == first + 1
    sim.cluster.faults.clear("backups-stopped")
    sim.tick(4 * 3600)
    assert backup_id() == first + 2
    healthy(sim)


def data_node_versions(sim: Sim) -> dict[int, str]:
    return dict(
        sim.q("SELECT DISTINCT node_id, node_version FROM ndbinfo.processes WHERE node_id < 49")
    )


def test_old_version(sim):
    sim.cluster.faults.set("old-version", node=3)
    assert data_node_versions(sim) == {1: "8.4.3", 2: "8.4.3", 3: "8.4.2", 4: "8.4.3"}
    assert sim.one("SELECT node_version FROM ndbinfo.processes WHERE node_id = 49") == "8.4.3"
    sim.cluster.faults.clear("old-version")
    assert set(data_node_versions(sim).values()) == {"8.4.3"}
    healthy(sim)


def test_old_version_of_a_first_release_is_the_previous_minor():
    cluster = Cluster(ClusterSpec(data_nodes=2, tables=2), parse_version("9.7"))
    cluster.faults.set("old-version", node=1)
    releases = (fault_effects.node_release(cluster, 1), fault_effects.node_release(cluster, 2))
    assert releases == ((9, 6, 0), (9, 7, 0))


def test_old_config_generation(sim):
    sim.cluster.faults.set("old-config-generation", node=2)
    generations = "SELECT node_id, config_generation FROM ndbinfo.nodes ORDER BY 1"
    assert sim.q(generations) == [(1, 2), (2, 1), (3, 2), (4, 2)]
    sim.cluster.faults.clear("old-config-generation")
    assert sim.q(generations) == [(n, 1) for n in (1, 2, 3, 4)]
    healthy(sim)


def test_arbitrator_lost(sim):
    sim.cluster.faults.set("arbitrator-lost")
    rows = sim.q(
        "SELECT node_id, arbitrator, arb_state, arb_connected FROM ndbinfo.membership ORDER BY 1"
    )
    assert rows == [(1, 0, "ARBIT_FIND", "No")] + [(n, 0, "ARBIT_NULL", "No") for n in (2, 3, 4)]
    assert sim.one("SELECT count(*) FROM ndbinfo.processes WHERE node_id = 49") > 0
    sim.cluster.faults.clear("arbitrator-lost")
    healthy(sim)


def test_management_and_api_nodes(sim):
    sim.cluster.stop_node(49)
    assert sim.one("SELECT count(*) FROM ndbinfo.processes WHERE node_id = 49") == 0
    assert {
        r[0]
        for r in sim.q("SELECT DISTINCT status FROM ndbinfo.transporters WHERE remote_node_id = 49")
    } == {"DISCONNECTED"}
    assert {r[0] for r in sim.q("SELECT arbitrator FROM ndbinfo.membership")} == {0}
    other_sql = sim.cluster.sql_node_id + 1
    sim.cluster.stop_node(other_sql)
    assert sim.one(f"SELECT count(*) FROM ndbinfo.processes WHERE node_id = {other_sql}") == 0
    with pytest.raises(NodeError, match="unknown node"):
        sim.cluster.stop_node(77)
    sim.cluster.start_node(49)
    sim.cluster.start_node(other_sql)
    healthy(sim)
    assert sim.one(f"SELECT count(*) FROM ndbinfo.processes WHERE node_id = {other_sql}") > 0


def test_connection_and_latency_faults(sim):
    faults = sim.cluster.faults
    faults.set("slow-ndbinfo", seconds=2.0, table="threadstat")
    assert faults.ndbinfo_latency({"threadstat"}) == 2.0
    assert faults.ndbinfo_latency({"ndb$threadstat"}) == 2.0
    assert faults.ndbinfo_latency({"nodes"}) == 0.0
    faults.set("slow-ndbinfo", seconds=1.5)
    assert faults.ndbinfo_latency({"nodes"}) == 1.5
    faults.set("refuse-connections")
    faults.set("drop-connections")
    assert faults.refuse_connections and faults.drop_connections
    assert set(faults.active()) == {"slow-ndbinfo", "refuse-connections", "drop-connections"}
    sim.cluster.reset()
    assert faults.active() == {}
    assert not faults.refuse_connections


@pytest.mark.parametrize(
    ("name", "params", "message"),
    [
        ("bogus", {}, "unknown fault"),
        ("data-memory", {}, "required"),
        ("data-memory", {"share": 1.5}, "between 0 and 1"),
        ("data-memory", {"share": "x"}, "must be a float"),
        ("lcp-stall", {"share": 0.5}, "unknown parameter"),
        ("slow-ndbinfo", {"seconds": -1}, "between 0 and 600"),
        ("slow-backup", {}, "required"),
        ("slow-backup", {"seconds": 0}, "seconds must be > 0 and <= 86400"),
        ("redo-log-growth", {}, "required"),
        ("undo-log-growth", {"rate": 0}, "rate must be > 0 and <= 1"),
        ("tablespace-growth", {"rate": 0.1, "share": 2}, "between 0 and 1"),
        ("old-version", {"node": 1}, "not a data node"),
        ("missed-heartbeats", {"node": 1, "dies": "maybe"}, "true or false"),
        ("arbitration-denied", {"timeout": "soon"}, "true or false"),
    ],
)
def test_bad_fault_requests(name, params, message):
    with pytest.raises(FaultError, match=message):
        Faults().set(name, **params)


@pytest.mark.parametrize(
    ("name", "params", "message"),
    [
        ("data-node-crash", {"node": 51}, "not a data node"),
        ("data-node-crash", {"node": 1, "phase": 10}, "phase must be 1..9"),
        ("missed-heartbeats", {"node": 49}, "not a data node"),
        ("sql-node-slot-taken", {"node": 1}, "not an SQL node"),
    ],
)
def test_new_faults_check_their_nodes_and_phase(sim, name, params, message):
    with pytest.raises(FaultError, match=message):
        sim.cluster.faults.set(name, **params)


def test_api_writes_only_sql_nodes_read_while_the_data_nodes_write():
    sim = Sim(data_nodes=2, replicas=2, tables=4, ops_per_second=200)
    sim.tick(60)
    c = sim.cluster
    c.faults.set("api-writes-only")
    before, gci = c.global_status(), c.checkpoints.gci
    ops = {n: s.ops for n, s in c.nodes.items()}
    sim.tick(120)
    after = c.global_status()
    assert after["Ndb_last_commit_epoch_server"] == before["Ndb_last_commit_epoch_server"]
    assert after["Ndb_api_trans_commit_count"] > before["Ndb_api_trans_commit_count"]
    assert after["Com_insert"] == before["Com_insert"]
    assert c.checkpoints.gci > gci
    assert all(s.ops > ops[n] for n, s in c.nodes.items())
    c.faults.clear("api-writes-only")
    sim.tick(10)
    assert c.global_status()["Ndb_last_commit_epoch_server"] == c.checkpoints.epoch


def test_sql_node_slot_taken_moves_the_mysqld_to_a_free_api_slot(sim):
    c = sim.cluster
    mysqld, free = c.sql_node_ids[1], c.topology.api_nodes[len(c.sql_node_ids)].node_id
    sim.tick(100)
    c.faults.set("sql-node-slot-taken", node=mysqld)
    status = c.global_status(mysqld)
    assert (status["Ndb_cluster_node_id"], status["Uptime"]) == (free, 0)
    states = {n["node_id"]: n["state"] for n in c.status()["nodes"]}
    assert (states[mysqld], states[free]) == ("DISCONNECTED", "CONNECTED")
    assert c.topology.node(free).process_name == "mysqld"
    assert not c.topology.node(mysqld).process_name
    events = [(e.type.name, e.fields["node"]) for e in c.log.since(0) if e.source_node == 49]
    assert events[-2:] == [("Disconnected", mysqld), ("Connected", free)]
    assert mysqld in c.sql_nodes_up()
    uris = dict(sim.q("SELECT DISTINCT node_id, service_URI FROM ndbinfo.processes"))
    assert mysqld not in uris and uris[free].endswith("?server-id=2")  # its server id kept
    c.faults.clear("sql-node-slot-taken")
    assert c.global_status(mysqld)["Ndb_cluster_node_id"] == mysqld
    states = {n["node_id"]: n["state"] for n in c.status()["nodes"]}
    assert (states[mysqld], states[free]) == ("CONNECTED", "DISCONNECTED")


@pytest.mark.parametrize(
    ("version", "event", "usage_key"),
    [("8.4", "EventBufferStatus3", "usage_l"), ("7.6", "EventBufferStatus2", "usage")],
)
@pytest.mark.parametrize("fault", ["subscriber-lag", "injector-behind"])
def test_the_binlog_servers_event_buffer_status(version, event, usage_key, fault):
    sim = Sim(data_nodes=2, replicas=2, tables=4, version=version)
    c = sim.cluster
    c.faults.link = True
    c.faults.set(fault)
    sim.tick(5)
    c.faults.clear(fault)
    sim.tick(5)
    reports = [e for e in c.log.since(0) if e.type.name == event]
    assert [e.source_node for e in reports] == [c.sql_node_id] * 2
    lagging, recovered = reports
    assert lagging.fields[usage_key] > 0 and recovered.fields[usage_key] == 0
    assert lagging.fields["latest_consumed_epoch_h"] < lagging.fields["latest_buffered_epoch_h"]
    assert "report_reason=BUFFERED_EPOCHS_OVER_THRESHOLD" in lagging.text
    assert not [e for e in c.log.since(0) if e.type.name == "EventBufferStatus"]


@pytest.mark.parametrize(
    ("save_lag", "lag", "disconnects"),
    [
        (False, {"gcis": 4}, 0),
        (False, {"gcis": 5}, 2),
        (True, {"epochs": 60}, 0),
        (True, {"epochs": 150}, 2),
    ],
)
def test_suma_disconnects_a_subscriber_at_max_buffered_epochs(save_lag, lag, disconnects):
    """Suma::checkMaxBufferedEpochs counts epochs, micro GCPs included: while GCP_SAVE lags the
    GCI stands and a subscriber 150 epochs behind in it is disconnected, 60 epochs is not."""
    sim = Sim(data_nodes=2, replicas=2, tables=4)  # 20 epochs a GCI, MaxBufferedEpochs 100
    c = sim.cluster
    c.faults.link = True
    if save_lag:
        c.faults.set("gcp-save-lag")
        sim.tick(30)  # the GCI stands for 300 micro GCPs
    c.faults.set("subscriber-lag", **lag)
    sim.tick(5)
    sim.tick(5)
    status = [e for e in c.log.since(0) if e.type.name == "SubscriptionStatus"]
    assert len(status) == disconnects
    assert sorted(e.source_node for e in status) == [1, 2][:disconnects]
    if disconnects:
        epochs = lag.get("epochs", 100)
        assert status[0].words[:2] == (1, c.sql_node_id)  # SubscriptionStatus::DISCONNECTED
        assert (
            f"Disconnecting node {c.sql_node_id} because it has exceeded MaxBufferedEpochs"
            f" ({epochs} >= 100)" in status[0].text
        )


DISK_PAGE_REQUESTS = (
    "SELECT node_id, sum(page_requests_direct_return), sum(page_requests_wait_io) "
    "FROM ndbinfo.diskpagebuffer GROUP BY node_id ORDER BY node_id"
)


def disk_page_hits(sim: Sim) -> dict[int, tuple[int, int]]:
    return {node: (int(hits), int(misses)) for node, hits, misses in sim.q(DISK_PAGE_REQUESTS)}


def hit_ratios(before: dict, after: dict) -> dict[int, float]:
    """The manual's hit ratio, direct_return / (direct_return + wait_io), between two reads."""
    ratios = {}
    for node, (hits, misses) in after.items():
        new_hits, new_misses = hits - before[node][0], misses - before[node][1]
        ratios[node] = new_hits / (new_hits + new_misses)
    return ratios


def test_disk_page_buffer_misses():
    sim = Sim(data_nodes=2, replicas=2, tables=8)
    start = disk_page_hits(sim)
    sim.tick(60)
    healthy_read = disk_page_hits(sim)
    assert all(ratio >= 0.98 for ratio in hit_ratios(start, healthy_read).values())
    sim.cluster.faults.set("disk-page-buffer-misses", share=0.6)
    sim.tick(60)
    faulted = disk_page_hits(sim)
    assert all(
        r == pytest.approx(0.6, abs=0.01) for r in hit_ratios(healthy_read, faulted).values()
    )
    sim.cluster.faults.clear("disk-page-buffer-misses")
    sim.tick(60)
    cleared = disk_page_hits(sim)
    assert all(ratio >= 0.98 for ratio in hit_ratios(faulted, cleared).values())
    # counters only grow, and a restart counts from 0 again
    assert all(cleared[n][0] >= faulted[n][0] and cleared[n][1] >= faulted[n][1] for n in cleared)


def test_disk_page_buffer_misses_default_share():
    assert Faults().set("disk-page-buffer-misses") == {"share": 0.8}


def test_gcp_stall(sim):
    epoch = sim.cluster.global_status()["Ndb_last_commit_epoch_server"]
    sim.cluster.faults.set("gcp-stall")
    gci = sim.cluster.status()["gci"]
    stalled = sim.cluster.global_status()["Ndb_last_commit_epoch_server"]
    assert stalled >= epoch
    commits = sim.cluster.global_status()["Ndb_api_trans_commit_count"]
    sim.tick(120)
    assert sim.cluster.status()["gci"] == gci
    assert sim.cluster.global_status()["Ndb_last_commit_epoch_server"] == stalled
    assert sim.cluster.global_status()["Ndb_api_trans_commit_count"] > commits
    sim.cluster.faults.clear("gcp-stall")
    sim.tick(10)
    # from where it stopped, one GCI every 2 s
    assert gci + 4 <= sim.cluster.status()["gci"] <= gci + 5
    assert sim.cluster.global_status()["Ndb_last_commit_epoch_server"] > stalled
    healthy(sim)


def test_job_buffer_congestion_stalls_the_producers_of_an_overloaded_ldm(sim):
    """The LDM threads of node 2 execute all the time; its TC and receive threads, which send
    them signals, sleep on their congested job buffers; no other node or thread waits, and an
    overloaded send buffer (send-overload) is no job buffer."""
    cpustat = (
        "SELECT c.node_id, t.thr_nm, MAX(c.thread_exec), MAX(c.thread_buffer_full)"
        " FROM ndbinfo.cpustat c JOIN ndbinfo.threadstat t"
        " ON t.node_id = c.node_id AND t.thr_no = c.thr_no GROUP BY c.node_id, t.thr_nm"
    )
    sim.cluster.faults.set("send-overload", node=1)
    sim.tick(5)
    assert {full for *_, full in sim.q(cpustat)} == {0}
    sim.cluster.faults.set("job-buffer-congestion", node=2)
    sim.tick(5)
    rows = {(node, name): (busy, full) for node, name, busy, full in sim.q(cpustat)}
    waiting = {key: full for key, (_, full) in rows.items() if full}
    assert waiting == {(2, "tc"): 30, (2, "recv"): 20}
    assert rows[(2, "ldm")][0] == 89 and rows[(1, "ldm")][0] < 50
    history = sim.q(
        "SELECT DISTINCT node_id, thr_no FROM ndbinfo.cpustat_20sec WHERE buffer_full_time > 0"
    )
    assert {node for node, _ in history} == {2}
    sim.cluster.faults.clear("job-buffer-congestion")
    assert {full for *_, full in sim.q(cpustat)} == {0}


def test_gcp_save_lag_keeps_the_gci_while_micro_gcps_go_on(sim):
    """GCP_SAVE lags: the GCI stays for the fault's two minutes while the epoch's low 32 bits
    rise by one micro GCP every TimeBetweenEpochs (100 ms); once cleared, the next micro GCP
    starts a new GCI and the epoch keeps growing."""
    sim.cluster.faults.set("gcp-save-lag")
    sim.tick(1)
    gci = sim.cluster.status()["gci"]
    epoch = sim.cluster.global_status()["Ndb_last_commit_epoch_server"]
    epochs = []
    for _ in range(12):
        sim.tick(10)
        epochs.append(sim.cluster.global_status()["Ndb_last_commit_epoch_server"])
    assert sim.cluster.status()["gci"] == gci
    assert {e >> 32 for e in epochs} == {gci}
    assert epochs == sorted(epochs) and epochs[0] > epoch
    assert 1150 <= (epochs[-1] & 0xFFFFFFFF) - (epoch & 0xFFFFFFFF) <= 1250
    sim.cluster.faults.clear("gcp-save-lag")
    sim.tick(10)
    assert gci + 5 <= sim.cluster.status()["gci"] <= gci + 6
    assert sim.cluster.global_status()["Ndb_last_commit_epoch_server"] > epochs[-1]
    healthy(sim)


def test_gcp_save_lag_holds_redo_pages_and_slows_checkpoints_where_the_speed_adapts():
    """A redo disk too slow for GCP_SAVE: half of every REDO log buffer waits for it on every
    node; the LDM threads count the slowdowns only where MaxDiskWriteSpeed leaves room above
    MinDiskWriteSpeed (node 1 has both at 20 MiB/s)."""
    sim = Sim(data_nodes=4, replicas=2, tables=12, config={"MinDiskWriteSpeed@1": "20971520"})
    redo = (
        "SELECT node_id, SUM(used), SUM(total) FROM ndbinfo.logbuffers"
        " WHERE log_type = 'REDO' GROUP BY node_id ORDER BY node_id"
    )
    lag = (
        "SELECT node_id, MAX(slowdowns_due_to_io_lag) FROM ndbinfo.disk_write_speed_aggregate"
        " GROUP BY node_id ORDER BY node_id"
    )
    assert all(used < total / 10 for _, used, total in sim.q(redo))
    sim.cluster.faults.set("gcp-save-lag")
    sim.tick(30)
    assert all(used == total // 2 for _, used, total in sim.q(redo))
    assert [(node, seconds > 0) for node, seconds in sim.q(lag)] == [
        (1, False),
        (2, True),
        (3, True),
        (4, True),
    ]


POOL_SQL = (
    "SELECT node_id, reserved, used, max FROM ndbinfo.resources "
    "WHERE resource_name = '{}' ORDER BY node_id"
)


@pytest.mark.parametrize("resource", ["TRANSACTION_MEMORY", "QUERY_MEMORY", "SCHEMA_TRANS_MEMORY"])
def test_resource_pool(sim, resource):
    assert {row[3] for row in sim.q(POOL_SQL.format(resource))} == {0}
    sim.cluster.faults.set("resource-pool", resource=resource, share=0.95)
    rows = sim.q(POOL_SQL.format(resource))
    assert len(rows) == 4
    for _, reserved, used, limit in rows:
        assert limit == max(reserved, 64)
        assert used == int(limit * 0.95)
    others = sim.q("SELECT count(*) FROM ndbinfo.resources WHERE max > 0")[0][0]
    assert others == 4 * 3  # DATA_MEMORY, TRANSPORTER_BUFFERS and the filled pool
    sim.cluster.faults.clear("resource-pool")
    assert {row[3] for row in sim.q(POOL_SQL.format(resource))} == {0}


def test_resource_pool_defaults_and_checks():
    assert Faults().set("resource-pool", share=0.5) == {
        "resource": "TRANSACTION_MEMORY",
        "share": 0.5,
    }
    with pytest.raises(FaultError, match="resource must be one of"):
        Faults().set("resource-pool", resource="DATA_MEMORY", share=0.5)


BUFFER_SQL = {
    "long-message": "SELECT used, total FROM ndbinfo.memoryusage "
    "WHERE memory_type = 'Long message buffer'",
    "redo": "SELECT used, total FROM ndbinfo.logbuffers WHERE log_type = 'REDO'",
    "undo": "SELECT used, total FROM ndbinfo.logbuffers WHERE log_type = 'DD-UNDO'",
}


@pytest.mark.parametrize("buffer", BUFFER_SQL)
def test_buffer_full(buffer):
    sim = Sim(data_nodes=2, replicas=2, tables=8)  # with a disk data table: an undo buffer
    assert max(used / total for used, total in sim.q(BUFFER_SQL[buffer])) < 0.5
    sim.cluster.faults.set("buffer-full", buffer=buffer, share=0.9)
    shares = {round(used / total, 3) for used, total in sim.q(BUFFER_SQL[buffer])}
    assert shares == {0.9}
    others = [sql for name, sql in BUFFER_SQL.items() if name != buffer]
    assert all(max(u / t for u, t in sim.q(sql)) < 0.5 for sql in others)
    sim.cluster.faults.clear("buffer-full")
    assert max(used / total for used, total in sim.q(BUFFER_SQL[buffer])) < 0.5


def test_buffer_full_checks_the_buffer():
    with pytest.raises(FaultError, match="buffer must be one of"):
        Faults().set("buffer-full", buffer="send", share=0.5)
