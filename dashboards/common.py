"""Shared pieces of the NDB dashboards: variables, selectors, panel helpers and the layout.

Every panel reads from the ``$datasource`` variable, carries a description and a unit, and
every rate uses ``$__rate_interval``. Panels are declared as :class:`PanelSpec` so the queries
(and the ndbsim fault a query needs before it returns data) stay inspectable by the tests.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import yaml
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
# Series of the SQL node itself (Prometheus job "ndb", scraped from every SQL node): its status
# counters, metadata sync, replication channels and binlog injector, and the exporter's own.
# Every other series is read from ndbinfo (job "ndb-cluster") and is the same through any SQL
# node, so it is not filtered by the SQL node variable: a panel about the cluster must not
# empty when the selected SQL node's exporter does not read ndbinfo.
SQL_NODE_METRICS = re.compile(
    r"^(ndb_sql_|ndb_replica_|ndb_binlog_|ndb_up$|ndb_engine_visibility$|ndb_exporter_)"
)
PROMETHEUS_CONFIG = Path(__file__).resolve().parents[1] / "provisioning/prometheus/prometheus.yml"
NDBINFO_JOB = "ndb-cluster"


def of_sql_node(metric: str) -> bool:
    """Whether ``metric`` is a series of each SQL node rather than of the cluster (ndbinfo)."""
    return bool(SQL_NODE_METRICS.match(metric))


@cache
def ndbinfo_scrape_interval() -> str:
    """The scrape interval of the job that reads ndbinfo: the panels reading its series ask
    Grafana for that minimum interval, so that ``$__rate_interval`` spans four of its scrapes
    (the data source's ``timeInterval`` is the shorter interval of the SQL-node job)."""
    config = yaml.safe_load(PROMETHEUS_CONFIG.read_text())
    job = next(job for job in config["scrape_configs"] if job["job_name"] == NDBINFO_JOB)
    return job.get("scrape_interval", config["global"]["scrape_interval"])


def sel(metric: str, *matchers: str, node: bool = False, per_cluster: bool = False) -> str:
    """``metric{cluster=~"$cluster", ...}``; a SQL node's series also takes the SQL node
    variable (``instance=~"$instance"``) unless ``per_cluster``: a figure of the whole cluster
    read from all its SQL nodes; ``node`` adds the data node filter."""
    instance = [INSTANCE] if of_sql_node(metric) and not per_cluster else []
    parts = [CLUSTER, *instance, *([NODE] if node else []), *matchers]
    return f"{metric}{{{', '.join(parts)}}}"


def committed_gci() -> str:
    """The newest GCI committed in each cluster: the largest Ndb_last_commit_epoch_server
    over all its SQL nodes (whichever are selected), as a GCI (epoch >> 32). One SQL node
    alone lags while it is idle."""
    epoch = sel("ndb_sql_last_commit_epoch", per_cluster=True)
    return f"floor(max by (cluster) ({epoch}) / {EPOCH_PER_GCI})"


# Panels draw at most this many series of nodes: the worst ones (topk or bottomk); the node
# variable of the Data nodes dashboard, or a drill-down link, shows any other.
TOP = 10


def top(expr: str, k: int = TOP) -> str:
    return f"topk({k}, {expr})"


def bottom(expr: str, k: int = TOP) -> str:
    return f"bottomk({k}, {expr})"


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


def selected(expr: str) -> set[str]:
    """The metric names of the selectors (``name{...}``) in ``expr``."""
    return set(re.findall(r"([A-Za-z_:][A-Za-z0-9_:]*)\{", expr))


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
    if any(not of_sql_node(name) for query in queries for name in selected(query.expr)):
        builder = builder.interval(ndbinfo_scrape_interval())
    for index, query in enumerate(queries):
        builder = builder.with_target(_target(query, chr(ord("A") + index)))
    return builder


def per_node(
    expr: str,
    *labels: str,
    suffix: str = "",
    k: int = TOP,
    lowest: bool = False,
    **options: bool,
) -> Query:
    """A data node's series (and ``labels``) once, the maximum over the SQL nodes that
    report it, the ``k`` highest (``lowest``: lowest) of them; the legend names the node and
    the labels, then ``suffix``."""
    legend = " ".join(["node {{node_id}}", *(f"{{{{{label}}}}}" for label in labels), suffix])
    series = f"max by ({', '.join(('node_id', *labels))}) ({expr})"
    return q(bottom(series, k) if lowest else top(series, k), legend.rstrip(), **options)


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


def alert_steps(
    warning: float | None = None, critical: float | None = None, *, below: bool = False
) -> dash.ThresholdsConfig:
    """Colours at an alert's thresholds (``alerts.threshold``): green, orange from the
    warning and red from the critical one; ``below`` for a signal that is bad when low."""
    levels = [
        (value, color)
        for value, color in ((warning, "orange"), (critical, "red"))
        if value is not None
    ]
    if below:
        worst_first = sorted(levels)
        colors = [color for _, color in worst_first]
        values = [value for value, _ in worst_first]
        return thresholds((None, colors[0]), *zip(values, [*colors[1:], "green"], strict=True))
    return thresholds((None, "green"), *levels)


GREEN_ONLY = thresholds((None, "green"))
ZERO_IS_GOOD = thresholds((None, "green"), (1, "red"))
# A count that pages when above zero at severity warning.
ZERO_IS_GOOD_WARNING = thresholds((None, "green"), (1, "orange"))
# Information, not a judgement: every value in one neutral colour.
NEUTRAL = thresholds((None, "blue"))


def threshold_override(steps: dash.ThresholdsConfig) -> list[model.DynamicConfigValue]:
    """Field override properties that colour the matched fields at ``steps``."""
    return [model.DynamicConfigValue(id_val="thresholds", value=steps.build())]


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
    links: Sequence[dash.DashboardLink] = (),
) -> PanelSpec:
    """Series over time; ``threshold_line`` draws its steps as lines across the graph (an
    alert's thresholds), ``links`` are data links (a series drills down)."""
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
    if links:
        builder = builder.data_links(list(links))
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
    steps: dash.ThresholdsConfig,
    mappings: list[model.ValueMap] | None = None,
    graph: bool = False,
    links: Sequence[dash.DashboardLink] = (),
    named: bool = False,
    no_value: str | None = None,
    field_steps: Sequence[tuple[str, dash.ThresholdsConfig]] = (),
    width: int = 4,
    height: int = 4,
) -> PanelSpec:
    """A big number; ``steps`` colour it (every stat judges its value, or says it does not
    with NEUTRAL); ``links`` are data links (a drill-down); ``named`` shows the series' legend
    under the value; ``no_value`` is the text shown when the query returns nothing;
    ``field_steps`` (legend, steps) colour one series at other thresholds (an alert's other
    severity)."""
    text_mode = common_model.BigValueTextMode.VALUE_AND_NAME if named else None
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
    if links:
        builder = builder.data_links(list(links))
    if text_mode:
        builder = builder.text_mode(text_mode)
    if no_value:
        builder = builder.no_value(no_value)
    for name, steps_of_field in field_steps:
        builder = builder.override_by_name(name, threshold_override(steps_of_field))
    return PanelSpec(builder, queries)


