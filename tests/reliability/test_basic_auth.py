"""Basic auth under a flood of wrong passwords, counted in bcrypt calls (never in time)."""

from __future__ import annotations

import asyncio
import base64
import threading

import bcrypt
import pytest
from ndbinfo_exporter import webconfig
from ndbinfo_exporter.webconfig import BasicAuth

COST = 5  # cheap for the test, and not bcrypt's default 10


def header(user: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


@pytest.fixture
def counted(monkeypatch):
    """Every bcrypt.checkpw call: the cost of the hash it checked against, and the most
    calls running at once."""
    calls: list[int] = []
    running = [0, 0]  # now, peak
    lock = threading.Lock()
    real = bcrypt.checkpw

    def checkpw(password, hashed):
        with lock:
            calls.append(int(hashed.split(b"$")[2]))
            running[0] += 1
            running[1] = max(running)
        try:
            return real(password, hashed)
        finally:
            with lock:
                running[0] -= 1

    monkeypatch.setattr(webconfig.bcrypt, "checkpw", checkpw)
    return calls, running


@pytest.fixture
def auth():
    return BasicAuth({"prometheus": bcrypt.hashpw(b"right", bcrypt.gensalt(rounds=COST))})


async def test_unknown_user_checked_against_the_configured_cost(auth, counted):
    calls, _ = counted
    assert not await auth.verify(header("nobody", "x"), "10.0.0.1")
    assert not await auth.verify(header("prometheus", "wrong"), "10.0.0.1")
    assert calls == [COST, COST]


async def test_a_verified_client_costs_no_bcrypt_and_no_wait(auth, counted):
    calls, running = counted
    assert await auth.verify(header("prometheus", "right"), "10.0.0.2")
    assert len(calls) == 1
    flood = [
        asyncio.ensure_future(auth.verify(header("prometheus", f"guess{i}"), f"10.1.0.{i % 5}"))
        for i in range(40)
    ]
    await asyncio.sleep(0)
    # While 40 wrong guesses queue, the authorised scrape is answered from the cache.
    assert await auth.verify(header("prometheus", "right"), "10.0.0.2")
    assert sum(task.done() for task in flood) < len(flood)
    assert not any(await asyncio.gather(*flood))
    assert len(calls) == 41
    assert running[1] <= BasicAuth.BCRYPT_THREADS


async def test_one_client_checks_one_at_a_time(auth, counted):
    _, running = counted
    await asyncio.gather(*(auth.verify(header("u", str(i)), "10.2.0.1") for i in range(10)))
    assert running[1] == 1
    assert auth._per_client == {}
