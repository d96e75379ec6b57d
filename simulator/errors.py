"""MySQL errors the simulated SQL node returns (code, SQLSTATE, message as mysqld words them)."""

from __future__ import annotations

from mysql_mimic.errors import MysqlError

SQLSTATES = {
    1036: "HY000",  # read only table
    1040: "08004",  # too many connections
    1044: "42000",  # access denied to database
    1045: "28000",  # access denied (login)
    1046: "3D000",  # no database selected
    1049: "42000",  # unknown database
    1054: "42S22",  # unknown column
    1055: "42000",  # only_full_group_by
    1064: "42000",  # syntax
    1065: "42000",  # empty query
    1094: "HY000",  # unknown thread id (KILL)
    1109: "42S02",  # unknown table in information_schema
    1115: "42000",  # unknown character set
    1141: "42000",  # no such grant
    1133: "42000",  # no such account (GRANT in 5.7)
    1142: "42000",  # command denied for table
    1144: "42000",  # illegal GRANT/REVOKE
    1147: "42000",  # no such table grant
    1146: "42S02",  # table doesn't exist
    1193: "HY000",  # unknown system variable
    1210: "HY000",  # wrong arguments (EXECUTE)
    1226: "42000",  # account resource limit (max_user_connections)
    1227: "42000",  # privilege needed
    1228: "HY000",  # session variable set as global
    1229: "HY000",  # global variable set as session
    1231: "42000",  # wrong value for variable
    1232: "42000",  # wrong type for variable
    1235: "42000",  # not supported
    1238: "HY000",  # read only variable
    1243: "HY000",  # unknown prepared statement
    1273: "HY000",  # unknown collation
    1286: "42000",  # unknown storage engine
    1292: "22007",  # truncated wrong value
    1296: "HY000",  # error from storage engine
    1305: "42000",  # function does not exist
    1317: "70100",  # query interrupted
    1381: "HY000",  # binary logging off
    1410: "42000",  # GRANT may not create an account
    1690: "22003",  # out of range
    3167: "HY000",  # 5.7 information_schema status/variables tables disabled
}

CLUSTER_FAILURE = (1296, "Got error 157 'Connection to NDB failed' from NDBINFO")


class SqlError(MysqlError):
    """An error to send to the client instead of a result."""

    def __init__(self, code: int, message: str):
        super().__init__(message, code)  # type: ignore[arg-type]

    @property
    def sqlstate(self) -> str:
        return SQLSTATES.get(int(self.code), "HY000")


def sqlstate_of(code: int) -> str:
    return SQLSTATES.get(int(code), "HY000")