def bargauge_panel(
    title: str,
    description: str,
    unit: str,
    *queries: Query,
    steps: dash.ThresholdsConfig,
    min_value: float | None = 0,
    max_value: float | None = None,
    links: Sequence[dash.DashboardLink] = (),
    pattern_steps: Sequence[tuple[str, dash.ThresholdsConfig]] = (),
    width: int = 12,
    height: int = 8,
) -> PanelSpec:
    """Horizontal bars; ``links`` are data links (a bar drills down); ``pattern_steps``
    (regular expression on the bar's name, steps) colour some bars at other thresholds."""
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
    if links:
        builder = builder.data_links(list(links))
    for pattern, steps_of_bar in pattern_steps:
        builder = builder.override_by_regexp(pattern, threshold_override(steps_of_bar))
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
    sort_by: tuple[str, bool] | None = None,
    width: int = 12,
    height: int = 8,
) -> PanelSpec:
    """A table of instant queries; each query must have ``table=True``. ``sort_by`` is
    (column, descending): a table that can grow long shows what matters first."""
    builder = _with_common(table.Panel(), title, description, unit, queries, width, height)
    builder = (
        builder.thresholds(steps)
        .cell_height(common_model.TableCellHeight.SM)
        .align(common_model.FieldTextAlignment.AUTO)
        .inspect(False)
    )
    if sort_by:
        column, descending = sort_by
        builder = builder.sort_by(
            [common.TableSortByFieldState().display_name(column).desc(descending)]
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
    sort_by: tuple[str, bool] | None = None,
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
        sort_by=sort_by,
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


# ---------------------------------------------------------------- links

DATA_NODES_UID = "ndb-data-nodes"


def data_node_link() -> dash.DashboardLink:
    """A data link to the Data nodes dashboard with the clicked series' data node selected,
    the data source, cluster and time range kept."""
    url = (
        f"/d/{DATA_NODES_UID}?var-datasource=${{datasource}}&var-cluster=${{cluster}}"
        "&var-node=${__field.labels.node_id}&${__url_time_range}"
    )
    return (
        dash.DashboardLink("Data node ${__field.labels.node_id}")
        .type(model.DashboardLinkType.LINK)
        .url(url)
        .tooltip("Open the Data nodes dashboard for this data node")
    )


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
    state = state_code(
        "ndb_data_node_status", DATA_NODE_STATES, "node_id", node=node, otherwise=not_running
    )
    return state_timeline_panel(
        "Data node state",
        "Start state of the configured data nodes over time (ndbinfo.nodes, plus "
        "config_nodes for nodes that are down), the ten in the worst state. STARTED is "
        "normal; STARTING during a node or system restart (see the start phase); 'not "
        "running' means the node is configured but has no running process, so its node group "
        "runs with fewer replicas.",
        q(bottom(state), "node {{node_id}}"),
        mappings=DATA_NODE_STATE_TEXT,
        width=width,
    )
