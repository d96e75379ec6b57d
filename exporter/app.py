"""The HTTP side: /metrics, /probe, /healthz and the cluster view at "/"."""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager

from fastapi import FastAPI, Request
from fastapi.middleware.gzip import GZipMiddleware
from fastapi.responses import PlainTextResponse, Response
from ndbinfo_exporter import logs
from ndbinfo_exporter.scrape.exposition import Exposition, encode
from ndbinfo_exporter.scrape.exposition import render as render_families
from ndbinfo_exporter.scrape.mgmd.event_log import EventLog
from ndbinfo_exporter.scrape.mgmd.reader import MgmdReaders
from ndbinfo_exporter.scrape.scraper import Scraper, ScrapeResult, build_info
from ndbinfo_exporter.settings import Settings
from ndbinfo_exporter.targets import ProbeRefused, TargetConfig, Targets
from ndbinfo_exporter.view import routes as view
from ndbinfo_exporter.view.reader import ViewReader
from ndbinfo_exporter.webconfig import BasicAuth, WebConfig
from prometheus_client import CollectorRegistry, GCCollector, PlatformCollector, ProcessCollector
from prometheus_client.core import Metric
from prometheus_client.exposition import choose_encoder

log = logging.getLogger(__name__)

DEFAULT_SCRAPE_TIMEOUT = 10.0
MAX_SCRAPE_TIMEOUT = 3600.0
TIMEOUT_HEADER = "X-Prometheus-Scrape-Timeout-Seconds"
# collect[]=mgmd: the management server's families (--mgmd.address), in a job that names
# collectors; a scrape without collect[] has them too.
MGMD_FAMILIES = "mgmd"
_bad_timeout = logs.RateLimited(log)
LIVENESS_PATH = "/livez"
# A body this large or larger is compressed on a worker thread: smaller ones take about a
# millisecond, less than the two hand-offs between threads; a larger one (48 data nodes, several
# MB) would hold the event loop, and every other request, for several.
GZIP_ON_THREAD = 1024 * 1024


def scrape_timeout(header: str | None, offset: float) -> float:
    """Prometheus' scrape timeout minus ``offset``, as mysqld_exporter computes it. A value
    that is not a number of seconds in (0, 3600] (nan, inf, 1e308, negative) gives the
    default, with a warning at most once a minute."""
    timeout = DEFAULT_SCRAPE_TIMEOUT
    if header:
        try:
            timeout = float(header)
        except ValueError:
            timeout = math.nan
        if not 0 < timeout <= MAX_SCRAPE_TIMEOUT:  # also false for nan
            _bad_timeout.warning(
                f"ignoring {TIMEOUT_HEADER} outside (0, {MAX_SCRAPE_TIMEOUT:.0f}]",
                value=header[:40],
                default=DEFAULT_SCRAPE_TIMEOUT,
            )
            timeout = DEFAULT_SCRAPE_TIMEOUT
    return timeout - offset if offset < timeout else timeout


def accepts_gzip(accept_encoding: str) -> bool:
    """True when Accept-Encoding allows gzip: listed (or ``*``) with a q-value above 0."""
    allowed: dict[str, float] = {}
    for item in accept_encoding.lower().split(","):
        coding, *params = (part.strip() for part in item.split(";"))
        quality = 1.0
        for param in params:
            name, _, value = param.partition("=")
            if name.strip() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        if coding:
            allowed[coding] = quality
    quality = allowed.get("gzip", allowed.get("x-gzip", allowed.get("*", 0.0)))
    return quality > 0


class NegotiatedGZip(GZipMiddleware):
    """Starlette's gzip middleware, but "gzip;q=0" (or "*;q=0") means no gzip."""

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "http":
            headers = dict(scope.get("headers") or ())
            if not accepts_gzip(headers.get(b"accept-encoding", b"").decode("latin-1")):
                await self.app(scope, receive, send)
                return
        await super().__call__(scope, receive, send)


# The exporter process's own metrics (CPU, memory, file descriptors, Python's garbage
# collector), served on /metrics as every Prometheus exporter does, and not on /probe.
_PROCESS = CollectorRegistry()
for _collector in (ProcessCollector, PlatformCollector, GCCollector):
    _collector(registry=_PROCESS)


def process_families() -> list[Metric]:
    return list(_PROCESS.collect())


def render(result: ScrapeResult, accept: str | None, extra: Sequence[Metric] = ()) -> Response:
    """The exposition of one scrape (and ``extra`` families) in the format the client asked
    for: rendered during the scrape for the text format and OpenMetrics 1.0, now for any
    other."""
    exposition, families = result.exposition, result.families
    if extra:
        exposition = Exposition.join([exposition, render_families(extra)])
        families = [*families, *extra]
    return _encoded(exposition, families, accept)


def own_metrics(accept: str | None) -> Response:
    """The exporter's own metrics alone, without connecting anywhere: /metrics of an exporter
    that has no SQL node of its own and scrapes only through /probe."""
    families = [build_info(), *process_families()]
    return _encoded(render_families(families), families, accept)


def _encoded(exposition: Exposition, families: Sequence[Metric], accept: str | None) -> Response:
    content, content_type = encode(exposition, families, accept or "")
    return Response(content=content, media_type=None, headers={"Content-Type": content_type})


