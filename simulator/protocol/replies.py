"""Server-level answers of the SQL node that do not read tables: the columns of replication and
binary log status, SHOW ENGINE NDBCLUSTER STATUS, SHOW GRANTS, EXPLAIN."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ndbsim.engine import infoschema
from ndbsim.errors import SqlError

if TYPE_CHECKING:
    from ndbsim.versions import NdbVersion

_SIZEOF = (
    ("NdbTransaction", 368),
    ("NdbOperation", 944),
    ("NdbIndexScanOperation", 1152),
    ("NdbIndexOperation", 944),
    ("NdbRecAttr", 88),
    ("NdbApiSignal", 144),
    ("NdbLabel", 200),
    ("NdbBranch", 32),
    ("NdbSubroutine", 72),
    ("NdbCall", 24),
    ("NdbBlob", 264),
    ("NdbReceiver", 68),
)

EXPLAIN_COLUMNS = [
    "id", "select_type", "table", "partitions", "type", "possible_keys", "key", "key_len",
    "ref", "rows", "filtered", "Extra",
]  # fmt: skip


def _removed(statement: str) -> SqlError:
    near = statement.split(" ", 1)[1]
    return SqlError(
        1064,
        "You have an error in your SQL syntax; check the manual that corresponds to your MySQL "
        f"server version for the right syntax to use near '{near}' at line 1",
    )


def replica_status(version: NdbVersion, replica_words: bool) -> list[str]:
    """Columns of SHOW SLAVE STATUS / SHOW REPLICA STATUS (data/mysqld/replication.json).
    MySQL 5.7 has no REPLICA form; 8.4 has no SLAVE form."""
    server = infoschema.mysqld_version(version)
    if replica_words and server < (8, 0, 22):
        raise _removed("SHOW REPLICA STATUS")
    if not replica_words and server >= (8, 4):
        raise _removed("SHOW SLAVE STATUS")
    name = "SHOW REPLICA STATUS" if replica_words else "SHOW SLAVE STATUS"
    return list(infoschema.replication_columns("statements", name, version))


def binary_log_status(version: NdbVersion, new_words: bool) -> list[str]:
    """Columns of SHOW MASTER STATUS / SHOW BINARY LOG STATUS."""
    server = infoschema.mysqld_version(version)
    if new_words and server < (8, 2):
        raise _removed("SHOW BINARY LOG STATUS")
    if not new_words and server >= (8, 4):
        raise _removed("SHOW MASTER STATUS")
    name = "SHOW BINARY LOG STATUS" if new_words else "SHOW MASTER STATUS"
    return list(infoschema.replication_columns("statements", name, version))


def ndb_engine_status(
    status: dict[str, Any], sessions: int, binlog: str | None
) -> list[tuple[str, str, str]]:
    """SHOW ENGINE NDBCLUSTER STATUS: the cluster connection, the NDB API object pools of this
    server and the binlog injector's epochs (`binlog`: the row's Status; None: no such row)."""
    data_nodes = int(status.get("Ndb_number_of_data_nodes", 0))
    ready = int(status.get("Ndb_number_of_ready_data_nodes", 0))
    connection = (
        f"cluster_node_id={status.get('Ndb_cluster_node_id', 0)}, "
        f"connected_host={status.get('Ndb_config_from_host', '')}, "
        f"connected_port={status.get('Ndb_config_from_port', 1186)}, "
        f"number_of_data_nodes={data_nodes}, number_of_ready_data_nodes={ready}, "
        f"connect_count={status.get('Ndb_connect_count', 0)}"
    )
    pools = {
        "NdbTransaction": (2 + sessions, 2),
        "NdbOperation": (4 + 2 * sessions, 4),
        "NdbIndexScanOperation": (sessions, sessions),
        "NdbRecAttr": (64 * max(1, data_nodes), 64 * max(1, data_nodes)),
        "NdbApiSignal": (16, 16),
        "NdbBlob": (1, 1),
        "NdbReceiver": (data_nodes, 0),
    }
    rows = [("ndbcluster", "connection", connection)]
    for name, size in _SIZEOF:
        created, free = pools.get(name, (0, 0))
        rows.append(("ndbcluster", name, f"created={created}, free={free}, sizeof={size}"))
    if binlog is not None:
        rows.append(("ndbcluster", "binlog", binlog))
    return rows


def idle_binlog(status: dict[str, Any], buffered_epoch: int) -> str:
    """The `binlog` row of a SQL node whose injector writes no binary log: its event buffer
    receives every epoch of the cluster (its binlog thread subscribes for schema distribution),
    whether or not it commits in them."""
    committed = int(status.get("Ndb_last_commit_epoch_server", 0))
    return (
        f"latest_epoch={buffered_epoch}, latest_trans_epoch={committed}, "
        "latest_received_binlog_epoch=0, latest_handled_binlog_epoch=0, "
        "latest_applied_binlog_epoch=0"
    )


_PLUGINS = (
    ("binlog", "STORAGE ENGINE"),
    ("mysql_native_password", "AUTHENTICATION"),
    ("sha256_password", "AUTHENTICATION"),
    ("caching_sha2_password", "AUTHENTICATION"),
    ("CSV", "STORAGE ENGINE"),
    ("MEMORY", "STORAGE ENGINE"),
    ("InnoDB", "STORAGE ENGINE"),
    ("MyISAM", "STORAGE ENGINE"),
    ("PERFORMANCE_SCHEMA", "STORAGE ENGINE"),
    ("ndbcluster", "STORAGE ENGINE"),
    ("ndbinfo", "STORAGE ENGINE"),
    ("ndb_transid_mysql_connection_map", "INFORMATION SCHEMA"),
)


def plugins(version: NdbVersion) -> list[tuple]:
    """SHOW PLUGINS: the built-in plugins of an NDB SQL node (5.7 has no caching_sha2)."""
    return [
        (name, "ACTIVE", kind, None, "GPL")
        for name, kind in _PLUGINS
        if not (version.is_7x and name == "caching_sha2_password")
    ]


def grants(user: str, version: NdbVersion) -> list[tuple[str]]:
    """What the one account of ndbsim may do: read everything, see every process."""
    account = f"'{user}'@'%'" if version.is_7x else f"`{user}`@`%`"
    return [(f"GRANT SELECT, PROCESS, REPLICATION CLIENT ON *.* TO {account}",)]


def explain_rows(tables: list[str]) -> list[tuple]:
    """Traditional EXPLAIN: one full scan per table read (ndbinfo tables have no indexes the
    optimizer can use), or 'No tables used'."""
    if not tables:
        return [(1, "SIMPLE", None, None, None, None, None, None, None, None, None,
                 "No tables used")]  # fmt: skip
    return [
        (1, "SIMPLE", t, None, "ALL", None, None, None, None, 2, "100.00", None) for t in tables
    ]
