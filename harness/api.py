"""What the launchers ask of the HTTP servers they start: whether one answers yet, and the
`data` of a Prometheus-style API answer (Prometheus, Alertmanager, VictoriaMetrics, vmalert)."""

from __future__ import annotations

from typing import Any

import httpx


def answers(url: str, timeout: float = 2.0) -> bool:
    """Whether a GET of ``url`` answers 200 (a readiness or status page)."""
    try:
        return httpx.get(url, timeout=timeout).status_code == 200
    except httpx.HTTPError:
        return False


def api_data(url: str, **params: str) -> Any:
    """The `data` of an API answer whose `status` is `success`."""
    body = httpx.get(url, params=params, timeout=10.0).json()
    assert body.get("status") == "success", f"{url} {params}: {body}"
    return body["data"]
