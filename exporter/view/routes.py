"""The cluster view served at "/" (landing links kept) and its JSON API under /api/v1/."""

from __future__ import annotations

import asyncio
import html
import importlib.resources
import logging
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from string import Template
from typing import Annotated, Any

from fastapi import APIRouter, FastAPI, Query, Request
from fastapi import Path as PathParam
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response
from fastapi.routing import APIRoute
from ndbinfo_exporter import __version__
from ndbinfo_exporter.health import rolling
from ndbinfo_exporter.health.alerts import AlertSource
from ndbinfo_exporter.health.findings.alerting import with_alerts
from ndbinfo_exporter.health.models import (
    AlertsView,
    ClusterView,
    ConfigView,
    ManagementView,
    PlacementView,
    TableFragments,
)
from ndbinfo_exporter.health.rolling_nodes import UnknownNode, binlog_servers
from ndbinfo_exporter.health.thresholds import (
    DATA_MEMORY_CRITICAL,
    DATA_MEMORY_WARNING,
    REDO_CRITICAL,
    REDO_WARNING,
)
from ndbinfo_exporter.settings import Settings
from ndbinfo_exporter.targets import ProbeRefused, TargetConfig, Targets
from ndbinfo_exporter.view.body import Body
from ndbinfo_exporter.view.models import ApiError, FindingsView, TargetsView
from ndbinfo_exporter.view.reader import ViewReader
from ndbinfo_exporter.view.source import ViewSource
from ndbinfo_exporter.view.view_model import PageOutOfRange, Unavailable, ViewModel
from ndbinfo_exporter.view.view_targets import ViewTargets

