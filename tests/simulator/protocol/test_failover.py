"""Failing the replica over to a standby binlog server through a real client, by the MySQL
manual's "Implementing Failover with NDB Cluster Replication": the newest applied epoch from
ndb_apply_status, the failover query on the standby's ndb_binlog_index, CHANGE REPLICATION
SOURCE TO and START REPLICA; PURGE BINARY LOGS, and the errors of a position the source cannot
serve or that lies before an incident."""

from __future__ import annotations

import time

import pymysql
import pytest
from ndb_harness import running_ndbsim

from tests.support.polling import poll

pytestmark = pytest.mark.integration

PRIMARY, STANDBY = 50, 51
FAILOVER_QUERY = (
    "SELECT @file:=SUBSTRING_INDEX(next_file, '/', -1), @pos:=next_position "
    "FROM mysql.ndb_binlog_index WHERE epoch = @latest ORDER BY epoch ASC LIMIT 1"
)
APPLIED = "SHOW GLOBAL STATUS WHERE Variable_name IN "
COUNTERS = "('Ndb_api_trans_commit_count_replica', 'Ndb_api_pk_op_count_replica')"


class Client:
    """One session (its user variables live as long as it does)."""

    def __init__(self, sim, port: int) -> None:
        self.conn = pymysql.connect(
            host=sim.host,
            port=port,
            user=sim.user,
            password=sim.password,
            cursorclass=pymysql.cursors.DictCursor,
        )

    def rows(self, sql: str) -> list[dict]:
        with self.conn.cursor() as cur:
            cur.execute(sql)
            return list(cur.fetchall())

    def one(self, sql: str) -> dict:
        return self.rows(sql)[0]

    def close(self) -> None:
        self.conn.close()


@pytest.fixture(scope="module")
def pair():
    with running_ndbsim(replica=True, speed=20, binlog_servers=2, max_binlog_size=65536) as sim:
        yield sim


@pytest.fixture
def sim(pair):
    """The replica reading the first binlog server from its end, both threads running."""
    pair.reset()
    replica, primary = Client(pair, pair.replica_port), Client(pair, pair.sql_node_ports()[PRIMARY])
    end = primary.one("SHOW BINARY LOG STATUS")
    repoint(pair, replica, PRIMARY, end["File"], end["Position"])
    replica.close()
    primary.close()
    yield pair
    pair.reset()


def repoint(sim, replica: Client, node_id: int, file: str, position: int, words=None) -> dict:
    """STOP REPLICA, CHANGE REPLICATION SOURCE TO the SQL node `node_id` at file:position,
    START REPLICA (`words` ("MASTER", "SLAVE") before MySQL 8.0.22); the replica's status."""
    source, replica_word = words or ("SOURCE", "REPLICA")
    statement = "CHANGE MASTER" if source == "MASTER" else "CHANGE REPLICATION SOURCE"
    replica.rows(f"STOP {replica_word}")
    replica.rows(
        f"{statement} TO {source}_HOST='{sim.host}', "
        f"{source}_PORT={sim.sql_node_ports()[node_id]}, {source}_LOG_FILE='{file}', "
        f"{source}_LOG_POS={position}"
    )
    replica.rows(f"START {replica_word}")
    return replica.one(f"SHOW {replica_word} STATUS")


def counters(replica: Client) -> dict[str, int]:
    return {r["Variable_name"]: int(r["Value"]) for r in replica.rows(APPLIED + COUNTERS)}


