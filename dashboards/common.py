"""Shared pieces of the NDB dashboards: variables, selectors, panel helpers and the layout.

Every panel reads from the ``$datasource`` variable, carries a description and a unit, and
every rate uses ``$__rate_interval``. Panels are declared as :class:`PanelSpec` so the queries
(and the ndbsim fault a query needs before it returns data) stay inspectable by the tests.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from grafana_foundation_sdk.builders import (
    bargauge,
    common,
    heatmap,
    stat,
    statetimeline,
    table,
    timeseries,
)
from grafana_foundation_sdk.builders import dashboard as dash
from grafana_foundation_sdk.builders import prometheus as prom
from grafana_foundation_sdk.cog import builder as cogbuilder
from grafana_foundation_sdk.models import common as common_model
from grafana_foundation_sdk.models import dashboard as model
from grafana_foundation_sdk.models import prometheus as prom_model

TAGS = ["ndb"]
DATASOURCE = model.DataSourceRef(type_val="prometheus", uid="${datasource}")
RATE = "$__rate_interval"
# GCI = epoch >> 32 (Ndb_last_commit_epoch_server carries the GCI in its upper 32 bits).
EPOCH_PER_GCI = 4294967296

CLUSTER = 'cluster=~"$cluster"'
INSTANCE = 'instance=~"$instance"'
NODE = 'node_id=~"$node"'


def sel(metric: str, *matchers: str, node: bool = False) -> str:
    """``metric{cluster=~"$cluster", instance=~"$instance", ...}``; ``node`` adds the node filter."""
    parts = [CLUSTER, INSTANCE, *([NODE] if node else []), *matchers]
    return f"{metric}{{{', '.join(parts)}}}"


def rate(metric: str, *matchers: str, node: bool = False) -> str:
    return f"rate({sel(metric, *matchers, node=node)}[{RATE}])"


def increase(metric: str, *matchers: str, node: bool = False) -> str:
    return f"increase({sel(metric, *matchers, node=node)}[{RATE}])"


def state_code(
    metric: str,
    states: Sequence[tuple[str, int]],
    by: str,
    *matchers: str,
    node: bool = False,
    otherwise: str | None = None,
) -> str:
    """One number per ``by`` group from an enumerated ``state`` metric (1 for the current state).

    PromQL cannot turn a label into a value, so each known state (a regex of states) gets a
    code; the panel's value mappings turn the code back into text. ``otherwise`` supplies the
    groups that report no state at all (e.g. configured data nodes that are not running).
    """
    terms = []
    for pattern, code in states:
        series = sel(metric, f'state=~"{pattern}"', *matchers, node=node)
        terms.append(f"(max by ({by}) ({series} == 1) * 0 + {code})")
    if otherwise:
        terms.append(otherwise)
    return " or ".join(terms)


# The condition of a query that returns data only where two clusters replicate: the source's
# binlog server and the replica's applier (ndbsim --replica).
REPLICATION = "replication"


@dataclass(frozen=True)
class Query:
    """A PromQL query of a panel. ``fault`` names the ndbsim fault under which it returns data,
    for queries that are legitimately empty in a healthy cluster."""

    expr: str
    legend: str = ""
    instant: bool = False
    table: bool = False
    fault: str | None = None
    heatmap: bool = False  # buckets of a histogram, one series per `le`


def q(
    expr: str,
    legend: str = "",
    *,
    instant: bool = False,
    table: bool = False,
    fault: str | None = None,
    heatmap: bool = False,
) -> Query:
    return Query(
        expr=expr, legend=legend, instant=instant, table=table, fault=fault, heatmap=heatmap
    )


def _target(query: Query, ref_id: str) -> prom.Dataquery:
    target = (
        prom.Dataquery()
        .expr(query.expr)
        .ref_id(ref_id)
        .datasource(DATASOURCE)
        .editor_mode(prom_model.QueryEditorMode.CODE)
    )
    if query.legend:
        target = target.legend_format(query.legend)
    target = target.instant() if query.instant or query.table else target.range()
    if query.table:
        target = target.format(prom_model.PromQueryFormat.TABLE)
    if query.heatmap:
        target = target.format(prom_model.PromQueryFormat.HEATMAP)
    return target


@dataclass
class PanelSpec:
    """A panel builder plus the queries it runs (kept for the tests)."""

    builder: cogbuilder.Builder[model.Panel]
    queries: tuple[Query, ...]


def _with_common(
    builder,
    title: str,
    description: str,
    unit: str,
    queries: Sequence[Query],
    width: int,
    height: int,
):
    builder = (
        builder.title(title)
        .description(description)
        .unit(unit)
        .datasource(DATASOURCE)
        .span(width)
        .height(height)
    )
    for index, query in enumerate(queries):
        builder = builder.with_target(_target(query, chr(ord("A") + index)))
    return builder


def per_node(expr: str, *labels: str, suffix: str = "", **options: bool) -> Query:
    """A data node's series (and ``labels``) once, the maximum over the SQL nodes that
    report it; the legend names the node and the labels, then ``suffix``."""
    legend = " ".join(["node {{node_id}}", *(f"{{{{{label}}}}}" for label in labels), suffix])
    return q(f"max by ({', '.join(('node_id', *labels))}) ({expr})", legend.rstrip(), **options)


def per_instance(expr: str, *labels: str) -> str:
    """A SQL node's series summed per exporter target (and ``labels``)."""
    return f"sum by ({', '.join(('instance', *labels))}) ({expr})"


