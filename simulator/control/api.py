"""HTTP control API of ndbsim: stop and start nodes, inject and clear faults, read the status."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Body, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from ndbsim.engine.database import ReadMeter
from ndbsim.model.cluster import Cluster, NodeError
from ndbsim.model.faults import FAULTS, FaultError


def _one_line(exc: RequestValidationError) -> str:
    parts = []
    for err in exc.errors():
        where = ".".join(str(p) for p in err.get("loc", ()) if p != "body")
        parts.append(f"{where}: {err.get('msg', 'invalid')}" if where else err.get("msg", ""))
    return "; ".join(parts) or "invalid request"


def create_app(cluster: Cluster, meter: ReadMeter) -> FastAPI:
    app = FastAPI(title="ndbsim control", version="1")

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        for err in exc.errors():
            if err.get("type") == "json_invalid":
                reason = err.get("ctx", {}).get("error", "")
                detail = f"the request body is not valid JSON ({reason})" if reason else ""
                return JSONResponse(
                    status_code=400, content={"detail": detail or "the request body is not JSON"}
                )
        return JSONResponse(status_code=422, content={"detail": _one_line(exc)})

    @app.exception_handler(FaultError)
    async def _bad_fault(request: Request, exc: FaultError) -> JSONResponse:
        status = 404 if str(exc).startswith("unknown fault") else 422
        return JSONResponse(status_code=status, content={"detail": str(exc)})

    @app.exception_handler(NodeError)
    async def _bad_node(request: Request, exc: NodeError) -> JSONResponse:
        status = 404 if str(exc).startswith("unknown node") else 409
        return JSONResponse(status_code=status, content={"detail": str(exc)})

    @app.get("/status")
    def status() -> dict[str, Any]:
        return cluster.status()

    @app.get("/stats")
    def stats() -> dict[str, Any]:
        """What ndbinfo statements cost the cluster: base-table rows read since the start."""
        return meter.snapshot()

    @app.get("/nodes")
    def nodes() -> list[dict[str, Any]]:
        return cluster.status()["nodes"]

    @app.post("/nodes/{node_id}/stop")
    def stop_node(node_id: int) -> dict[str, Any]:
        return cluster.stop_node(node_id)

    @app.post("/nodes/{node_id}/start")
    def start_node(node_id: int) -> dict[str, Any]:
        return cluster.start_node(node_id)

    @app.get("/faults")
    def faults() -> dict[str, Any]:
        return {
            "active": cluster.faults.active(),
            "known": {name: spec.description for name, spec in FAULTS.items()},
        }

    @app.put("/faults/{name}")
    def set_fault(
        name: str, params: Annotated[dict[str, Any] | None, Body()] = None
    ) -> dict[str, Any]:
        clean = cluster.faults.set(name, **(params or {}))
        return {"fault": name, "params": clean, "active": cluster.faults.active()}

    @app.delete("/faults/{name}")
    def clear_fault(name: str) -> dict[str, Any]:
        was_active = cluster.faults.clear(name)
        return {"fault": name, "cleared": was_active, "active": cluster.faults.active()}

    @app.post("/reset")
    def reset() -> dict[str, Any]:
        cluster.reset()
        return cluster.status()

    return app