def test_each_binlog_server_has_its_own_log(sim):
    ports = sim.sql_node_ports()
    primary, standby = Client(sim, ports[PRIMARY]), Client(sim, ports[STANDBY])
    query = "SELECT @@server_id AS s, @@log_bin AS b, @@max_binlog_size AS m"
    assert primary.rows(query) == [{"s": 1, "b": 1, "m": 65536}]
    assert standby.rows(query) == [{"s": 2, "b": 1, "m": 65536}]
    logs = standby.rows("SHOW BINARY LOGS")
    assert list(logs[0]) == ["Log_name", "File_size", "Encrypted"] and len(logs) > 2
    newest = primary.one("SELECT MAX(epoch) AS e FROM mysql.ndb_binlog_index")["e"]
    where = f"SELECT File, Position, inserts FROM mysql.ndb_binlog_index WHERE epoch = {newest}"
    mine, theirs = primary.one(where), poll(lambda: standby.rows(where))[0]
    assert mine["inserts"] == theirs["inserts"]
    assert (mine["File"], mine["Position"]) != (theirs["File"], theirs["Position"])
    primary.close()
    standby.close()


def test_the_replica_is_listed_on_the_binlog_server_it_reads_and_moves_with_its_channel(sim):
    """SHOW REPLICAS lists the replica's SQL node (server 101, no report_host) on the binlog
    server its channel reads, and there alone; repointed to the standby, it moves there."""
    ports = sim.sql_node_ports()
    replica = Client(sim, sim.replica_port)
    primary, standby = Client(sim, ports[PRIMARY]), Client(sim, ports[STANDBY])
    listed = primary.rows("SHOW REPLICAS")
    assert [(r["Server_Id"], r["Host"], r["Source_Id"]) for r in listed] == [(101, "", 1)]
    assert standby.rows("SHOW REPLICAS") == []
    end = standby.one("SHOW BINARY LOG STATUS")
    repoint(sim, replica, STANDBY, end["File"], end["Position"])
    assert primary.rows("SHOW REPLICAS") == []
    moved = standby.rows("SHOW REPLICAS")
    assert [(r["Server_Id"], r["Source_Id"]) for r in moved] == [(101, 2)]
    for client in (replica, primary, standby):
        client.close()


def test_the_manual_failover_applies_every_epoch_once(sim):
    """The first binlog server's mysqld stops (the replica's I/O thread reconnects in vain);
    the replica fails over to the standby at the manual's position: the epoch after the newest
    it applied starts there, and the applier commits one transaction with the standby's row
    changes for each standby epoch after it, none missing, none twice."""
    ports = sim.sql_node_ports()
    replica, standby = Client(sim, sim.replica_port), Client(sim, ports[STANDBY])
    newest = "SELECT server_id FROM mysql.ndb_apply_status ORDER BY epoch DESC LIMIT 1"
    assert poll(lambda: replica.one(newest)["server_id"] == 1)  # applied from sql50
    sim.stop_node(PRIMARY)
    status = replica.one("SHOW REPLICA STATUS")
    assert (status["Replica_IO_Running"], status["Last_IO_Errno"]) == ("Connecting", 2003)
    replica.rows("STOP REPLICA")
    latest = replica.one("SELECT @latest:=MAX(epoch) FROM mysql.ndb_apply_status")
    latest = latest["@latest:=MAX(epoch)"]
    before = counters(replica)
    standby.rows(f"SET @latest = {latest}")
    standby.rows(FAILOVER_QUERY)
    resume = standby.one("SELECT @file AS file, @pos AS pos")
    next_epoch = poll(
        lambda: standby.rows(
            "SELECT SUBSTRING_INDEX(File, '/', -1) AS file, Position AS pos "
            "FROM mysql.ndb_binlog_index WHERE epoch > @latest ORDER BY epoch LIMIT 1"
        )
    )
    assert next_epoch == [resume]
    replica.rows(
        f"CHANGE REPLICATION SOURCE TO SOURCE_HOST='{sim.host}', SOURCE_PORT={ports[STANDBY]}, "
        f"SOURCE_LOG_FILE='{resume['file']}', SOURCE_LOG_POS={resume['pos']}"
    )  # the manual's statements, one by one
    replica.rows("START REPLICA")
    from_standby = (
        f"SELECT epoch FROM mysql.ndb_apply_status WHERE server_id = 2 AND epoch > {latest}"
    )
    assert poll(lambda: replica.rows(from_standby))
    status = replica.one("SHOW REPLICA STATUS")
    assert (status["Replica_IO_Running"], status["Replica_SQL_Running"]) == ("Yes", "Yes")
    assert (status["Source_Port"], status["Source_Server_Id"]) == (ports[STANDBY], 2)
    assert len(standby.rows("SHOW REPLICAS")) == 1
    replica.rows("STOP REPLICA")
    after = counters(replica)
    rows = replica.rows("SELECT * FROM mysql.ndb_apply_status ORDER BY server_id")
    assert [r["server_id"] for r in rows] == [1, 2] and rows[0]["epoch"] == latest
    reached = rows[1]["epoch"]
    applied_rows = standby.one(
        "SELECT COUNT(*) AS n, SUM(inserts + updates + deletes) AS changes "
        f"FROM mysql.ndb_binlog_index WHERE epoch > {latest} AND epoch <= {reached}"
    )
    assert applied_rows["n"] > 0
    assert (
        after["Ndb_api_trans_commit_count_replica"] - before["Ndb_api_trans_commit_count_replica"]
        == applied_rows["n"]
    )
    assert (
        after["Ndb_api_pk_op_count_replica"] - before["Ndb_api_pk_op_count_replica"]
        == applied_rows["changes"]
    )
    last = standby.one(
        "SELECT SUBSTRING_INDEX(File, '/', -1) AS log_name, Position AS start_pos, "
        "IF(next_file = File, next_position, NULL) AS end_pos "
        f"FROM mysql.ndb_binlog_index WHERE epoch = {reached}"
    )
    assert (rows[1]["log_name"], rows[1]["start_pos"]) == (last["log_name"], last["start_pos"])
    # a transaction that closed its file ends where the file ends (next_file is the next one)
    assert last["end_pos"] in (None, rows[1]["end_pos"])
    replica.close()
    standby.close()


