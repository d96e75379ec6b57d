"""An in-process ndbsim SQL node on a free port, for the SQL-front tests."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import mysql.connector
from ndbsim.engine.catalog import catalog_for
from ndbsim.engine.database import Engine
from ndbsim.model.cluster import Cluster, ClusterSpec
from ndbsim.protocol import server
from ndbsim.versions import parse_version

USER = "ndbsim"
PASSWORD = "ndbsim"
# Real 7.5.4 output, copied from ../shared/seed-captures.
CAPTURES = (
    Path(__file__).resolve().parents[2]
    / "simulator"
    / "data"
    / "seed-captures"
    / "ndb-7.5.4-ndbinfo.json"
)


@dataclass
class RunningSqlNode:
    port: int
    cluster: Cluster
    engine: Engine
    server: server.NdbServer | None = field(default=None, init=False, repr=False)

    def connect(self, **kw) -> mysql.connector.MySQLConnection:
        args = {"host": "127.0.0.1", "port": self.port, "user": USER, "password": PASSWORD}
        args.update(kw)
        return mysql.connector.connect(**args)

    def query(self, sql: str, database: str | None = "ndbinfo") -> tuple[list[str], list[tuple]]:
        conn = self.connect(database=database) if database else self.connect()
        try:
            cur = conn.cursor()
            cur.execute(sql)
            rows = cur.fetchall() if cur.description else []
            return [d[0] for d in cur.description or []], rows
        finally:
            conn.close()


def start_sql_node(
    version: str,
    clock: Callable[[], float] | None = None,
    wall: Callable[[], float] | None = None,
    server_options: dict | None = None,
    **spec,
) -> tuple[RunningSqlNode, Callable[[], None]]:
    """An in-process SQL node of a cluster built from ``spec``, on the real clocks or on
    ``clock`` (cluster time) and ``wall`` (the hosts' unix time), its server started with
    ``server_options``; returns it and the function that stops it."""
    ndb = parse_version(version)
    clocks = {name: f for name, f in (("clock", clock), ("wall", wall)) if f is not None}
    cluster = Cluster(ClusterSpec(**spec), ndb, **clocks)
    engine = Engine(catalog_for(ndb))
    loop = asyncio.new_event_loop()
    srv = loop.run_until_complete(
        server.start(engine, cluster, "127.0.0.1", 0, USER, PASSWORD, **(server_options or {}))
    )
    port = srv.sockets()[0].getsockname()[1]
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()

    def stop() -> None:
        async def close() -> None:
            srv.close()
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

        asyncio.run_coroutine_threadsafe(close(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)

    node = RunningSqlNode(port, cluster, engine)
    node.server = srv
    return node, stop
