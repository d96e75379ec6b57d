"""The frame of every NDB dashboard: its variables, its annotations and the layout that
numbers its panels."""

from __future__ import annotations

from dataclasses import dataclass, field

from grafana_foundation_sdk.builders import dashboard as dash
from grafana_foundation_sdk.models import dashboard as model

from .annotations import ANNOTATIONS, annotation
from .common import DATASOURCE, TAGS, PanelSpec

ALL = model.VariableOption(selected=True, text=["All"], value=["$__all"])


def datasource_variable() -> dash.DatasourceVariable:
    return dash.DatasourceVariable("datasource").label("Data source").type("prometheus")


def cluster_variable(*, multi: bool = False) -> dash.QueryVariable:
    """The cluster (Prometheus' ``cluster`` target label); ``multi`` shows several side by side."""
    variable = (
        dash.QueryVariable("cluster")
        .label("Cluster")
        .datasource(DATASOURCE)
        .query("label_values(ndb_up, cluster)")
        .refresh(model.VariableRefresh.ON_TIME_RANGE_CHANGED)
        .sort(model.VariableSort.ALPHABETICAL_ASC)
    )
    if multi:
        variable = variable.multi(True).include_all(True).all_value(".*").current(ALL)
    return variable


def instance_variable() -> dash.QueryVariable:
    return (
        dash.QueryVariable("instance")
        .label("SQL node (exporter)")
        .description(
            "Exporters, one per SQL node. Cluster-wide ndbinfo data is the same through every "
            "SQL node; panels take the maximum over the selected ones."
        )
        .datasource(DATASOURCE)
        .query('label_values(ndb_up{cluster=~"$cluster"}, instance)')
        .refresh(model.VariableRefresh.ON_TIME_RANGE_CHANGED)
        .sort(model.VariableSort.ALPHABETICAL_ASC)
        .multi(True)
        .include_all(True)
        .all_value(".*")
        .current(ALL)
    )


def node_variable() -> dash.QueryVariable:
    return (
        dash.QueryVariable("node")
        .label("Data node")
        .datasource(DATASOURCE)
        .query('label_values(ndb_data_node_uptime_seconds{cluster=~"$cluster"}, node_id)')
        .refresh(model.VariableRefresh.ON_TIME_RANGE_CHANGED)
        .sort(model.VariableSort.NATURAL_ASC)
        .multi(True)
        .include_all(True)
        .all_value(".*")
        .current(ALL)
    )


@dataclass
class Board:
    """A finished dashboard and the fault-only queries it declares (expr -> ndbsim fault)."""

    uid: str
    dashboard: model.Dashboard
    faults: dict[str, str] = field(default_factory=dict)


class Layout:
    """Builds a dashboard section by section and numbers its panels. ``clusters`` lets the
    cluster variable take several clusters at once (to compare them side by side)."""

    def __init__(
        self,
        uid: str,
        title: str,
        description: str,
        *,
        node_filter: bool = False,
        clusters: bool = False,
    ):
        self._builder = (
            dash.Dashboard(title)
            .uid(uid)
            .description(description)
            .tags(TAGS)
            .editable()
            .tooltip(model.DashboardCursorSync.CROSSHAIR)
            .time("now-1h", "now")
            .refresh("30s")
            .timezone("browser")
            .link(
                dash.DashboardLink("NDB dashboards")
                .type(model.DashboardLinkType.DASHBOARDS)
                .tags(TAGS)
                .as_dropdown(True)
                .include_vars(True)
                .keep_time(True)
            )
            .annotations([annotation(spec, DATASOURCE) for spec in ANNOTATIONS])
            .with_variable(datasource_variable())
            .with_variable(cluster_variable(multi=clusters))
            .with_variable(instance_variable())
        )
        if node_filter:
            self._builder = self._builder.with_variable(node_variable())
        self._uid = uid
        self._faults: dict[str, str] = {}

    def _remember(self, spec: PanelSpec) -> None:
        for query in spec.queries:
            if query.fault:
                self._faults[query.expr] = query.fault

    def row(self, title: str, *panels: PanelSpec) -> Layout:
        self._builder = self._builder.with_row(dash.Row(title))
        for spec in panels:
            self._remember(spec)
            self._builder = self._builder.with_panel(spec.builder)
        return self

    def collapsed_row(self, title: str, *panels: PanelSpec) -> Layout:
        row = dash.Row(title)
        for spec in panels:
            self._remember(spec)
            row = row.with_panel(spec.builder)
        self._builder = self._builder.with_row(row.collapsed(True))
        return self

    def build(self) -> Board:
        dashboard = self._builder.build()
        next_id = 1
        for panel in dashboard.panels or []:
            panel.id_val = next_id
            next_id += 1
            for inner in getattr(panel, "panels", None) or []:
                inner.id_val = next_id
                next_id += 1
        return Board(uid=self._uid, dashboard=dashboard, faults=dict(self._faults))