def test_a_purged_file_or_a_position_past_its_end_stops_the_io_thread(sim):
    """The source refuses the dump request (Binlog_sender::check_start_file); the I/O thread
    stops with 13114 and the source's 1236 text (handle_slave_io)."""
    ports = sim.sql_node_ports()
    replica, primary = Client(sim, sim.replica_port), Client(sim, ports[PRIMARY])
    replica.rows("STOP REPLICA")
    logs = [row["Log_name"] for row in primary.rows("SHOW BINARY LOGS")]
    primary.rows(f"PURGE BINARY LOGS TO '{logs[2]}'")
    for file, position, reason in (
        (logs[1], 4, "Could not find first log file name in binary log index file"),
        (logs[2], 1 << 40, "Client requested source to start replication from position > file size"),
    ):  # fmt: skip
        status = repoint(sim, replica, PRIMARY, file, position)
        assert (status["Replica_IO_Running"], status["Last_IO_Errno"]) == ("No", 13114)
        assert status["Last_IO_Error"] == (
            f"Got fatal error 1236 from source when reading data from binary log: '{reason}'"
        )
        assert (status["Source_Log_File"], status["Read_Source_Log_Pos"]) == (file, position)
        assert status["Replica_IO_State"] == "" and status["Source_Server_Id"] == 0
        connection = replica.one(
            "SELECT SERVICE_STATE, LAST_ERROR_NUMBER FROM "
            "performance_schema.replication_connection_status"
        )
        assert connection == {"SERVICE_STATE": "OFF", "LAST_ERROR_NUMBER": 13114}
    replica.close()
    primary.close()


