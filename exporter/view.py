"""The cluster view served at "/" (landing links kept) and its JSON API under /api/v1/."""

from fastapi import APIRouter, FastAPI
from fastapi.responses import HTMLResponse

from ndbinfo_exporter import __version__


def make_router(app: FastAPI) -> APIRouter:
    router = APIRouter()

    @router.get("/", response_class=HTMLResponse)
    def landing() -> str:
        path = app.state.settings.telemetry_path
        return (
            f"<html><head><title>ndbinfo-exporter</title></head><body>"
            f"<h1>ndbinfo-exporter {__version__}</h1>"
            f'<p><a href="{path}">Metrics</a> · <a href="/healthz">Health</a></p></body></html>'
        )

    return router
