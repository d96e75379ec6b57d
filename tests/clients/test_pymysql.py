"""PyMySQL (pure Python, text protocol, parameters bound by the client)."""

from __future__ import annotations

import pymysql
import pytest

from tests.clients.clients_helpers import CHECKS, expect

pytestmark = pytest.mark.integration

QUERIES = {
    "prepared": ("SELECT node_id, uptime, status FROM ndbinfo.nodes WHERE node_id >= %s", (1,)),
    "nodes": ("SELECT * FROM ndbinfo.nodes", None),
    "status": ("SHOW GLOBAL STATUS LIKE 'Ndb%%'", ()),
    "engine_status": ("SHOW ENGINE NDBCLUSTER STATUS", None),
}


@pytest.fixture(scope="module")
def results(sim) -> dict:
    out = {}
    try:
        conn = pymysql.connect(
            host=sim.host, port=sim.port, user=sim.user, password=sim.password, database="ndbinfo"
        )
    except pymysql.MySQLError as e:
        return {"connect": {"check": "connect", "ok": False, "code": e.args[0], "error": str(e)}}
    out["connect"] = {"check": "connect", "ok": True, "rows": 0}
    with conn:
        for check, (sql, args) in QUERIES.items():
            try:
                with conn.cursor() as cur:
                    cur.execute(sql, args)
                    out[check] = {"check": check, "ok": True, "rows": len(cur.fetchall())}
            except pymysql.MySQLError as e:
                out[check] = {"check": check, "ok": False, "code": e.args[0], "error": str(e)}
    return out


@pytest.mark.parametrize("check", CHECKS)
def test_pymysql(results, check):
    item = expect(results, check)
    if check in ("prepared", "nodes", "status"):
        assert item["rows"] >= 1