def test_purge_binary_logs_removes_the_files_and_their_index_rows(sim):
    ports = sim.sql_node_ports()
    primary, replica = Client(sim, ports[PRIMARY]), Client(sim, sim.replica_port)
    logs = [row["Log_name"] for row in primary.rows("SHOW BINARY LOGS")]
    gone = ", ".join(f"'./{name}'" for name in logs[:2])
    count = f"SELECT COUNT(*) AS n FROM mysql.ndb_binlog_index WHERE File IN ({gone})"
    assert primary.one(count)["n"] > 0
    primary.rows(f"PURGE BINARY LOGS TO '{logs[2]}'")
    assert primary.one(count)["n"] == 0
    assert primary.one("SELECT MIN(File) AS f FROM mysql.ndb_binlog_index")["f"] == f"./{logs[2]}"
    assert primary.rows("SHOW BINARY LOGS")[0]["Log_name"] == logs[2]
    with pytest.raises(pymysql.err.MySQLError) as unknown:
        primary.rows("PURGE BINARY LOGS TO 'binlog.999999'")
    assert unknown.value.args == (1373, "Target log not found in binlog index")
    with pytest.raises(pymysql.err.MySQLError) as wrong:
        primary.rows("PURGE BINARY LOGS BEFORE 'soon'")
    assert wrong.value.args[0] == 1210
    # the active file stays (and any opened since), the replica goes on reading
    primary.rows("PURGE BINARY LOGS BEFORE NOW() + INTERVAL 1 DAY")
    assert len(primary.rows("SHOW BINARY LOGS")) <= 3
    assert replica.one("SHOW REPLICA STATUS")["Replica_IO_Running"] == "Yes"
    replica.rows("PURGE BINARY LOGS TO 'binlog.000001'")  # no binary log: nothing to do
    primary.close()
    replica.close()


def test_a_position_before_an_incident_stops_the_applier(sim):
    """The standby's mysqld restarted since its binary log began: binlog.000002 opens with a
    `mysqld startup` LOST_EVENTS incident; a replica starting before it stops with 1590."""
    replica = Client(sim, sim.replica_port)
    status = repoint(sim, replica, STANDBY, "binlog.000002", 4)
    assert (status["Replica_IO_Running"], status["Replica_SQL_Running"]) == ("Yes", "No")
    assert status["Last_SQL_Errno"] == 1590 and status["Last_SQL_Error"] == (
        "The incident LOST_EVENTS occured on the source. Message: mysqld startup"
    )
    assert (status["Relay_Source_Log_File"], status["Exec_Source_Log_Pos"]) == (
        "binlog.000002",
        4,
    )
    replica.close()


def test_the_replica_statements_follow_mysqld(sim):
    replica = Client(sim, sim.replica_port)
    other = Client(sim, sim.sql_node_ports()[PRIMARY])
    replica.rows("START REPLICA")
    assert replica.rows("SHOW WARNINGS") == [
        {"Level": "Note", "Code": 3083,
         "Message": "Replication thread(s) for channel '' are already runnning."}
    ]  # fmt: skip
    for sql, code in (
        ("CHANGE REPLICATION SOURCE TO SOURCE_LOG_POS=4", 3021),
        ("CHANGE REPLICATION SOURCE TO SOURCE_LOG_FILE=@file, SOURCE_LOG_POS=@pos", 1064),
        ("CHANGE MASTER TO MASTER_LOG_POS=4", 1064),  # gone in 8.4
        ("START SLAVE", 1064),
        ("STOP REPLICA FOR CHANNEL 'other'", 3074),
    ):
        with pytest.raises(pymysql.err.MySQLError) as error:
            replica.rows(sql)
        assert error.value.args[0] == code, sql
    with pytest.raises(pymysql.err.MySQLError) as error:
        other.rows("START REPLICA")
    assert error.value.args[0] == 1200
    replica.rows("STOP REPLICA IO_THREAD")
    status = replica.one("SHOW REPLICA STATUS")
    assert (status["Replica_IO_Running"], status["Replica_SQL_Running"]) == ("No", "Yes")
    replica.rows("STOP REPLICA")
    replica.rows("STOP REPLICA")
    assert replica.rows("SHOW WARNINGS")[0]["Code"] == 3084
    assert replica.one("SHOW REPLICA STATUS")["Seconds_Behind_Source"] is None
    replica.close()
    other.close()


