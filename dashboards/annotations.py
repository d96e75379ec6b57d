"""The annotations of every dashboard, as Prometheus annotation queries with the text Grafana
shows in their tooltips.

Grafana's Prometheus data source reads an annotation's ``titleFormat``, ``textFormat`` (legend
templates such as ``{{node_id}}``) and ``tagKeys`` (labels whose values become the event's
tags) from the annotation itself; without them the tooltip is empty. The SDK's
AnnotationQuery has no fields for them, so they are added here.
"""

from __future__ import annotations

from dataclasses import dataclass

from grafana_foundation_sdk.builders import dashboard as dash
from grafana_foundation_sdk.models import dashboard as model

from .common import sel

# The keys this module adds to an annotation (the SDK's model drops them when it decodes one).
FORMAT_KEYS = ("titleFormat", "textFormat", "tagKeys")


@dataclass(frozen=True)
class AnnotationSpec:
    """An annotation of every dashboard: its query, and the title, text (legend templates)
    and tag labels of each event it draws."""

    name: str
    color: str
    expr: str
    title: str
    text: str
    tags: tuple[str, ...]


class _PrometheusAnnotationQuery(model.AnnotationQuery):
    def __init__(self, title_format: str = "", text_format: str = "", tag_keys: str = ""):
        super().__init__()
        self.title_format = title_format
        self.text_format = text_format
        self.tag_keys = tag_keys

    def to_json(self) -> dict[str, object]:
        payload = super().to_json()
        formats = (self.title_format, self.text_format, self.tag_keys)
        payload.update(dict(zip(FORMAT_KEYS, formats, strict=True)))
        return payload


class _PrometheusAnnotation(dash.AnnotationQuery):
    def __init__(self, spec: AnnotationSpec) -> None:
        self._internal = _PrometheusAnnotationQuery(spec.title, spec.text, ",".join(spec.tags))


def annotation(spec: AnnotationSpec, datasource: model.DataSourceRef) -> dash.AnnotationQuery:
    return (
        _PrometheusAnnotation(spec)
        .name(spec.name)
        .datasource(datasource)
        .enable(True)
        .icon_color(spec.color)
        .expr(spec.expr)
    )


# Annotations shared by every dashboard. Alerts come from Prometheus' ALERTS series,
# configuration changes from the generation the data nodes run, cluster-log events from the
# management server (node failures, starts, arbitration, backups; one exporter per cluster
# suffices, hence the max over instances).
CLUSTER_LOG_EVENTS = (
    "NodeFailCompleted|NDBStartCompleted|ArbitResult|BackupCompleted|BackupAborted"
    "|BackupFailedToStart"
)


def _restarts() -> str:
    """Data nodes whose uptime is lower than two minutes ago, or that report an uptime under
    an hour after reporting none two minutes ago: a restart however long the node was down
    (a node that is down has no ndbinfo.nodes row). The hour tells a node that just started
    from one an exporter restart brings back into view."""
    uptime = sel("ndb_data_node_uptime_seconds")
    now = f"max by (node_id) ({uptime})"
    before = f"max by (node_id) ({uptime} offset 2m)"
    return f"{now} < {before} or ({now} < 3600 unless {before})"


ANNOTATIONS = (
    AnnotationSpec(
        "Data node restarts",
        "orange",
        _restarts(),
        "Data node {{node_id}} restarted",
        "Its uptime (ndbinfo.nodes) started again from zero.",
        ("node_id",),
    ),
    AnnotationSpec(
        "Alerts firing",
        "red",
        'ALERTS{cluster=~"$cluster", alertstate="firing"}',
        "{{alertname}}",
        "{{severity}} alert of cluster {{cluster}} {{node_id}} {{instance}}",
        ("alertname", "severity"),
    ),
    AnnotationSpec(
        "Configuration generation changes",
        "blue",
        f"max by (node_id) (changes({sel('ndb_data_node_config_generation')}[2m])) > 0",
        "Data node {{node_id}} runs a new configuration",
        "The configuration generation the data node runs changed.",
        ("node_id",),
    ),
    AnnotationSpec(
        "Cluster log events",
        "purple",
        "max by (type, node_id) (increase("
        + sel("ndb_mgmd_events_total", f'type=~"{CLUSTER_LOG_EVENTS}"')
        + "[2m])) > 0",
        "{{type}}",
        "Cluster log event {{type}} reported by node {{node_id}}.",
        ("type", "node_id"),
    ),
)
