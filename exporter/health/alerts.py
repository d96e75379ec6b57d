"""Alerts firing (or pending) for this cluster, read from Prometheus or Alertmanager.

``--view.alerts-url`` names a Prometheus (its /api/v1/alerts gives pending alerts too) or an
Alertmanager (/api/v2/alerts: firing and not silenced). Only the project's alerts (names
starting with ``Ndb``) are shown; ``filter`` query parameters of the URL (``cluster="demo"``,
as Alertmanager's own filter) keep those whose labels match. The answer is kept for the
view's refresh interval, so any number of viewers cost one request per interval.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qsl, urlsplit, urlunsplit

import httpx
from ndbinfo_exporter.health.models import Alert, AlertsView

PREFIX = "Ndb"
TIMEOUT_SECONDS = 3.0
MATCHER = re.compile(r'^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*"([^"]*)"\s*$')
SEVERITY = {"critical": 0, "warning": 1, "info": 2}


NO_ALERTS = AlertsView(source=None, alerts=[])


class AlertsUrlError(ValueError):
    """The URL given to --view.alerts-url is not usable; the message is one line."""


def parse_url(url: str) -> tuple[str, dict[str, str]]:
    """(base URL without query, label matchers) of an --view.alerts-url value."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise AlertsUrlError(f"{public(url)!r} is not an http:// or https:// URL")
    matchers = {}
    for key, value in parse_qsl(parts.query, keep_blank_values=True):
        found = MATCHER.match(value) if key == "filter" else None
        if found is None:
            raise AlertsUrlError(f'query {key}={value!r}: only filter=label="value" is understood')
        matchers[found.group(1)] = found.group(2)
    return urlunsplit((parts.scheme, parts.netloc, parts.path.rstrip("/"), "", "")), matchers


def public(url: str) -> str:
    """The URL without user and password, for the page and error messages."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    netloc = f"[{host}]" if ":" in host else host
    if parts.port:
        netloc += f":{parts.port}"
    return urlunsplit((parts.scheme, netloc, parts.path.rstrip("/"), "", ""))


def web_link(url: object) -> str | None:
    """``url`` when it is an absolute http:// or https:// URL, else None: an alert's links come
    from whoever could post to the alert source, and the page makes them clickable."""
    if not isinstance(url, str):
        return None
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return None
    return url.strip() if parts.scheme in ("http", "https") and parts.hostname else None


def _from_prometheus(base: str, data: dict[str, Any]) -> list[Alert]:
    return [
        Alert(
            name=item["labels"].get("alertname", ""),
            state=item.get("state", "firing"),
            severity=item["labels"].get("severity"),
            summary=item.get("annotations", {}).get("summary"),
            since=item.get("activeAt"),
            labels=item["labels"],
            runbook_url=web_link(item.get("annotations", {}).get("runbook_url")),
            link=f"{public(base)}/alerts",
        )
        for item in data.get("alerts", [])
    ]


def _from_alertmanager(base: str, items: list[dict[str, Any]]) -> list[Alert]:
    return [
        Alert(
            name=item["labels"].get("alertname", ""),
            state="firing",
            severity=item["labels"].get("severity"),
            summary=item.get("annotations", {}).get("summary"),
            since=item.get("startsAt"),
            labels=item["labels"],
            runbook_url=web_link(item.get("annotations", {}).get("runbook_url")),
            link=web_link(item.get("generatorURL")) or f"{public(base)}/#/alerts",
        )
        for item in items
    ]


class AlertSource:
    def __init__(
        self,
        url: str | None,
        interval: float,
        clock: Callable[[], float] = time.time,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self._url = url
        self._transport = transport
        self._base, self._matchers = parse_url(url) if url else ("", {})
        self._interval = interval
        self._clock = clock
        self._cached: tuple[float, AlertsView] | None = None

    async def alerts(self) -> AlertsView:
        if self._url is None:
            return NO_ALERTS
        if self._cached is not None and self._clock() - self._cached[0] < self._interval:
            return self._cached[1]
        try:
            alerts = await self._read()
            view = AlertsView(source=public(self._url), alerts=self._keep(alerts))
        except (httpx.HTTPError, ValueError, KeyError, TypeError) as exc:
            reason = "timed out" if isinstance(exc, httpx.TimeoutException) else type(exc).__name__
            if isinstance(exc, httpx.HTTPStatusError):
                reason = f"HTTP {exc.response.status_code}"
            view = AlertsView(
                source=public(self._url),
                alerts=[],
                error=f"cannot read alerts from {public(self._url)}: {reason}",
            )
        self._cached = (self._clock(), view)
        return view

    async def _read(self) -> list[Alert]:
        async with httpx.AsyncClient(timeout=TIMEOUT_SECONDS, transport=self._transport) as client:
            answer = await client.get(f"{self._base}/api/v1/alerts")
            body = answer.json() if answer.status_code == 200 else None
            if isinstance(body, dict) and isinstance(body.get("data"), dict):
                return _from_prometheus(self._base, body["data"])
            answer = await client.get(
                f"{self._base}/api/v2/alerts",
                params={"active": "true", "silenced": "false", "inhibited": "false"},
            )
            answer.raise_for_status()
            return _from_alertmanager(self._base, answer.json())

    def _keep(self, alerts: list[Alert]) -> list[Alert]:
        kept = [
            a
            for a in alerts
            if a.name.startswith(PREFIX)
            and all(a.labels.get(k) == v for k, v in self._matchers.items())
        ]
        return sorted(
            kept, key=lambda a: (a.state != "firing", SEVERITY.get(a.severity or "", 3), a.name)
        )
