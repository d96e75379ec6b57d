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
    1109: "42S02",  # unknown table in information_schema
    1142: "42000",  # command denied for table
    1146: "42S02",  # table doesn't exist
    1193: "HY000",  # unknown system variable
    1229: "HY000",  # global variable set as session
    1231: "42000",  # wrong value for variable
    1235: "42000",  # not supported
    1238: "HY000",  # read only variable
    1296: "HY000",  # error from storage engine
    1305: "42000",  # function does not exist
    1690: "22003",  # out of range
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