def instance_query(expr: str, *labels: str, suffix: str = "") -> Query:
    """``per_instance`` with a legend naming the SQL node and the labels, then ``suffix``."""
    legend = " ".join(["{{instance}}", *(f"{{{{{label}}}}}" for label in labels), suffix])
    return q(per_instance(expr, *labels), legend.rstrip())


def thresholds(*steps: tuple[float | None, str]) -> dash.ThresholdsConfig:
    """Absolute thresholds; the first step's value is None (the base colour)."""
    return (
        dash.ThresholdsConfig()
        .mode(model.ThresholdsMode.ABSOLUTE)
        .steps([model.Threshold(value=value, color=color) for value, color in steps])
    )


GREEN_ONLY = thresholds((None, "green"))
ZERO_IS_GOOD = thresholds((None, "green"), (1, "red"))
USAGE = thresholds((None, "green"), (0.8, "orange"), (0.9, "red"))


def value_text(mapping: dict[int, tuple[str, str]]) -> list[model.ValueMap]:
    """Value mappings number -> (text, colour)."""
    return [
        model.ValueMap(
            options={
                str(value): model.ValueMappingResult(text=text, color=color, index=index)
                for index, (value, (text, color)) in enumerate(sorted(mapping.items()))
            }
        )
    ]


def _legend_table(calcs: list[str]) -> common.VizLegendOptions:
    return (
        common.VizLegendOptions()
        .display_mode(common_model.LegendDisplayMode.TABLE)
        .placement(common_model.LegendPlacement.BOTTOM)
        .show_legend(True)
        .calcs(calcs)
    )


def timeseries_panel(
    title: str,
    description: str,
    unit: str,
    *queries: Query,
    stack: bool = False,
    min_value: float | None = None,
    max_value: float | None = None,
    width: int = 12,
    height: int = 8,
    legend_calcs: Iterable[str] = ("lastNotNull", "max"),
    threshold_line: dash.ThresholdsConfig | None = None,
) -> PanelSpec:
    """Series over time; ``threshold_line`` draws its steps as lines across the graph."""
    builder = _with_common(
        timeseries.Panel(), title, description, unit, queries, width, height
    ).legend(_legend_table(list(legend_calcs)))
    builder = builder.fill_opacity(10).line_width(1)
    if threshold_line is not None:
        builder = builder.thresholds(threshold_line).thresholds_style(
            common.GraphThresholdsStyleConfig().mode(common_model.GraphThresholdsStyleMode.LINE)
        )
    if stack:
        builder = builder.stacking(
            common.StackingConfig().mode(common_model.StackingMode.NORMAL)
        ).fill_opacity(40)
    if min_value is not None:
        builder = builder.min(min_value)
    if max_value is not None:
        builder = builder.max(max_value)
    return PanelSpec(builder, queries)


def heatmap_panel(
    title: str, description: str, query: Query, width: int = 12, height: int = 8
) -> PanelSpec:
    """The buckets of a Prometheus histogram over time (seconds on the y axis)."""
    builder = _with_common(heatmap.Panel(), title, description, "s", [query], width, height)
    builder = builder.calculate(False).y_axis(heatmap.YAxisConfig().unit("s"))
    builder = builder.hide_from(common.HideSeriesConfig().legend(False).tooltip(False).viz(False))
    return PanelSpec(builder, (query,))


