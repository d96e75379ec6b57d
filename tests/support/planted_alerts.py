"""A Prometheus that answers /api/v1/alerts with planted alerts, for the view's and check's
--view.alerts-url and --alerts-url."""

from __future__ import annotations

from fastapi import FastAPI


def prometheus_with_alerts(alerts: list[dict]) -> FastAPI:
    prometheus = FastAPI()

    @prometheus.get("/api/v1/alerts")
    async def answer() -> dict:
        return {"status": "success", "data": {"alerts": alerts}}

    return prometheus


def alert(
    name: str, runbook_url: str = "", severity: str = "critical", state: str = "firing", **labels
) -> dict:
    return {
        "labels": {"alertname": name, "severity": severity, **labels},
        "annotations": {"summary": f"{name} fires", "runbook_url": runbook_url},
        "state": state,
        "activeAt": "2026-01-01T00:00:00Z",
    }