log = logging.getLogger(__name__)
HERE = Path(__file__).parent
STATIC = HERE / "static"
PAGE = Template((HERE / "templates" / "index.html").read_text(encoding="utf-8"))
# Swagger UI's script, style sheet and icon, shipped by fastapi-offline: /docs needs no CDN.
SWAGGER_UI = importlib.resources.files("fastapi_offline") / "static"
SWAGGER_FILES = ("swagger-ui-bundle.js", "swagger-ui.css", "favicon.png")
MAX_PAGE_SIZE = 500
# The page and its assets come from this origin only: no inline script or style, no plugin,
# no frame around it; links the page shows are http(s) only (webLink in static/dom.js checks
# each one).
CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}
ERRORS: dict[int | str, dict[str, Any]] = {
    304: {"description": "Not modified since the ETag given in If-None-Match"},
    400: {"model": ApiError, "description": "Bad query parameter"},
    403: {"model": ApiError, "description": "The target is not in the allowed probe targets"},
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
            except PageOutOfRange as exc:
                return error(400, str(exc))
            except ApiFailure as exc:
                return error(exc.status, str(exc))
            except ProbeRefused as exc:
                return error(exc.status, str(exc))
            except Unavailable as exc:
                return error(503, str(exc))
            except Exception as exc:
                log.exception("cluster view request failed")
                return error(500, f"internal error ({type(exc).__name__}); see the exporter's log")

        return route


TargetQuery = Annotated[
    str | None, Query(description="SQL node host:port (default: the exporter's --mysqld.address)")
]
AuthModuleQuery = Annotated[
    str | None, Query(description="my.cnf [client.NAME] section whose credentials to use")
]
NodeIdPath = Annotated[
    int, PathParam(ge=1, le=255, description="Node id of a data, management, SQL or API node")
]


def answer(body: Body, request: Request, freshness: dict[str, str] | None = None) -> Response:
    """A cached body, or 304 when the viewer has it already; ``freshness`` says how old the
    data is and whether a refresh runs."""
    headers = {"ETag": body.etag, "Cache-Control": "no-cache", **(freshness or {})}
    if body.etag in request.headers.get("if-none-match", ""):
        return Response(status_code=304, headers=headers)
    return Response(body.content, media_type="application/json", headers=headers)


class _Views:
    """The ViewSource of the target a request names, and what an answer says of its model."""

    def __init__(self, view_targets: ViewTargets):
        self._targets = view_targets

    def source(self, target: str | None, auth_module: str | None) -> ViewSource:
        chosen: TargetConfig | None = self._targets.resolve(target, auth_module)
        if chosen is None:
            raise ApiFailure(400, "no default SQL node: choose one with ?target=host:port")
        return self._targets.source(chosen)

    @staticmethod
    def freshness(view: ViewSource, model: ViewModel) -> dict[str, str]:
        return {
            "Age": str(int(view.age(model))),
            "X-View-Refreshing": "true" if view.refreshing else "false",
        }

    def clusters(self) -> list[ClusterView]:
        """The cluster as every SQL node looked at lately sees it (one a target)."""
        return [model.cluster for model in self._targets.models()]

    @staticmethod
    async def reachable(view: ViewSource, first_placement: bool = False) -> ViewModel:
        model = await view.model(placement=first_placement)
        if not model.result.up:
            raise ApiFailure(
                503, f"SQL node {model.result.target} is unreachable: {model.result.error}"
            )
        return model


def make_router(
    app: FastAPI,
    settings: Settings,
    reader: ViewReader,
    targets: Targets,
    clock: Callable[[], float] = time.time,
) -> APIRouter:
    """The page and its API. ``app`` only serves its OpenAPI document."""
    view_targets = ViewTargets(
        targets,
        lambda target: ViewSource(
            reader, target, settings.query_timeout, settings.refresh_max_age, clock=clock
        ),
    )
    router = APIRouter()
    _page_routes(router, app, settings, view_targets)
    api = APIRouter(prefix="/api/v1", route_class=JsonErrorRoute, tags=["cluster view"])
    _targets_route(api, view_targets)
    alert_source = AlertSource(settings.view_alerts_url, view_targets.interval)
    views = _Views(view_targets)
    _model_routes(api, views, alert_source)
    _node_routes(api, views, alert_source)
    _closing_routes(api, alert_source)
    router.include_router(api)
    return router


def _page_routes(
    router: APIRouter, app: FastAPI, settings: Settings, view_targets: ViewTargets
) -> None:
    """The page, its static files, and the API's documentation."""

    @router.get("/", response_class=HTMLResponse, include_in_schema=False)
    async def page(target: TargetQuery = None, auth_module: AuthModuleQuery = None) -> Response:
        # A refused target still gets the page, with the refusal's status: the page shows
        # /api/v1's answer as a message beside the target picker.
        status, shown = 200, "none chosen"
        try:
            chosen = view_targets.resolve(target, auth_module)
            shown = chosen.name if chosen is not None else shown
        except ProbeRefused as refused:
            status, shown = refused.status, target or shown
        return HTMLResponse(
            PAGE.substitute(
                version=html.escape(__version__),
                metrics_path=html.escape(settings.telemetry_path, quote=True),
                target=html.escape(shown),
                data_memory_levels=f"{DATA_MEMORY_WARNING} {DATA_MEMORY_CRITICAL}",
                redo_levels=f"{REDO_WARNING} {REDO_CRITICAL}",
            ),
            status_code=status,
            headers=SECURITY_HEADERS,
        )

    @router.get("/static/view/{name}", include_in_schema=False)
    async def static(name: str) -> Response:
        files = {p.name: p for p in STATIC.iterdir() if p.is_file()}
        if name not in files:
            return error(404, f"no static file {name!r}")
        return FileResponse(files[name], headers=SECURITY_HEADERS)

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


def _targets_route(api: APIRouter, view_targets: ViewTargets) -> None:
    @api.get("/targets", response_model=TargetsView, responses=ERRORS)
    async def get_targets() -> TargetsView:
        """The SQL nodes the view may show: the default target, the static probe targets and
        the my.cnf sections that name a host. With `typed`, other targets may be given as
        `?target=` and are checked against the allowed probe targets, as /probe does."""
        return view_targets.listing()


def _model_routes(api: APIRouter, views: _Views, alert_source: AlertSource) -> None:
    """The answers built from a target's model: cluster, placement, findings, configuration."""

    @api.get("/cluster", response_model=ClusterView, responses=ERRORS)
    async def get_cluster(
        request: Request, target: TargetQuery = None, auth_module: AuthModuleQuery = None
    ) -> Response:
        """Topology, LCP progress, DataMemory and redo per data node and SQL-node efficiency.

        Answers 200 with `up: false` and the reason when the SQL node is unreachable.
        """
        view = views.source(target, auth_module)
        model = await view.model()
        return answer(model.bodies["cluster"], request, views.freshness(view, model))

    @api.get("/placement", response_model=PlacementView, responses=ERRORS)
    async def get_placement(
        request: Request,
        target: TargetQuery = None,
        auth_module: AuthModuleQuery = None,
        db: Annotated[str | None, Query(description="Database name (exact)")] = None,
        table: Annotated[str | None, Query(description="Substring of the table name")] = None,
        node: Annotated[
            int | None, Query(ge=1, le=255, description="Tables with a replica here")
        ] = None,
        page: Annotated[int, Query(ge=1)] = 1,
        page_size: Annotated[int, Query(ge=1, le=MAX_PAGE_SIZE)] = 50,
    ) -> Response:
        """Replicas of user tables per data node: primaries, backups and dead replicas, with a
        summary per data node over the matching tables. Fragment detail: /placement/{table_id}."""
        view = views.source(target, auth_module)
        model = await views.reachable(view, first_placement=True)
        model.require_placement()
        body = await asyncio.to_thread(model.page, db or None, table or None, node, page, page_size)
        return answer(body, request, views.freshness(view, model))

    @api.get("/placement/{table_id}", response_model=TableFragments, responses=ERRORS)
    async def get_table_fragments(
        request: Request,
        table_id: int,
        target: TargetQuery = None,
        auth_module: AuthModuleQuery = None,
    ) -> Response:
        """The fragments of one table: primary, backups, dead replicas and LCPs per fragment,
        read from the data nodes when asked for and kept until the placement changes."""
        view = views.source(target, auth_module)
        await views.reachable(view)
        try:
            body = await view.fragments(table_id)
        except LookupError as exc:
            raise ApiFailure(404, str(exc)) from None
        return answer(body, request)

    @api.get("/findings", response_model=FindingsView, responses=ERRORS)
    async def get_findings(
        request: Request, target: TargetQuery = None, auth_module: AuthModuleQuery = None
    ) -> Response:
        """Every check's finding, each with its evidence, PromQL expression and SQL, and, with
        --view.alerts-url, each Ndb* alert firing there as a problem at its severity. Answers
        200 with `up: false`, the reason and the alerts' findings only while the SQL node is
        unreachable."""
        view = views.source(target, auth_module)
        model = await view.model()
        body = model.findings_body(await alert_source.alerts())
        return answer(body, request, views.freshness(view, model))

    @api.get("/management", response_model=ManagementView, responses=ERRORS)
    async def get_management(
        request: Request, target: TargetQuery = None, auth_module: AuthModuleQuery = None
    ) -> Response:
        """The cluster as its management server reports it (--mgmd.address): every node's
        status, the last completed backup, backups aborted or failed to start, and the latest
        cluster log events, newest first. 404 when no management server is read for the
        target."""
        view = views.source(target, auth_module)
        model = await view.model()
        body = model.bodies.get("management")
        if body is None:
            raise ApiFailure(
                404, f"no management server is read for {model.result.target} (--mgmd.address)"
            )
        return answer(body, request, views.freshness(view, model))

    @api.get("/config", response_model=ConfigView, responses=ERRORS)
    async def get_config(
        request: Request, target: TargetQuery = None, auth_module: AuthModuleQuery = None
    ) -> Response:
        """Data node parameters that differ from their default or between data nodes."""
        view = views.source(target, auth_module)
        model = await views.reachable(view)
        return answer(model.bodies["config"], request, views.freshness(view, model))


def _asked(
    question: str, node_id: int, model: ViewModel, findings: list, clusters: list[ClusterView]
) -> Body:
    """The health layer's answer (``check --safe-to-stop`` / ``--restart-done`` answer the
    same) over a model; blocking: on a worker thread."""
    inputs = rolling.inputs_of(
        model.result, model.previous, model.cluster, model.placement, model.management
    )
    if inputs is None:
        raise Unavailable(f"SQL node {model.result.target} is unreachable")
    servers = binlog_servers(clusters, model.cluster.sql_node.system_name)
    try:
        return Body.of(rolling.ask(question, node_id, inputs, findings, servers))
    except UnknownNode as exc:
        raise ApiFailure(404, str(exc)) from None


def _node_routes(api: APIRouter, views: _Views, alert_source: AlertSource) -> None:
    """The rolling restart's two questions about one node."""

    async def asked(
        question: str, node_id: int, request: Request, target: str | None, auth: str | None
    ) -> Response:
        view = views.source(target, auth)
        model = await views.reachable(view)
        findings = with_alerts(model.findings.findings, await alert_source.alerts())
        clusters = [model.cluster, *views.clusters()]
        body = await asyncio.to_thread(_asked, question, node_id, model, findings, clusters)
        return answer(body, request, views.freshness(view, model))

    @api.get(
        "/nodes/{node_id}/safe-to-stop", response_model=rolling.RollingAnswer, responses=ERRORS
    )
    async def get_safe_to_stop(
        request: Request,
        node_id: NodeIdPath,
        target: TargetQuery = None,
        auth_module: AuthModuleQuery = None,
    ) -> Response:
        """Whether node `node_id` may be stopped now: `state` OK only when every node group
        keeps a started data node, no other node is starting or stopping, an arbitrator stays,
        no LCP or REDO trouble and no critical alert (--view.alerts-url), and for an SQL node
        another binlog server; else CRITICAL, with `reasons`. For a preStop hook or a script:
        `check --safe-to-stop` answers the same. 404 for an id that names no node."""
        return await asked(rolling.SAFE_TO_STOP, node_id, request, target, auth_module)

    @api.get(
        "/nodes/{node_id}/restart-done", response_model=rolling.RollingAnswer, responses=ERRORS
    )
    async def get_restart_done(
        request: Request,
        node_id: NodeIdPath,
        target: TargetQuery = None,
        auth_module: AuthModuleQuery = None,
    ) -> Response:
        """Whether node `node_id` is done restarting: OK when it is started, its replicas
        alive, its primaries back and its latency within its peers'; WARNING while it is on
        its way (its start phase in `reasons`), CRITICAL while it is not connected.
        `check --restart-done` answers the same. 404 for an id that names no node."""
        return await asked(rolling.RESTART_DONE, node_id, request, target, auth_module)


def _closing_routes(api: APIRouter, alert_source: AlertSource) -> None:
    """The alerts, the API's index, and the answer to a path it does not have (last)."""

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