def stat_panel(
    title: str,
    description: str,
    unit: str,
    *queries: Query,
    steps: dash.ThresholdsConfig = GREEN_ONLY,
    mappings: list[model.ValueMap] | None = None,
    graph: bool = False,
    width: int = 4,
    height: int = 4,
) -> PanelSpec:
    builder = (
        _with_common(stat.Panel(), title, description, unit, queries, width, height)
        .thresholds(steps)
        .color_mode(common_model.BigValueColorMode.VALUE)
        .graph_mode(
            common_model.BigValueGraphMode.AREA if graph else common_model.BigValueGraphMode.NONE
        )
        .reduce_options(common.ReduceDataOptions().calcs(["lastNotNull"]).values(False))
    )
    if mappings:
        builder = builder.mappings(mappings)
    return PanelSpec(builder, queries)


def bargauge_panel(
    title: str,
    description: str,
    unit: str,
    *queries: Query,
    steps: dash.ThresholdsConfig = USAGE,
    min_value: float | None = 0,
    max_value: float | None = None,
    width: int = 12,
    height: int = 8,
) -> PanelSpec:
    builder = (
        _with_common(bargauge.Panel(), title, description, unit, queries, width, height)
        .thresholds(steps)
        .display_mode(common_model.BarGaugeDisplayMode.GRADIENT)
        .orientation(common_model.VizOrientation.HORIZONTAL)
        .reduce_options(common.ReduceDataOptions().calcs(["lastNotNull"]).values(False))
    )
    if min_value is not None:
        builder = builder.min(min_value)
    if max_value is not None:
        builder = builder.max(max_value)
    return PanelSpec(builder, queries)


def state_timeline_panel(
    title: str,
    description: str,
    *queries: Query,
    mappings: list[model.ValueMap],
    width: int = 12,
    height: int = 8,
) -> PanelSpec:
    builder = (
        _with_common(statetimeline.Panel(), title, description, "none", queries, width, height)
        .mappings(mappings)
        .thresholds(GREEN_ONLY)
        .color_scheme(dash.FieldColor().mode(model.FieldColorModeId.THRESHOLDS))
        .show_value(common_model.VisibilityMode.AUTO)
        .merge_values(True)
        .fill_opacity(80)
        .line_width(0)
    )
    return PanelSpec(builder, queries)


def table_panel(
    title: str,
    description: str,
    unit: str,
    *queries: Query,
    transformations: Sequence[model.DataTransformerConfig] = (),
    overrides: Sequence[tuple[str, list[model.DynamicConfigValue]]] = (),
    steps: dash.ThresholdsConfig = GREEN_ONLY,
    width: int = 12,
    height: int = 8,
) -> PanelSpec:
    """A table of instant queries; each query must have ``table=True``."""
    builder = _with_common(table.Panel(), title, description, unit, queries, width, height)
    builder = (
        builder.thresholds(steps)
        .cell_height(common_model.TableCellHeight.SM)
        .align(common_model.FieldTextAlignment.AUTO)
        .inspect(False)
    )
    for transformation in transformations:
        builder = builder.with_transformation(transformation)
    for name, properties in overrides:
        builder = builder.override_by_name(name, properties)
    return PanelSpec(builder, queries)


def alert_list_panel(
    title: str, description: str, label_filter: str, width: int = 12, height: int = 8
) -> PanelSpec:
    """Firing and pending alerts from Prometheus rules, filtered by alert labels.

    The SDK has no alert-list builder, so the panel is built on the generic one. Grafana's
    alert list matches rule sources by name, not by the datasource variable; the label filter
    (which Grafana does interpolate) narrows it to the selected cluster.
    """
    builder = (
        dash.Panel()
        .type("alertlist")
        .title(title)
        .description(description)
        .datasource(DATASOURCE)
        .unit("none")
        .span(width)
        .height(height)
        .options(
            {
                "viewMode": "list",
                "groupMode": "default",
                "groupBy": [],
                "maxItems": 20,
                "sortOrder": 3,
                "dashboardAlerts": False,
                "alertName": "",
                "alertInstanceLabelFilter": label_filter,
                "datasource": "",
                "showInstances": True,
                "stateFilter": {
                    "firing": True,
                    "pending": True,
                    "noData": False,
                    "normal": False,
                    "error": True,
                },
            }
        )
    )
    return PanelSpec(builder, ())


def transformation(transform_id: str, options: dict[str, object]) -> model.DataTransformerConfig:
    return model.DataTransformerConfig(id_val=transform_id, options=options)


def unit_override(unit: str) -> list[model.DynamicConfigValue]:
    return [model.DynamicConfigValue(id_val="unit", value=unit)]


