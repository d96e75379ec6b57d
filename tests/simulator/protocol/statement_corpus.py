"""Statements for the SQL front's tests: those a new user found failing, seeded mutations of a
statement, and the words of ndbsim's own parts that no reply may carry."""

from __future__ import annotations

import random
import re

MUTATIONS_PER_STATEMENT = 6

# The statements a new user found failing.
WHY = [
    "SET lock_wait_timeout=2",
    "SET SESSION lock_wait_timeout=2",
    "SELECT @@lock_wait_timeout",
    "SELECT page_size, compress_ops, compress_ops_ok, compress_time, uncompress_ops, "
    "uncompress_time FROM information_schema.innodb_cmp",
    "SELECT page_size, buffer_pool_instance, pages_used, pages_free, relocation_ops, "
    "relocation_time FROM information_schema.innodb_cmpmem",
    "SHOW ENGINE NDBCLUSTER STATUS",
    "PREPARE s FROM 'SELECT ?'",
    "SELECT * FROM information_schema.PROCESSLIST",
    "SELECT @@global.read_only, @@hostname",
    "SELECT CONV('ff', 16, 10), UNIX_TIMESTAMP()",
    "SELECT FILE_NAME, LOGFILE_GROUP_NAME FROM information_schema.FILES "
    "WHERE ENGINE = 'ndbcluster' AND LOGFILE_GROUP_NAME IS NOT NULL",
    "SHOW TABLE STATUS FROM ndbinfo",
    "SHOW GRANTS",
    "SELECT SQL_NO_CACHE node_id FROM ndbinfo.nodes",
    "SET max_execution_time=1000",
    "EXPLAIN SELECT * FROM ndbinfo.nodes",
    "SHOW INDEX FROM ndbinfo.ndb$pools",
    "SHOW CREATE TABLE ndbinfo.memoryusage",
    "SELECT DATABASE(), CONNECTION_ID(), NOW()",
    "BEGIN",
    "COMMIT",
    "START TRANSACTION",
    "ROLLBACK",
    "SET autocommit=0",
    "SET NAMES utf8mb4",
    "SET @@session.wait_timeout=600",
    "USE ndbinfo",
]

# DuckDB's, Python's and sqlglot's words: none may reach a client
FOREIGN = re.compile(
    r"Binder Error|Catalog Error|Parser Error|Conversion Error|Invalid Input|HUGEINT|"
    r"_LITERAL|Traceback|NoneType|object has no attribute|duckdb|sqlglot|KeyError|"
    r"Required module|candidate functions",
    re.I,
)


def mutations(sql: str, rnd: random.Random) -> list[str]:
    """MUTATIONS_PER_STATEMENT variants of `sql`, drawn from `rnd`: each with one token dropped,
    repeated, swapped, cut after, renamed, inserted or its case swapped."""
    tokens = re.findall(r"'[^']*'|`[^`]*`|\w+|[^\s\w]", sql)
    if not tokens:
        return []
    out = []
    for _ in range(MUTATIONS_PER_STATEMENT):
        t = list(tokens)
        i, j = rnd.randrange(len(t)), rnd.randrange(len(t))
        kind = rnd.randrange(7)
        if kind == 0:
            del t[i]
        elif kind == 1:
            t.insert(i, t[j])
        elif kind == 2:
            t[i], t[j] = t[j], t[i]
        elif kind == 3:
            t = t[: max(1, i)]
        elif kind == 4 and re.match(r"\w", t[i]):
            t[i] = rnd.choice(["zz_nosuch", "NULL", "0", "'x'", "@@nosuch", "@v", "`odd name`"])
        elif kind == 5:
            t.insert(i, rnd.choice(["(", ")", ",", "SELECT", "FROM", "WHERE", "'", "?", "--"]))
        else:
            t[i] = t[i].swapcase()
        out.append(" ".join(t))
    return out
