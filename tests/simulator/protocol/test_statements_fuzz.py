"""Every reply is a MySQL result or a MySQL error with a mysqld code and its SQLSTATE: a bounded
corpus of statements drivers and tools send, plus seeded mutations of them (tokens dropped,
repeated, swapped, cut, names changed)."""

from __future__ import annotations

import json
import random

import mysql.connector
import pytest
from ndbsim.errors import SQLSTATES

from tests.simulator.protocol.statement_corpus import FOREIGN, WHY, mutations
from tests.support.sqlnode_helpers import CAPTURES, RunningSqlNode

SEED = 16

CORPUS = [
    *WHY,
    *(c["query"] for c in json.loads(CAPTURES.read_text())["captures"]),
    "SELECT * FROM ndbinfo.nodes",
    "SELECT node_id, SUM(used) FROM ndbinfo.memoryusage GROUP BY node_id",
    "SELECT * FROM ndbinfo.counters WHERE counter_name LIKE 'READ%' ORDER BY val DESC LIMIT 3",
    "SELECT COUNT(*) FROM ndbinfo.table_fragments t JOIN ndbinfo.nodes n USING (node_id)",
    "SHOW GLOBAL STATUS LIKE 'Ndb%'",
    "SHOW GLOBAL VARIABLES WHERE Variable_name LIKE 'ndbinfo%'",
    "SHOW SESSION STATUS",
    "SHOW /*!50002 GLOBAL */ STATUS LIKE 'Com_%'",
    "/*!40101 SET character_set_client = utf8mb4 */",
    "SHOW FULL TABLES FROM ndbinfo LIKE 'ndb$%'",
    "SHOW FULL COLUMNS FROM nodes FROM ndbinfo",
    "SHOW SLAVE STATUS",
    "SHOW REPLICA STATUS",
    "SHOW MASTER STATUS",
    "SHOW BINARY LOG STATUS",
    "SHOW WARNINGS",
    "SHOW ERRORS LIMIT 1",
    "SHOW COLLATION WHERE Charset = 'utf8mb4'",
    "SHOW CHARACTER SET LIKE 'latin%'",
    "SHOW CREATE DATABASE ndbinfo",
    "SHOW ENGINES",
    "SHOW PLUGINS",
    "SHOW PROCESSLIST",
    "SELECT @@session.transaction_isolation, @@tx_isolation, @@query_cache_type",
    "SELECT @@global.max_connections, @@version_comment LIMIT 1",
    "SELECT TABLE_NAME, COLUMN_NAME, UPPER(CASE WHEN CHARACTER_MAXIMUM_LENGTH IS NULL "
    "THEN NUMERIC_PRECISION ELSE CHARACTER_MAXIMUM_LENGTH END) AS COLUMN_SIZE, "
    "IF(EXTRA LIKE '%auto_increment%', 'YES', 'NO') FROM information_schema.COLUMNS "
    "WHERE TABLE_SCHEMA = 'ndbinfo' AND TABLE_NAME LIKE 'mem%' ORDER BY ORDINAL_POSITION",
    "SELECT * FROM information_schema.FILES WHERE LOGFILE_GROUP_NAME = 'lg_1'",
    "SELECT * FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'ndbinfo'",
    "SELECT * FROM performance_schema.session_variables WHERE VARIABLE_NAME = 'autocommit'",
    "SELECT * FROM performance_schema.threads",
    "SELECT VARIABLE_NAME FROM performance_schema.global_status WHERE VARIABLE_VALUE > 10",
    "SELECT FROM_UNIXTIME(UNIX_TIMESTAMP() - 60), DATE_SUB(NOW(), INTERVAL 1 HOUR)",
    "SELECT CONV(HEX(255), 16, 8), CONCAT_WS('-', 1, 2.5, NULL, 'x'), IFNULL(@nothing, 0)",
    "SELECT LAST_DAY('2024-02-10'), DATEDIFF('2024-03-01', '2024-02-01'), CURDATE()",
    "SELECT CAST('12' AS UNSIGNED) + 1, 7 DIV 2, 7 MOD 2, ROUND(2.555, 2)",
    "SET NAMES latin1",
    "SET character_set_results = NULL",
    "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED",
    "SET GLOBAL ndbinfo_max_rows = 20",
    "SET @x = (SELECT 1)",
    "DO 1",
    "EXECUTE nosuch",
    "DEALLOCATE PREPARE nosuch",
    "KILL QUERY 1",
    "INSERT INTO ndbinfo.nodes VALUES (1)",
    "UPDATE ndbinfo.nodes SET uptime = 0",
    "DELETE FROM ndbinfo.nodes",
    "CREATE TABLE t (a INT)",
    "DROP TABLE ndbinfo.nodes",
    "ANALYZE TABLE ndbinfo.nodes",
    "CHECK TABLE ndbinfo.memoryusage, nope QUICK",
    "SET @n = (SELECT MAX(uptime) FROM ndbinfo.nodes), wait_timeout = 60 * 2",
    "SHOW COLLATION WHERE Charset = 'latin1' AND Sortlen > 0",
    "HANDLER nodes OPEN",
    "SELECT * FROM nosuchdb.nosuchtable",
    "SELECT * FROM information_schema.GLOBAL_STATUS",
    "SELECT nosuch FROM ndbinfo.nodes",
    "SELECT 1 +",
    "",
    ";",
]


def corpus() -> list[str]:
    rnd = random.Random(SEED)
    statements = list(CORPUS)
    for sql in CORPUS:
        statements += mutations(sql, rnd)
    return statements


def check_replies(node: RunningSqlNode, statements: list[str]) -> tuple[int, int]:
    """Run every statement on one connection (a new one when a statement ends it); return
    (results, errors); fail on anything that is not mysqld's."""
    results = errors = 0
    conn = node.connect(database="ndbinfo")
    try:
        for sql in statements:
            if not conn.is_connected():
                conn = node.connect(database="ndbinfo")
            cur = conn.cursor()
            try:
                cur.execute(sql)
                if cur.description:
                    cur.fetchall()
                results += 1
            except mysql.connector.Error as e:
                if e.errno in (2013, 2055) or e.errno >= 2000 and "Lost connection" in e.msg:
                    assert sql.upper().lstrip().startswith("KILL"), (sql, e.msg)
                    continue
                errors += 1
                assert e.errno in SQLSTATES, (sql, e.errno, e.msg)
                assert e.sqlstate == SQLSTATES[e.errno], (sql, e.errno, e.sqlstate)
                assert e.errno != 1105, (sql, e.msg)
                assert not FOREIGN.search(e.msg or ""), (sql, e.msg)
            finally:
                cur.close()
    finally:
        conn.close()
    return results, errors


@pytest.mark.parametrize("fixture", ["sqlnode", "sqlnode_754"])
def test_every_reply_is_mysqld_s(request, fixture: str) -> None:
    node = request.getfixturevalue(fixture)
    statements = corpus()
    assert 400 <= len(statements) <= 1000
    results, errors = check_replies(node, statements)
    assert results + errors >= len(statements) - 5
    assert results >= 100 and errors >= 100
