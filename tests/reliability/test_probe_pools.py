"""/probe with every spelling of one SQL node holds no more connections than
--exporter.max-connections to it, counted by a TCP relay in front of ndbsim."""

from __future__ import annotations

import asyncio
import itertools

import httpx
import pytest
from ndb_harness import running_exporter, running_ndbsim
from ndbinfo_exporter.targets import TargetConfig, Targets

from tests.support.tcp_counter import CountingRelay

PASSWORD = "pools-pw-9"
MAX_CONNECTIONS = 2


def spellings(host: str) -> list[str]:
    """Every upper/lower-case variant of ``host``."""
    return [
        "".join(char.upper() if upper else char for char, upper in zip(host, mask, strict=True))
        for mask in itertools.product((False, True), repeat=len(host))
    ]


def test_spellings_share_one_name():
    targets = Targets(default=TargetConfig("localhost", 3306, "u"), auth_modules={})
    names = {targets.for_probe(f"{h}:3306", None).name for h in spellings("localhost")[:64]}
    names |= {targets.for_probe(t, None).name for t in ("localhost.:3306", "LOCALHOST")}
    assert names == {"localhost:3306"}


@pytest.mark.integration
def test_case_variants_do_not_multiply_connections():
    with running_ndbsim(password=PASSWORD) as sim:
        relay = CountingRelay(sim.port)
        args = [
            f"--mysqld.address=localhost:{relay.port}",
            "--mysqld.username=ndbsim",
            f"--exporter.max-connections={MAX_CONNECTIONS}",
            "--collector.status",
        ]
        try:
            with running_exporter(args, env={"NDB_EXPORTER_PASSWORD": PASSWORD}) as exporter:
                variants = spellings("localhost")[:256]

                async def probe_all() -> list[int]:
                    limits = httpx.Limits(max_connections=64)
                    async with httpx.AsyncClient(timeout=60, limits=limits) as client:
                        responses = await asyncio.gather(
                            *(
                                client.get(
                                    f"http://{exporter.address}/probe",
                                    params={"target": f"{host}:{relay.port}"},
                                )
                                for host in variants
                            )
                        )
                    return [r.status_code for r in responses]

                statuses = asyncio.run(probe_all())
                assert statuses == [200] * len(variants)
                assert relay.total >= 1
                assert relay.peak <= MAX_CONNECTIONS
        finally:
            relay.close()
