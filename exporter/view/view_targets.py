"""The SQL nodes the view may show, and one view source for each of those being looked at.

The view follows /probe's rules: a target given as ``?target=`` (with ``auth_module=``) is
checked against the allowed probe targets and refused with the same status, so the page
never reaches a SQL node /probe would not. The listing offers the targets known without a
pattern: the default target, static allowed targets and my.cnf sections that name a host.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable

from ndbinfo_exporter.targets import (
    DEFAULT_PORT,
    TargetConfig,
    Targets,
    join_address,
    split_address,
)
from ndbinfo_exporter.view.models import TargetsView, ViewTarget
from ndbinfo_exporter.view.source import VIEW_INTERVAL_SECONDS, ViewSource
from ndbinfo_exporter.view.view_model import ViewModel

# Sources kept at once (each holds one scrape result and its models); the least recently
# viewed is dropped first.
SOURCES_KEPT = 16
WILDCARDS = frozenset("*?")


class ViewTargets:
    def __init__(self, targets: Targets, make_source: Callable[[TargetConfig], ViewSource]):
        self._targets = targets
        self._make_source = make_source
        self._sources: OrderedDict[tuple, ViewSource] = OrderedDict()
        self.interval = VIEW_INTERVAL_SECONDS

    def resolve(self, target: str | None, auth_module: str | None) -> TargetConfig | None:
        """The target named (ProbeRefused as /probe answers), or the default one (None when
        the exporter has none)."""
        if target:
            return self._targets.for_probe(target, auth_module)
        return self._default()

    def _default(self) -> TargetConfig | None:
        """The SQL node of /metrics; none for a /probe-only exporter."""
        return None if self._targets.probe_only else self._targets.default

    def source(self, target: TargetConfig) -> ViewSource:
        source = self._sources.get(target.key)
        if source is None:
            source = self._sources[target.key] = self._make_source(target)
            if len(self._sources) > SOURCES_KEPT:
                self._sources.popitem(last=False)
        self._sources.move_to_end(target.key)
        return source

    def models(self) -> list[ViewModel]:
        """The newest model of every target looked at lately, without a refresh."""
        return [m for s in self._sources.values() if (m := s.latest) is not None]

    def listing(self) -> TargetsView:
        default = self._default()
        found: dict[str, ViewTarget] = {}
        if default is not None:
            found[default.name] = ViewTarget(name=default.name, label="default target")
        for pattern in self._targets.allowed_patterns:
            if WILDCARDS.isdisjoint(pattern) and _address(pattern):
                found.setdefault(pattern, ViewTarget(name=pattern, label="allowed target"))
        for name, section in sorted(self._targets.auth_modules.items()):
            if section.host:
                address = join_address(section.host, section.port or DEFAULT_PORT)
                found.setdefault(
                    address,
                    ViewTarget(name=address, label=f"my.cnf [client.{name}]", auth_module=name),
                )
        typed = any(not WILDCARDS.isdisjoint(p) for p in self._targets.allowed_patterns) or any(
            s.probe_targets for s in self._targets.auth_modules.values()
        )
        return TargetsView(
            default=default.name if default is not None else None,
            targets=list(found.values()),
            typed=typed,
        )


def _address(text: str) -> bool:
    try:
        split_address(text)
    except ValueError:
        return False
    return True
