"""Response models of the cluster view's JSON API that only the web page serves: errors,
the findings' envelope and the targets. The cluster, configuration, placement and
management models it shares with ``check``/``report`` are in ``health.models``."""

from __future__ import annotations

from ndbinfo_exporter.health.models import Finding, ScrapeInfo
from pydantic import BaseModel, Field


class ApiError(BaseModel):
    error: str = Field(description="What went wrong, one line")


class FindingsView(ScrapeInfo):
    findings: list[Finding] = Field(
        description="Every check: problems first, then unknown, then ok"
    )
    problems: int
    unknown: int = Field(description="Checks that could not run for lack of data")


class ViewTarget(BaseModel):
    name: str = Field(description="host:port, the value of ?target=")
    label: str = Field(description="What the target is (default, static target, my.cnf section)")
    auth_module: str | None = Field(None, description="The my.cnf section to use for it")


class TargetsView(BaseModel):
    default: str | None = Field(description="The target shown without ?target=, if any")
    targets: list[ViewTarget] = Field(description="Targets the view may show")
    typed: bool = Field(
        description="Other targets may be typed in: they are checked against --probe.allowed-targets"
    )