def joined_table(
    title: str,
    description: str,
    labels: Sequence[str],
    columns: Sequence[tuple[str | None, Query, str]],
    *,
    join_on: str | None = None,
    width: int = 12,
    height: int = 8,
) -> PanelSpec:
    """A table with one row per label set and one column per query.

    ``columns`` are (column name, instant table query, unit); a column named None only
    contributes labels (e.g. the ``state`` label of an enumerated metric). The queries' frames
    are joined on the ``join_on`` label (or merged on identical label sets when it is None);
    only ``labels`` and the named value columns are kept, renamed to the column names.
    """
    if len(columns) == 1:
        value_names = ["Value"]
    else:
        value_names = [f"Value #{chr(ord('A') + index)}" for index in range(len(columns))]
    named = [
        (value, column) for value, column in zip(value_names, columns, strict=True) if column[0]
    ]
    keep = "|".join([*labels, *(value for value, _ in named)])
    steps: list[model.DataTransformerConfig] = []
    if len(columns) > 1:
        if join_on:
            steps.append(transformation("joinByField", {"byField": join_on, "mode": "outer"}))
        else:
            steps.append(transformation("merge", {}))
    steps.append(transformation("filterFieldsByName", {"include": {"pattern": f"^({keep})$"}}))
    rename = {value: column[0] for value, column in named}
    order = {name: index for index, name in enumerate([*labels, *(value for value, _ in named)])}
    steps.append(
        transformation(
            "organize", {"excludeByName": {}, "renameByName": rename, "indexByName": order}
        )
    )
    return table_panel(
        title,
        description,
        "none",
        *(query for _, query, _ in columns),
        transformations=steps,
        overrides=[
            (name, unit_override(unit)) for name, _, unit in columns if name and unit != "none"
        ],
        width=width,
        height=height,
    )


def matrix_table(
    title: str,
    description: str,
    query: Query,
    *,
    rows: str,
    columns: str,
    unit: str = "none",
    column_units: dict[str, str] | None = None,
    width: int = 12,
    height: int = 8,
) -> PanelSpec:
    """One instant query shown as a matrix: a row per ``rows`` label, a column per ``columns``."""
    return table_panel(
        title,
        description,
        unit,
        query,
        transformations=[
            transformation(
                "groupingToMatrix",
                {"columnField": columns, "rowField": rows, "valueField": "Value"},
            )
        ],
        overrides=[(name, unit_override(u)) for name, u in (column_units or {}).items()],
        width=width,
        height=height,
    )


# ---------------------------------------------------------------- variables

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
        .query(
            'label_values(ndb_data_node_uptime_seconds{cluster=~"$cluster", instance=~"$instance"}, node_id)'
        )
        .refresh(model.VariableRefresh.ON_TIME_RANGE_CHANGED)
        .sort(model.VariableSort.NATURAL_ASC)
        .multi(True)
        .include_all(True)
        .all_value(".*")
        .current(ALL)
    )


# ---------------------------------------------------------------- layout


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


# ---------------------------------------------------------------- shared panels

DATA_NODE_STATES = (
    ("STARTED", 5),
    ("SINGLEUSER", 4),
    ("STARTING|CMVMI", 3),
    ("STOPPING_.*", 2),
    ("NOTHING", 1),
)
DATA_NODE_STATE_TEXT = value_text(
    {
        5: ("STARTED", "green"),
        4: ("SINGLEUSER", "blue"),
        3: ("STARTING", "yellow"),
        2: ("STOPPING", "orange"),
        1: ("NOTHING", "purple"),
        0: ("not running", "red"),
    }
)


def data_node_state_panel(*, node: bool = False, width: int = 12) -> PanelSpec:
    configured = sel("ndb_node_configured", 'node_type="NDB"', node=node)
    not_running = f"max by (node_id) ({configured}) * 0"
    return state_timeline_panel(
        "Data node state",
        "Start state of every configured data node over time (ndbinfo.nodes, plus "
        "config_nodes for nodes that are down). STARTED is normal; STARTING during a node or "
        "system restart (see the start phase on the Data nodes dashboard); 'not running' means "
        "the node is configured but has no running process, so its node group runs with fewer "
        "replicas.",
        q(
            state_code(
                "ndb_data_node_status",
                DATA_NODE_STATES,
                "node_id",
                node=node,
                otherwise=not_running,
            ),
            "node {{node_id}}",
        ),
        mappings=DATA_NODE_STATE_TEXT,
        width=width,
    )