def test_select_assigns_user_variables(sim):
    client = Client(sim, sim.sql_node_ports()[PRIMARY])
    row = client.one("SELECT @a:=1 + 1, @b := SUBSTRING_INDEX('./binlog.000007', '/', -1)")
    assert row == {
        "@a:=1 + 1": 2,
        "@b := SUBSTRING_INDEX('./binlog.000007', '/', -1)": "binlog.000007",
    }
    # no row: the variables keep their values; an aggregate of no rows is NULL
    client.rows("SELECT @a:=epoch FROM mysql.ndb_binlog_index WHERE epoch < 0")
    client.rows("SELECT @c:=MAX(epoch) FROM mysql.ndb_binlog_index WHERE epoch < 0")
    assert client.one("SELECT @a AS a, @b AS b, @c AS c") == {
        "a": 2,
        "b": "binlog.000007",
        "c": None,
    }
    client.close()


def test_on_7x_the_words_are_master_and_slave():
    with running_ndbsim(
        replica=True, speed=20, binlog_servers=2, max_binlog_size=65536, ndb_version="7.6"
    ) as sim:
        replica = Client(sim, sim.replica_port)
        status = repoint(sim, replica, STANDBY, "binlog.000002", 10**9, ("MASTER", "SLAVE"))
        assert (status["Slave_IO_Running"], status["Last_IO_Errno"]) == ("No", 1236)
        assert status["Last_IO_Error"] == (
            "Got fatal error 1236 from master when reading data from binary log: "
            "'Client requested master to start replication from position > file size'"
        )
        with pytest.raises(pymysql.err.MySQLError) as error:
            replica.rows("CHANGE REPLICATION SOURCE TO SOURCE_LOG_POS=4")
        assert error.value.args[0] == 1064
        replica.rows("PURGE BINARY LOGS TO 'binlog.000001'")  # no binary log: nothing to do
        replica.close()


def test_the_manual_query_finds_where_a_lagging_replica_stands():
    """With the replica 900 s behind (a minute and a half of cluster time at a thousand times
    the speed) @latest's next_file/next_position is the end of the applied epoch's transaction,
    where the replica's SQL thread stands, far behind the binary log's end."""
    with running_ndbsim(replica=True, speed=1000) as sim:
        while sim.status()["cluster_time"] < 1200:
            time.sleep(0.2)
        sim.fault("replica-behind", seconds=900)
        replica, source = Client(sim, sim.replica_port), Client(sim, sim.port)
        applied = replica.one("SELECT epoch, log_name, end_pos FROM mysql.ndb_apply_status")
        source.rows(f"SET @latest = {applied['epoch']}")
        source.rows(FAILOVER_QUERY)
        resume = source.one("SELECT @file AS file, @pos AS pos")
        assert (resume["file"], resume["pos"]) == (applied["log_name"], applied["end_pos"])
        # read a moment later: the replica has applied on since (a second is 1000 here)
        status = replica.one("SHOW REPLICA STATUS")
        assert (status["Relay_Source_Log_File"], status["Exec_Source_Log_Pos"]) >= (
            resume["file"],
            resume["pos"],
        )
        binlog = source.one("SHOW BINARY LOG STATUS")
        assert (resume["file"], resume["pos"]) < (binlog["File"], binlog["Position"])
        # every row chains to the next, none twice
        chain = source.one(
            "SELECT COUNT(*) AS n, COUNT(DISTINCT a.epoch) AS epochs, COUNT(b.epoch) AS linked "
            "FROM mysql.ndb_binlog_index a LEFT JOIN mysql.ndb_binlog_index b "
            "ON b.File = a.next_file AND b.Position = a.next_position"
        )
        assert chain["n"] == chain["epochs"] == chain["linked"] + 1 > 9000
        replica.close()
        source.close()
