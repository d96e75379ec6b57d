"""Send buffer pressure, a filling tablespace, an expiring certificate and excluded metadata:
each shows in the tables a real cluster shows it in, and clearing it returns to healthy. Also
what the links between nodes look like on a healthy cluster."""

from __future__ import annotations

import time

import pytest
from ndbsim.engine import model_tables
from ndbsim.model.faults import FaultError

from tests.simulator.model.fault_sim import Sim, healthy

POOL = 1024 * 32768  # TRANSPORTER_BUFFERS maximum of a simulated data node
DAY = 86400


@pytest.fixture
def sim() -> Sim:
    return Sim(data_nodes=4, replicas=2, tables=12)


def allocated(sim: Sim) -> dict[int, int]:
    return dict(
        sim.q(
            "SELECT node_id, sum(sendbuffer_alloc_bytes) FROM ndbinfo.transporter_details "
            "GROUP BY node_id"
        )
    )


def pool_used(sim: Sim) -> dict[int, int]:
    return dict(
        sim.q(
            "SELECT node_id, used * 32768 FROM ndbinfo.resources "
            "WHERE resource_name = 'TRANSPORTER_BUFFERS'"
        )
    )


def test_send_buffer_pressure(sim):
    before = allocated(sim)
    assert all(0 < value < 0.05 * POOL for value in before.values())
    sim.cluster.faults.set("send-buffer-pressure", node=3, share=0.9)
    sim.tick(5)
    during = allocated(sim)
    assert 0.85 * POOL <= during[3] <= 0.9 * POOL
    assert all(during[n] < 0.05 * POOL for n in (1, 2, 4))
    assert pool_used(sim)[3] >= during[3]  # the pool counts whole pages
    used = sim.one(
        "SELECT sum(sendbuffer_used_bytes) FROM ndbinfo.transporter_details WHERE node_id = 3"
    )
    assert used > 0.8 * POOL
    sim.cluster.faults.clear("send-buffer-pressure")
    sim.tick(5)
    assert all(value < 0.05 * POOL for value in allocated(sim).values())
    healthy(sim)


def test_send_buffer_pressure_needs_a_data_node(sim):
    with pytest.raises(FaultError, match="not a data node"):
        sim.cluster.faults.set("send-buffer-pressure", node=49)
    assert sim.cluster.faults.set("send-buffer-pressure", node=1)["share"] == 0.92


def data_file(sim: Sim) -> tuple[int, int]:
    return sim.q("SELECT free_extents, total_extents FROM ndbinfo.files WHERE type = 'Data file'")[
        0
    ]


def test_tablespace_full(sim):
    free, total = data_file(sim)
    assert 0.4 < free / total < 0.7
    undo = sim.q("SELECT free_extents, total_extents FROM ndbinfo.files WHERE type = 'Undo file'")
    sim.cluster.faults.set("tablespace-full", share=0.95)
    free, total = data_file(sim)
    assert free == total - round(total * 0.95)
    # the undo log file is untouched
    assert sim.q("SELECT total_extents FROM ndbinfo.files WHERE type = 'Undo file'") == [
        (undo[0][1],)
    ]
    sim.cluster.faults.clear("tablespace-full")
    free, total = data_file(sim)
    assert free / total > 0.4
    healthy(sim)


def expiries(sim: Sim) -> dict[int, int]:
    rows = sim.q("SELECT node_id, min(expires) FROM ndbinfo.ndb$certificates GROUP BY node_id")
    return dict(rows)


def test_certificate_expiring(sim):
    now = time.time()
    before = expiries(sim)
    assert set(before) == {1, 2, 3, 4, 49, 50, 51}  # the data nodes, mgmd and both mysqlds
    assert all(now + 200 * DAY < when < now + 400 * DAY for when in before.values())
    assert sim.one("SELECT count(DISTINCT Node_id) FROM ndbinfo.certificates") == 7
    sim.cluster.faults.set("certificate-expiring", node=2, days=2)
    during = expiries(sim)
    assert now + 1.9 * DAY < during[2] < now + 2.1 * DAY
    assert {n: w for n, w in during.items() if n != 2} == {
        n: w for n, w in before.items() if n != 2
    }
    sim.cluster.faults.set("certificate-expiring", days=10)
    assert all(now + 9.9 * DAY < when < now + 10.1 * DAY for when in expiries(sim).values())
    sim.cluster.faults.clear("certificate-expiring")
    assert expiries(sim) == before
    healthy(sim)


def test_certificate_expiring_checks_the_node(sim):
    with pytest.raises(FaultError, match="not a node"):
        sim.cluster.faults.set("certificate-expiring", node=99, days=1)
    with pytest.raises(FaultError, match="days"):
        sim.cluster.faults.set("certificate-expiring", days=-1)
    # a management node holds a certificate too
    assert sim.cluster.faults.set("certificate-expiring", node=49, days=1)["node"] == 49


