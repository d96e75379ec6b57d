"""The cluster view served at "/" (landing links kept) and its JSON API under /api/v1/."""

from __future__ import annotations

import html
import importlib.resources
import logging
from collections.abc import Callable, Coroutine
from pathlib import Path
from string import Template
from typing import Annotated, Any

from fastapi import APIRouter, FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response
from fastapi.routing import APIRoute
from ndbinfo_exporter import __version__
from ndbinfo_exporter.view import findings, placement
from ndbinfo_exporter.view.alerts import AlertSource
from ndbinfo_exporter.view.cluster import cluster_view
from ndbinfo_exporter.view.models import (
    AlertsView,
    ApiError,
    ClusterView,
    ConfigView,
    FindingsView,
    PlacementView,
)
from ndbinfo_exporter.view.parameters import config_view
from ndbinfo_exporter.view.samples import Samples
from ndbinfo_exporter.view.source import Unavailable, ViewSource

log = logging.getLogger(__name__)
HERE = Path(__file__).parent
STATIC = HERE / "static"
PAGE = Template((HERE / "templates" / "index.html").read_text(encoding="utf-8"))
# Swagger UI's script, style sheet and icon, shipped by fastapi-offline: /docs needs no CDN.
SWAGGER_UI = importlib.resources.files("fastapi_offline") / "static"
SWAGGER_FILES = ("swagger-ui-bundle.js", "swagger-ui.css", "favicon.png")
MAX_PAGE_SIZE = 500
ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"model": ApiError, "description": "Bad query parameter"},
    503: {"model": ApiError, "description": "The SQL node or the data nodes cannot be read"},
}


class ApiFailure(Exception):
    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


def error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def _validation_message(exc: RequestValidationError) -> str:
    problems = []
    for item in exc.errors():
        where = ".".join(str(part) for part in item.get("loc", ())[1:]) or "request"
        problems.append(f"{where}: {item.get('msg', 'invalid')}")
    return "; ".join(problems)


