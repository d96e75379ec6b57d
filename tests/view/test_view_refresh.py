"""The view's background refresh: a stale model is answered at once with its age, one refresh
runs per target at a time, and no answer shows older data than one served before.

The scraper here finishes a scrape only when the test lets it, so every case asserts counts and
order, never times."""

from __future__ import annotations

import asyncio
import dataclasses
from types import SimpleNamespace

import httpx
import pytest
from fastapi import FastAPI
from ndbinfo_exporter.health import placement
from ndbinfo_exporter.targets import TargetConfig, Targets
from ndbinfo_exporter.view import routes as view
from ndbinfo_exporter.view import source as source_module

from tests.health.scrape_data import Result, cluster, placement_rows


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class GatedScraper:
    """Scrapes that finish when the test opens the gate; counts what was started."""

    def __init__(self, clock: Clock):
        self.clock = clock
        self.result = cluster()
        self.rows = placement_rows(tables=4, dbs=("app",))
        self.started: dict[str, int] = {}
        self.queries = 0
        self.gate = asyncio.Event()
        self.gate.set()
        self.finished_at: float | None = None  # when set, what the next scrape says
        self._last: dict[str, Result] = {}

    def last(self, target_name: str) -> Result | None:
        return self._last.get(target_name)

    async def scrape(self, target, timeout: float) -> Result:
        self.started[target.name] = self.started.get(target.name, 0) + 1
        await self.gate.wait()
        finished = self.clock.now if self.finished_at is None else self.finished_at
        result = dataclasses.replace(self.result, target=target.name, finished_at=finished)
        self._last[target.name] = result
        return result

    async def management(self, target, timeout: float, max_age: float):
        return None  # no management server is read

    async def fold(self, target, sql: str, timeout: float, reduce):
        return reduce(iter(await self.query(target, sql, timeout)))

    async def query(self, target, sql: str, timeout: float) -> list[dict]:
        self.queries += 1
        return self.rows


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def scraper(clock):
    return GatedScraper(clock)


@pytest.fixture
async def client(scraper, clock, monkeypatch):
    monkeypatch.setattr(source_module, "REFRESH_GRACE", 0.01)
    application = FastAPI(docs_url=None, redoc_url=None, openapi_url=None)
    settings = SimpleNamespace(
        telemetry_path="/metrics", query_timeout=5.0, view_alerts_url=None, refresh_max_age=120.0
    )
    targets = Targets(
        default=TargetConfig("127.0.0.1", 3306, "exporter"),
        auth_modules={},
        allowed_patterns=("10.0.0.*:3306",),
    )
    application.include_router(view.make_router(application, settings, scraper, targets, clock))
    transport = httpx.ASGITransport(app=application)
    async with httpx.AsyncClient(transport=transport, base_url="http://view") as http:
        yield http


async def settled(client: httpx.AsyncClient, path: str = "/api/v1/cluster") -> httpx.Response:
    """The answer once no refresh runs any more (a first one may still be 503 meanwhile)."""
    for _ in range(200):
        answer = await client.get(path)
        if answer.headers.get("x-view-refreshing") == "false":
            return answer
        await asyncio.sleep(0.01)
    raise AssertionError("the refresh never finished")


async def test_a_stale_model_is_answered_at_once_with_its_age(client, scraper, clock):
    first = await client.get("/api/v1/cluster")
    assert (first.json()["scraped_at"], first.headers["age"]) == (1000.0, "0")
    clock.now += 15
    scraper.gate.clear()  # the next scrape hangs until the gate opens
    stale = await client.get("/api/v1/cluster")
    assert stale.status_code == 200
    assert stale.json()["scraped_at"] == 1000.0
    assert (stale.headers["age"], stale.headers["x-view-refreshing"]) == ("15", "true")
    placement = await client.get("/api/v1/placement")
    assert (placement.status_code, placement.headers["age"]) == (200, "15")
    assert scraper.started == {"127.0.0.1:3306": 2}
    scraper.gate.set()
    fresh = await settled(client)
    assert (fresh.json()["scraped_at"], fresh.headers["age"]) == (1015.0, "0")


async def test_one_refresh_per_target_at_a_time(client, scraper, clock):
    paths = ["/api/v1/cluster", "/api/v1/findings", "/api/v1/config", "/api/v1/placement"]
    other = {"target": "10.0.0.7:3306"}
    await client.get(paths[0])
    await client.get(paths[0], params=other)
    clock.now += 15
    scraper.gate.clear()
    for _ in range(3):  # viewers keep asking while the refreshes hang
        answers = await asyncio.gather(
            *(client.get(p) for p in paths * 5), *(client.get(p, params=other) for p in paths * 5)
        )
        assert {a.status_code for a in answers} == {200}
        assert {a.headers["x-view-refreshing"] for a in answers} == {"true"}
    assert scraper.started == {"127.0.0.1:3306": 2, "10.0.0.7:3306": 2}
    scraper.gate.set()
    await settled(client)
    await settled(client, "/api/v1/cluster?target=10.0.0.7:3306")
    assert scraper.started == {"127.0.0.1:3306": 2, "10.0.0.7:3306": 2}


async def test_no_answer_shows_older_data_than_one_served_before(client, scraper, clock):
    served = [(await client.get("/api/v1/cluster")).json()["scraped_at"]]
    for step in range(4):
        clock.now += 11
        scraper.gate.clear()
        if step == 2:  # a scrape whose result is older than the model's (a clock step back)
            scraper.finished_at = 990.0
        answers = await asyncio.gather(*(client.get("/api/v1/cluster") for _ in range(5)))
        scraper.gate.set()
        answers.append(await settled(client))
        scraper.finished_at = None
        served += [a.json()["scraped_at"] for a in answers]
    assert served == sorted(served)
    assert served[-1] == clock.now
    assert 990.0 not in served


async def test_a_target_never_scraped_waits_for_its_first_scrape_until_the_timeout(
    client, scraper, monkeypatch
):
    scraper.gate.clear()
    source = None

    def short_timeout(make):
        def made(*args, **kwargs):
            nonlocal source
            source = make(*args, **kwargs)
            source._timeout = 0.05
            return source

        return made

    monkeypatch.setattr(view, "ViewSource", short_timeout(view.ViewSource))
    answer = await client.get("/api/v1/cluster", params={"target": "10.0.0.8:3306"})
    assert answer.status_code == 503
    assert answer.json() == {"error": "the first scrape of 10.0.0.8:3306 has not finished yet"}
    assert scraper.started == {"10.0.0.8:3306": 1}
    scraper.gate.set()
    assert (await settled(client, "/api/v1/cluster?target=10.0.0.8:3306")).status_code == 200
    assert scraper.started == {"10.0.0.8:3306": 1}


async def test_a_page_past_the_end_is_refused_before_it_is_built(client, monkeypatch):
    built = []
    page_view = placement.page_view
    monkeypatch.setattr(
        placement,
        "page_view",
        lambda *args, **kwargs: built.append(kwargs["page"]) or page_view(*args, **kwargs),
    )
    assert (await client.get("/api/v1/placement", params={"page_size": 2})).status_code == 200
    past = await client.get("/api/v1/placement", params={"page_size": 2, "page": 3})
    assert past.status_code == 400
    assert past.json() == {"error": "page 3 is past the last page (2)"}
    assert built == [1]
