"""What a DBA runs on NDB replication by hand, through a real MySQL client: purging a binlog
server's binary logs, and the manual's channel failover to a standby binlog server
("Implementing Failover with NDB Cluster Replication")."""

from __future__ import annotations

from contextlib import closing

import mysql.connector
from ndb_harness.simulator import MysqlAccount


def _run(account: MysqlAccount, *statements: str) -> list[tuple]:
    """The statements in one session; the rows of the last."""
    connection = mysql.connector.connect(
        host=account.host, port=account.port, user=account.user, password=account.password
    )
    with closing(connection), closing(connection.cursor()) as cursor:
        rows: list[tuple] = []
        for statement in statements:
            cursor.execute(statement)
            rows = cursor.fetchall() if cursor.with_rows else []
        return rows


def purge_binary_logs(binlog_server: MysqlAccount) -> None:
    """PURGE BINARY LOGS TO the newest file: every older file and its ndb_binlog_index rows
    go."""
    newest = _run(binlog_server, "SHOW BINARY LOGS")[-1][0]
    _run(binlog_server, f"PURGE BINARY LOGS TO '{newest}'")


def fail_over(replica: MysqlAccount, standby: MysqlAccount) -> tuple[str, int]:
    """The manual's failover: the newest epoch the replica cluster applied, the standby's
    binary log position right after that epoch (next_file, next_position of its row), and
    the replica's channel restarted there. Returns (file, position)."""
    ((latest,),) = _run(replica, "SELECT @latest := MAX(epoch) FROM mysql.ndb_apply_status")
    ((file, position),) = _run(
        standby,
        "SELECT SUBSTRING_INDEX(next_file, '/', -1) AS file, next_position AS position "
        f"FROM mysql.ndb_binlog_index WHERE epoch = {int(latest)} ORDER BY epoch ASC LIMIT 1",
    )
    _run(
        replica,
        "STOP REPLICA",
        f"CHANGE REPLICATION SOURCE TO SOURCE_HOST='{standby.host}', "
        f"SOURCE_PORT={standby.port}, SOURCE_LOG_FILE='{file}', SOURCE_LOG_POS={int(position)}",
        "START REPLICA",
    )
    return file, int(position)
