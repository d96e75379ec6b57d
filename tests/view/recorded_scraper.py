"""The view's app in-process on recorded data: a stand-in for its reader, a clock the test
sets, and a management server reader fed recorded replies."""

from __future__ import annotations

import asyncio
import dataclasses
from types import SimpleNamespace

from fastapi import FastAPI
from ndbinfo_exporter.scrape.mgmd import client as mgmd_client
from ndbinfo_exporter.scrape.mgmd import protocol as mgmd_protocol
from ndbinfo_exporter.scrape.mgmd.reader import MgmdReader
from ndbinfo_exporter.targets import Targets
from ndbinfo_exporter.view import routes as view

from tests.health.scrape_data import Result


class RecordedScraper:
    """Stands in for ndbinfo_exporter.view.reader.ViewReader: same methods, answers from recorded data."""

    def __init__(self, result: Result, rows: list[dict], replicas: list[dict]):
        self.result = result
        self.rows = rows
        self.replicas = replicas
        self.scrapes = 0
        self.queries: list[str] = []
        self._last: Result | None = None
        self.manager: MgmdReader | None = None  # the cluster's management server reader

    async def management(self, target, timeout: float, max_age: float):
        if self.manager is None:
            return None
        return await self.manager.current(timeout, max_age)

    def last(self, target_name: str) -> Result | None:
        return self._last

    async def scrape(self, target, timeout: float) -> Result:
        self.scrapes += 1
        await asyncio.sleep(0.01)  # let concurrent viewers pile up
        self._last = dataclasses.replace(self.result, finished_at=clock.now)
        return self._last

    async def fold(self, target, sql: str, timeout: float, reduce):
        return reduce(iter(await self.query(target, sql, timeout)))

    async def query(self, target, sql: str, timeout: float) -> list[dict]:
        self.queries.append(sql)
        await asyncio.sleep(0.01)
        table = sql.partition("f.table_id = ")[2]
        if table:
            return [r for r in self.replicas if r["table_id"] == int(table)]
        return self.rows


class Clock:
    now = 1000.0

    def __call__(self) -> float:
        return self.now


clock = Clock()


def view_app(scraper: RecordedScraper, targets: Targets, alerts_url: str | None = None) -> FastAPI:
    application = FastAPI(docs_url=None, redoc_url=None, openapi_url=None)
    settings = SimpleNamespace(
        telemetry_path="/metrics",
        query_timeout=5.0,
        view_alerts_url=alerts_url,
        refresh_max_age=120.0,
    )
    application.include_router(view.make_router(application, settings, scraper, targets, clock))
    return application


# A get status reply and cluster log events as ndb_mgmd sends them (parsable listen event),
# recorded from ndbsim's management server: two data nodes, the management node, a SQL node.
GET_STATUS = """node status
nodes: 4
node.1.type: NDB
node.1.status: STARTED
node.1.version: 524816
node.1.startphase: 0
node.1.dynamic_id: 1
node.1.node_group: 0
node.1.connect_count: 1
node.1.address: 127.0.0.1
node.2.type: NDB
node.2.status: NO_CONTACT
node.2.version: 0
node.2.startphase: 0
node.2.dynamic_id: 0
node.2.node_group: 0
node.2.connect_count: 1
node.2.address:
node.49.type: MGM
node.49.status: CONNECTED
node.49.version: 524816
node.49.startphase: 0
node.49.dynamic_id: 0
node.49.node_group: 0
node.49.connect_count: 0
node.49.address: 127.0.0.1
node.50.type: API
node.50.status: CONNECTED
node.50.version: 524816
node.50.startphase: 0
node.50.dynamic_id: 0
node.50.node_group: 0
node.50.connect_count: 0
node.50.address: 127.0.0.1""".splitlines()
EVENTS = (
    "type=54\ntime=0\nsource_nodeid=1\nstarting_node=50\nbackup_id=7",
    "type=56\ntime=0\nsource_nodeid=1\nstarting_node=50\nbackup_id=7\nstart_gci=100"
    "\nstop_gci=102\nn_bytes=1048576\nn_records=5000\nn_log_bytes=0\nn_log_records=0"
    "\nn_bytes_hi=1\nn_records_hi=0\nn_log_bytes_hi=0\nn_log_records_hi=0",
    "type=17\ntime=0\nsource_nodeid=2\nstoptype=0",
    "type=27\ntime=0\nsource_nodeid=1\nblock=0\nfailed_node=2\ncompleting_node=1",
    "type=57\ntime=0\nsource_nodeid=1\nstarting_node=50\nbackup_id=8\nerror=1326",
)


def recorded_manager(monkeypatch) -> MgmdReader:
    """A management server reader that received EVENTS and answers get status with
    GET_STATUS, without a connection."""

    async def recorded_status(address):
        return mgmd_protocol.node_statuses(mgmd_protocol.reply_values(GET_STATUS, "node status"))

    monkeypatch.setattr(mgmd_client, "get_status", recorded_status)
    manager = MgmdReader([("mgm1", 1186)])
    monkeypatch.setattr(manager.subscription, "start", lambda: None)
    for block in EVENTS:
        manager.state.record(mgmd_protocol.event(block.split("\n")))
    return manager
