"""The control API's answers to malformed requests, in process."""

from __future__ import annotations

import httpx
from ndbsim.control.api import create_app
from ndbsim.engine.database import ReadMeter
from ndbsim.model.cluster import Cluster, ClusterSpec
from ndbsim.versions import parse_version


async def test_bad_json_is_a_clear_one_line_400():
    app = create_app(Cluster(ClusterSpec(), parse_version("8.4")), ReadMeter())
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://c") as c:
        answer = await c.put(
            "/faults/data-memory",
            content=b"{share: 0.9}",
            headers={"content-type": "application/json"},
        )
        assert answer.status_code == 400
        assert answer.json() == {
            "detail": "the request body is not valid JSON (Expecting property name enclosed in double quotes)"
        }
        wrong = await c.put("/faults/data-memory", json={"share": "lots"})
        assert wrong.status_code == 422