def test_no_certificates_before_tls():
    sim = Sim(data_nodes=2, tables=4, version="8.0")
    assert sim.q("SELECT count(*) FROM ndbinfo.ndb$tables WHERE table_name = 'certificates'") == [
        (0,)
    ]


def excluded(sim: Sim) -> list[tuple]:
    model_tables.fill_server_table(sim.cluster, sim.engine, "ndb_sync_excluded_objects")
    return sim.q('SELECT "TYPE", "REASON" FROM p_s.ndb_sync_excluded_objects')


def test_metadata_excluded(sim):
    assert excluded(sim) == []
    sim.cluster.faults.set("metadata-excluded", tables=3)
    rows = excluded(sim)
    assert len(rows) == 3 and {kind for kind, _ in rows} == {"TABLE"}
    sim.cluster.faults.clear("metadata-excluded")
    assert excluded(sim) == []


def test_links_carry_one_quantity_seen_from_both_ends(sim):
    sim.tick(30)
    rows = sim.q(
        "SELECT node_id, remote_node_id, bytes_sent, bytes_received, remote_address, status "
        "FROM ndbinfo.transporters"
    )
    by_link = {(r[0], r[1]): r for r in rows}
    data_links = [(a, b) for a, b in by_link if (b, a) in by_link]
    assert data_links
    for a, b in data_links:
        assert by_link[a, b][2] == by_link[b, a][3]  # A's sent is B's received
    # data node links differ from each other
    assert len({by_link[link][2] for link in data_links}) == len(data_links)
    for node in (1, 2, 3, 4):
        to_mgm = by_link[node, 49][2]
        to_sql = min(by_link[node, 50][2], by_link[node, 51][2])
        assert to_mgm < to_sql / 100
    # unconnected API slots have no address, as the data node writes it
    free = [r for r in rows if r[5] == "DISCONNECTED"]
    assert free and {r[4] for r in free} == {"-"}
    assert {r[2] for r in free} == {0}


def test_restart_info_follows_the_uptimes(sim):
    uptimes = dict(sim.q("SELECT node_id, uptime FROM ndbinfo.nodes"))
    restarted = dict(sim.q("SELECT node_id, node_restart_status FROM ndbinfo.restart_info"))
    oldest = max(uptimes, key=uptimes.get)
    assert set(restarted) == set(uptimes) - {oldest}
    assert set(restarted.values()) == {"Restart completed"}


def test_per_instance_and_per_node_values_differ(sim):
    sim.tick(60)
    for table, column in (
        ("diskpagebuffer", "page_requests_direct_return"),
        ("diskstat", "pages_made_dirty"),
    ):
        values = [r[0] for r in sim.q(f"SELECT {column} FROM ndbinfo.{table} WHERE node_id = 1")]
        assert len(set(values)) == len(values) > 1, table
    used = [
        r[0]
        for r in sim.q("SELECT used FROM ndbinfo.memoryusage WHERE memory_type = 'Data memory'")
    ]
    assert len(set(used)) == len(used) == 4


def test_disk_write_speed_windows_agree_with_the_samples(sim):
    rows = sim.q(
        "SELECT node_id, thr_no, backup_lcp_speed_last_sec, backup_lcp_speed_last_10sec, "
        "std_dev_backup_lcp_speed_last_10sec, redo_speed_last_sec, redo_speed_last_10sec, "
        "redo_speed_last_60sec, std_dev_redo_speed_last_60sec FROM ndbinfo.disk_write_speed_aggregate"
    )
    for node, thr, lcp_1, lcp_10, lcp_sd, redo_1, redo_10, redo_60, redo_sd in rows:
        samples = [
            r[0]
            for r in sim.q(
                "SELECT redo_bytes_written FROM ndbinfo.disk_write_speed_base "
                f"WHERE node_id = {node} AND thr_no = {thr} ORDER BY millis_ago"
            )
        ]
        assert redo_1 == samples[0]
        assert redo_10 == int(sum(samples[:10]) / 10)
        assert redo_60 == int(sum(samples) / 60)
        assert len({redo_1, redo_10, redo_60}) == 3
        assert 0 < redo_sd < redo_60 / 3
        assert (lcp_sd == 0) == (lcp_1 == lcp_10 == 0)


def test_threadstat_os_now_is_the_hosts_clock(sim):
    now_ms = time.time() * 1000
    for (os_now,) in sim.q("SELECT DISTINCT os_now FROM ndbinfo.threadstat"):
        assert abs(os_now - now_ms) < 120_000
