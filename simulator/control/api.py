"""HTTP control API of ndbsim: stop and start nodes, inject and clear faults, read the status."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Body, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from ndbsim.engine.database import ReadMeter
from ndbsim.model.cluster import Cluster, NodeError
from ndbsim.model.faults import FAULTS, LINK_FAULTS, FaultError


def link_summary(snap: dict[str, Any]) -> dict[str, Any]:
    """The JSON of GET /replication (epochs as numbers, GCIs = epoch >> 32)."""
    applied, received = snap["applied"], snap["received"]
    return {
        "source_gci": snap["source_gci"],
        "buffered_epoch": snap["buffered_epoch"],
        "received_epoch": snap["received_epoch"],
        "handled_epoch": snap["handled_epoch"],
        "written_epoch": snap["written_epoch"],
        "applied_epoch": snap["applied_epoch"],
        "binlog_file": snap["binlog_file"],
        "binlog_position": snap["binlog_position"],
        "read_position": [received.file, received.position] if received else None,
        "executed_position": [applied.file, applied.position] if applied else None,
        "io_running": snap["io_running"],
        "sql_running": snap["sql_running"],
        "last_io_errno": snap["io_error"].errno if snap["io_error"] else 0,
        "last_sql_errno": snap["sql_error"].errno if snap["sql_error"] else 0,
        "seconds_behind_source": snap["seconds_behind"],
        "conflicts": snap["conflicts"],
    }


def _one_line(exc: RequestValidationError) -> str:
    parts = []
    for err in exc.errors():
        where = ".".join(str(p) for p in err.get("loc", ()) if p != "body")
        parts.append(f"{where}: {err.get('msg', 'invalid')}" if where else err.get("msg", ""))
    return "; ".join(parts) or "invalid request"


class ClusterChoiceError(LookupError):
    """A `cluster` query parameter naming no cluster of this ndbsim."""


def _answer_errors(app: FastAPI) -> None:
    """Refusals as JSON ``{"detail": one line}`` with the status that says what went wrong."""

    @app.exception_handler(ClusterChoiceError)
    async def _bad_cluster(request: Request, exc: ClusterChoiceError) -> JSONResponse:
        return JSONResponse(status_code=404, content={"detail": str(exc)})

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


def create_app(
    cluster: Cluster,
    meter: ReadMeter,
    replica: Cluster | None = None,
    replica_meter: ReadMeter | None = None,
) -> FastAPI:
    """The control API. With ndbsim --replica, `?cluster=replica` acts on the replica cluster
    (default `source`); the link faults act on the link from the cluster named, or on the one
    link whichever is named when the replica cluster replicates to no other."""
    app = FastAPI(title="ndbsim control", version="1")

    def pick(name: str | None) -> Cluster:
        if name in (None, "", "source"):
            return cluster
        if name != "replica":
            raise ClusterChoiceError(f"cluster must be source or replica, got {name!r}")
        if replica is None:
            raise ClusterChoiceError("no replica cluster; start ndbsim with --replica")
        return replica

    def faults_of(name: str, chosen: str | None):
        picked = pick(chosen)
        if name in LINK_FAULTS and picked.outbound is None:
            return cluster.faults
        return picked.faults

    _answer_errors(app)

    @app.get("/status")
    def status(cluster: str | None = None) -> dict[str, Any]:
        return pick(cluster).status()

    @app.get("/stats")
    def stats(cluster: str | None = None) -> dict[str, Any]:
        """What ndbinfo statements cost the cluster: base-table rows read since the start."""
        return (replica_meter if pick(cluster) is replica else meter).snapshot()

    @app.get("/nodes")
    def nodes(cluster: str | None = None) -> list[dict[str, Any]]:
        return pick(cluster).status()["nodes"]

    @app.post("/nodes/{node_id}/stop")
    def stop_node(node_id: int, cluster: str | None = None) -> dict[str, Any]:
        return pick(cluster).stop_node(node_id)

    @app.post("/nodes/{node_id}/start")
    def start_node(node_id: int, cluster: str | None = None) -> dict[str, Any]:
        return pick(cluster).start_node(node_id)

    @app.get("/faults")
    def faults(cluster: str | None = None) -> dict[str, Any]:
        return {
            "active": pick(cluster).faults.active(),
            "known": {name: spec.description for name, spec in FAULTS.items()},
        }

    @app.put("/faults/{name}")
    def set_fault(
        name: str,
        params: Annotated[dict[str, Any] | None, Body()] = None,
        cluster: str | None = None,
    ) -> dict[str, Any]:
        faults = faults_of(name, cluster)
        clean = faults.set(name, **(params or {}))
        return {"fault": name, "params": clean, "active": faults.active()}

    @app.delete("/faults/{name}")
    def clear_fault(name: str, cluster: str | None = None) -> dict[str, Any]:
        faults = faults_of(name, cluster)
        was_active = faults.clear(name)
        return {"fault": name, "cleared": was_active, "active": faults.active()}

    @app.post("/reset")
    def reset(cluster: str | None = None) -> dict[str, Any]:
        chosen = pick(cluster)
        chosen.reset()
        return chosen.status()

    @app.post("/backups")
    def start_backup(cluster: str | None = None) -> dict[str, Any]:
        """START BACKUP now; a backup that fails to start answers its NDB error."""
        backup_id, error = pick(cluster).start_backup()
        return {"backup_id": backup_id, "error": error}

    @app.post("/mgm/drop-listeners")
    def drop_listeners(cluster: str | None = None) -> dict[str, Any]:
        """The management server closes every listen event subscription."""
        return {"generation": pick(cluster).log.drop_listeners()}

    @app.get("/replication")
    def replication() -> dict[str, Any]:
        """The link: the source's injector epochs and binlog, the replica's threads."""
        if cluster.outbound is None:
            raise ClusterChoiceError("no replication link; start ndbsim with --replica")
        return link_summary(cluster.outbound.snapshot())

    return app