def create_app(
    settings: Settings,
    targets: Targets,
    scraper: Scraper,
    web: WebConfig | None = None,
    event_log: EventLog | None = None,
) -> FastAPI:
    mgmd = MgmdReaders(event_log)
    # The view reads on connections of its own, never on those Prometheus' scrapes need.
    managers = {}
    if targets.mgmd and not targets.probe_only:
        managers[targets.default.name] = lambda: mgmd.get(targets.mgmd)
    reader = ViewReader(scraper, settings.max_connections, settings.query_timeout, managers)

    app = FastAPI(
        title="ndbinfo-exporter",
        docs_url=None,
        redoc_url=None,
        openapi_url=None,
        lifespan=_lifespan(mgmd, targets.mgmd, reader, scraper),
        # "/metrics/" is a 404, not a redirect built from the request's Host header.
        redirect_slashes=False,
    )
    # Prometheus asks for gzip. Level 1 makes a scrape of 8 data nodes (300 kB) ten times
    # smaller in about 1 ms; level 9 would take ten times longer for a fifth less.
    app.add_middleware(NegotiatedGZip, compresslevel=1, thread_minimum_size=GZIP_ON_THREAD)

    if web is not None and web.basic_auth is not None:
        _require_basic_auth(app, web.basic_auth)

    async def serve(
        target: TargetConfig,
        request: Request,
        extra: Callable[[], Sequence[Metric]] = list,
        managers: tuple[tuple[str, int], ...] = (),
    ) -> Response:
        requested = request.query_params.getlist("collect[]")
        names = [name for name in requested if name != MGMD_FAMILIES]
        with_mgmd = len(names) < len(requested) or not requested
        try:
            only = scraper.selection(names) if names or not requested else frozenset()
        except ValueError as exc:
            return PlainTextResponse(f"{exc}\n", status_code=400)
        timeout = scrape_timeout(
            request.headers.get(TIMEOUT_HEADER), settings.scrape_timeout_offset
        )
        # A job scraping part of the collectors leaves the exporter's own metrics to the job
        # that scrapes all of them, and the management server's to the job that names mgmd.
        own = extra() if only is None else ()
        if not (with_mgmd and managers):
            result = await scraper.scrape(target, timeout, only)
            return render(result, request.headers.get("accept"), own)
        result, cluster_log = await asyncio.gather(
            scraper.scrape(target, timeout, only), mgmd.get(managers).families(timeout)
        )
        return render(result, request.headers.get("accept"), [*cluster_log, *own])

    @app.get(settings.telemetry_path, include_in_schema=False)
    async def metrics(request: Request) -> Response:
        if targets.probe_only:
            return own_metrics(request.headers.get("accept"))
        return await serve(targets.default, request, process_families, targets.mgmd)

    add_head_routes(app, (settings.telemetry_path, "/healthz"))

    @app.get("/probe", include_in_schema=False)
    async def probe(
        request: Request, target: str | None = None, auth_module: str | None = None
    ) -> Response:
        if not target:
            return PlainTextResponse("the target parameter is missing\n", status_code=400)
        try:
            probe_target = targets.for_probe(target, auth_module)
            managers = targets.mgmd_for_probe(request.query_params.getlist("mgmd"))
        except ProbeRefused as refused:
            log.info(
                "probe refused",
                extra={"fields": {"target": target[:200], "reason": str(refused)[:300]}},
            )
            return PlainTextResponse(f"{refused}\n", status_code=refused.status)
        return await serve(probe_target, request, managers=managers)

    # Liveness without basic auth (the image's health check has no password); says only "ok".
    @app.get(LIVENESS_PATH, include_in_schema=False)
    async def livez() -> PlainTextResponse:
        return PlainTextResponse("ok\n")

    @app.get("/healthz", include_in_schema=False)
    async def healthz() -> PlainTextResponse:
        return PlainTextResponse("ok\n")

    app.include_router(view.make_router(app, settings, reader, targets))
    return app


def _lifespan(
    mgmd: MgmdReaders, configured: tuple[tuple[str, int], ...], *opened: ViewReader | Scraper
) -> Callable[[FastAPI], AbstractAsyncContextManager[None]]:
    """The cluster log of the configured management servers from the start, not from the
    first scrape; at the end, what the app opened closed."""

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        if configured:
            mgmd.get(configured).subscription.start()
        yield
        for each in opened:
            each.close()
        await mgmd.close()

    return lifespan


def _require_basic_auth(app: FastAPI, auth: BasicAuth) -> None:
    """Every path asks for the web config's basic auth, but liveness (the image's health
    check has no password)."""

    @app.middleware("http")
    async def basic_auth(request: Request, call_next):
        if request.url.path == LIVENESS_PATH:
            return await call_next(request)
        client = request.client.host if request.client else ""
        if not await auth.verify(request.headers.get("authorization"), client):
            return PlainTextResponse(
                "Unauthorized\n",
                status_code=401,
                headers={"WWW-Authenticate": 'Basic realm="ndbinfo-exporter"'},
            )
        return await call_next(request)


def add_head_routes(app: FastAPI, paths: Sequence[str]) -> None:
    """HEAD answers as GET would, with no body and without scraping: a HEAD request is a
    check that the endpoint is there (load balancers, uptime probes)."""

    async def head(request: Request) -> Response:
        _, content_type = choose_encoder(request.headers.get("accept") or "")
        if request.url.path == "/healthz":
            content_type = "text/plain; charset=utf-8"
        return Response(status_code=200, headers={"Content-Type": content_type})

    for path in paths:
        app.add_api_route(path, head, methods=["HEAD"], include_in_schema=False)