class JsonErrorRoute(APIRoute):
    """Routes whose errors are answered as {"error": "..."} instead of FastAPI's detail list."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def route(request: Request) -> Response:
            try:
                return await handler(request)
            except RequestValidationError as exc:
                return error(400, _validation_message(exc))
            except ApiFailure as exc:
                return error(exc.status, str(exc))
            except Unavailable as exc:
                return error(503, str(exc))
            except Exception as exc:
                log.exception("cluster view request failed")
                return error(500, f"internal error ({type(exc).__name__}); see the exporter's log")

        return route


def make_router(app: FastAPI) -> APIRouter:
    settings = app.state.settings
    source = ViewSource(app.state.scraper, app.state.default_target, settings.query_timeout)
    app.state.view_source = source
    alert_source = AlertSource(settings.view_alerts_url, source.interval)
    router = APIRouter()
    api = APIRouter(prefix="/api/v1", route_class=JsonErrorRoute, tags=["cluster view"])

    async def reachable() -> Any:
        result = await source.result()
        if not result.up:
            raise ApiFailure(503, f"SQL node {result.target} is unreachable: {result.error}")
        return result

    async def placement_or_none(result: Any) -> placement.Placement | None:
        try:
            return await source.placement(result)
        except Unavailable:
            return None

    async def cluster(result: Any) -> ClusterView:
        view = cluster_view(result, source.previous(result), source.known_groups())
        # A node stopped before the exporter first saw it: the replica sets tell its group.
        unassigned = view.up and view.topology.unassigned_data_nodes
        if unassigned and await placement_or_none(result) is not None:
            view = cluster_view(result, source.previous(result), source.known_groups())
        return view

    @router.get("/", response_class=HTMLResponse, include_in_schema=False)
    async def page() -> str:
        return PAGE.substitute(
            version=html.escape(__version__),
            metrics_path=html.escape(settings.telemetry_path, quote=True),
            target=html.escape(source.target_name),
        )

    @router.get("/static/view/{name}", include_in_schema=False)
    async def static(name: str) -> Response:
        files = {p.name: p for p in STATIC.iterdir() if p.is_file()}
        if name not in files:
            return error(404, f"no static file {name!r}")
        return FileResponse(files[name])

    @router.get("/static/docs/{name}", include_in_schema=False)
    async def swagger_ui(name: str) -> Response:
        if name not in SWAGGER_FILES:
            return error(404, f"no static file {name!r}")
        with importlib.resources.as_file(SWAGGER_UI / name) as path:
            return FileResponse(path)

    @router.get("/openapi.json", include_in_schema=False)
    async def openapi() -> JSONResponse:
        return JSONResponse(app.openapi())

    @router.get("/docs", include_in_schema=False)
    async def docs() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url="/openapi.json",
            title="ndbinfo-exporter API",
            swagger_js_url="/static/docs/swagger-ui-bundle.js",
            swagger_css_url="/static/docs/swagger-ui.css",
            swagger_favicon_url="/static/docs/favicon.png",
        )

    @api.get("/cluster", response_model=ClusterView, responses=ERRORS)
    async def get_cluster() -> ClusterView:
        """Topology, LCP progress, DataMemory and redo per data node and SQL-node efficiency.

        Answers 200 with `up: false` and the reason when the SQL node is unreachable.
        """
        return await cluster(await source.result())

    @api.get("/placement", response_model=PlacementView, responses=ERRORS)
    async def get_placement(
        db: Annotated[str | None, Query(description="Database name (exact)")] = None,
        table: Annotated[str | None, Query(description="Substring of the table name")] = None,
        node: Annotated[
            int | None, Query(ge=1, le=255, description="Tables with a replica here")
        ] = None,
        page: Annotated[int, Query(ge=1)] = 1,
        page_size: Annotated[int, Query(ge=1, le=MAX_PAGE_SIZE)] = 50,
    ) -> PlacementView:
        """Fragment placement of user tables: primary, backup and dead replicas per fragment."""
        result = await reachable()
        data = await source.placement(result)
        view = await cluster(result)
        nodes = {
            n.node_id: (n.nodegroup, n.running)
            for group in view.topology.node_groups
            for n in group.nodes
        }
        nodes.update({n.node_id: (None, n.running) for n in view.topology.unassigned_data_nodes})
        answer = placement.page_view(
            data,
            result.target,
            nodes,
            db=db or None,
            table=table or None,
            node=node,
            page=page,
            page_size=page_size,
        )
        if page > answer.pages:
            raise ApiFailure(400, f"page {page} is past the last page ({answer.pages})")
        return answer

    @api.get("/findings", response_model=FindingsView, responses=ERRORS)
    async def get_findings() -> FindingsView:
        """Tuning findings, each with its evidence, PromQL expression and SQL."""
        result = await reachable()
        data = await placement_or_none(result)
        view = await cluster(result)
        inputs = findings.Inputs(
            cluster=view,
            samples=Samples(result.families),
            config=config_view(result),
            placement=data,
            previous=Samples(before.families) if (before := source.previous(result)) else None,
        )
        checked = findings.evaluate(inputs)
        return FindingsView(
            target=result.target,
            up=result.up,
            error=result.error,
            scraped_at=result.finished_at,
            findings=checked,
            problems=sum(1 for f in checked if f.status == "problem"),
            unknown=sum(1 for f in checked if f.status == "unknown"),
        )

    @api.get("/config", response_model=ConfigView, responses=ERRORS)
    async def get_config() -> ConfigView:
        """Data node parameters that differ from their default or between data nodes."""
        return config_view(await reachable())

    @api.get("/alerts", response_model=AlertsView)
    async def get_alerts() -> AlertsView:
        """Ndb* alerts firing or pending in the Prometheus or Alertmanager named by
        --view.alerts-url; `source` is null when the exporter was given none."""
        return await alert_source.alerts()

    @api.get("/", include_in_schema=False)
    async def index() -> JSONResponse:
        paths = sorted(r.path for r in api.routes if getattr(r, "include_in_schema", False))
        return JSONResponse({"endpoints": paths, "docs": "/docs", "openapi": "/openapi.json"})

    @api.get("/{path:path}", include_in_schema=False)
    async def unknown(path: str) -> JSONResponse:
        return error(404, f"no API endpoint /api/v1/{path}")

    router.include_router(api)
    return router
