"""Data node configuration: config_params JOIN config_values.

Exports, per data node, the numeric (unsigned and bool) parameters that the alerts,
dashboards and cluster view read, those that differ from their default and those that differ
between data nodes (every parameter with the option ``all-params``); their defaults; which
values differ from the default and which parameters differ between data nodes.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from decimal import Decimal, InvalidOperation
from typing import Any

from .base import (
    Collector,
    Context,
    Option,
    Row,
    SlowChanging,
    boolean,
    gauge,
    ident,
    number,
    text,
)

NUMERIC_TYPES = ("unsigned", "bool")
BOOLEANS = {"true": 1.0, "false": 0.0, "yes": 1.0, "no": 0.0, "y": 1.0, "n": 0.0}

# Parameters that name a node, a host, a directory or a port: they differ between data
# nodes by design and their defaults say nothing.
PER_NODE = frozenset(
    {
        "NodeId",
        "HostName",
        "ExecuteOnComputer",
        "DataDir",
        "FileSystemPath",
        "FileSystemPathDD",
        "FileSystemPathDataFiles",
        "FileSystemPathUndoFiles",
        "BackupDataDir",
        "ServerPort",
        "NodeGroup",
        "LocationDomainId",
    }
)

# Read by the alert rules, the dashboards and the cluster view: exported even at their default.
# The sizing of memory and redo log, checkpoint and epoch timing, the epochs a subscriber may
# lag (MaxBufferedEpochs) and the transaction timeouts; other parameters show when they
# differ from their default or between data nodes.
KEY_PARAMS = frozenset(
    {
        "NoOfReplicas",
        "DataMemory",
        "TransactionMemory",
        "SharedGlobalMemory",
        "DiskPageBufferMemory",
        "TotalSendBufferMemory",
        "NoOfFragmentLogParts",
        "NoOfFragmentLogFiles",
        "FragmentLogFileSize",
        "RedoBuffer",
        "TimeBetweenGlobalCheckpoints",
        "TimeBetweenEpochs",
        "MaxBufferedEpochs",
        "MinDiskWriteSpeed",
        "MaxDiskWriteSpeed",
        "TransactionDeadlockDetectionTimeout",
        "TransactionInactiveTimeout",
    }
)

VALUE = gauge(
    "ndb_config_value",
    "Numeric (unsigned and bool) configuration parameters of each data node: those the"
    " alerts, dashboards and cluster view read, those that differ from their default and"
    " those that differ between data nodes (all of them with --collector.config.all-params).",
    ("node_id", "param"),
)
DEFAULT = gauge(
    "ndb_config_default_value",
    "Default of each numeric configuration parameter exported in ndb_config_value that has one"
    " (per-node parameters such as NodeId and ServerPort left out): where ndb_config_value"
    " differs from it, the data node runs with a non-default value.",
    ("param",),
)
INCONSISTENT = gauge(
    "ndb_config_inconsistent",
    "1 for each parameter whose value differs between data nodes; absent otherwise. Per-node"
    " parameters (NodeId, HostName, DataDir, FileSystemPath, BackupDataDir, ServerPort,"
    " NodeGroup, LocationDomainId, ...) are left out.",
    ("param",),
)
NON_DEFAULT_COUNT = gauge(
    "ndb_config_non_default_params",
    "Numeric parameters of the data node that differ from their default.",
    ("node_id",),
)
INCONSISTENT_COUNT = gauge(
    "ndb_config_inconsistent_params", "Parameters that differ between data nodes."
)

SQL = (
    "SELECT v.node_id, p.param_name, p.param_type, p.param_default, v.config_value"
    " FROM ndbinfo.config_values v"
    " JOIN ndbinfo.config_params p ON p.param_number = v.config_param"
)


def numeric(value: Any) -> float | None:
    """A parameter value or default as a number, None when it is not one (text, empty)."""
    raw = text(value).strip()
    if raw.lower() in BOOLEANS:
        return BOOLEANS[raw.lower()]
    try:
        return float(Decimal(raw)) if raw else None
    except InvalidOperation:
        return None


def collect(rows: list[Row], ctx: Context) -> Iterable:
    value_family, default_family = VALUE.family(), DEFAULT.family()
    inconsistent_family = INCONSISTENT.family()
    defaults: dict[str, float] = {}
    values: list[tuple[str, str, float]] = []
    non_default: dict[str, list[str]] = defaultdict(list)
    per_param: dict[str, set[str]] = defaultdict(set)
    nodes = set()
    key = lambda r: (number(r["node_id"]), text(r["param_name"]))  # noqa: E731
    for row in sorted(rows, key=key):
        node, param = ident(row["node_id"]), text(row["param_name"])
        nodes.add(node)
        if param not in PER_NODE:
            per_param[param].add(text(row["config_value"]).strip())
        if text(row["param_type"]) not in NUMERIC_TYPES:
            continue
        value, default = numeric(row["config_value"]), numeric(row["param_default"])
        if value is None:
            continue
        values.append((node, param, value))
        if default is not None and param not in PER_NODE:
            defaults[param] = default
            if value != default:
                non_default[node].append(param)
    inconsistent = sorted(param for param, found in per_param.items() if len(found) > 1)
    if ctx.options.get("all-params"):
        exported = {param for _, param, _ in values}
    else:
        exported = KEY_PARAMS | set(inconsistent) | {p for ps in non_default.values() for p in ps}
    for node, param, value in values:
        if param in exported:
            value_family.add_metric([node, param], value)
    for param in sorted(defaults):
        if param in exported:
            default_family.add_metric([param], defaults[param])
    for param in inconsistent:
        inconsistent_family.add_metric([param], 1.0)
    yield from (value_family, default_family, inconsistent_family)
    count = NON_DEFAULT_COUNT.family()
    for node in sorted(nodes, key=int):
        count.add_metric([node], float(len(non_default[node])))
    yield count
    inconsistent_count = INCONSISTENT_COUNT.family()
    inconsistent_count.add_metric([], float(len(inconsistent)))
    yield inconsistent_count


COLLECTOR = Collector(
    name="config",
    help="Configuration parameters of each data node that the alerts, dashboards and view read"
    " or that differ from their default or between data nodes, their defaults and the"
    " differences (config_params JOIN config_values). On by default: read again only when"
    " the configuration generation or a data node's state changes.",
    default_enabled=True,
    reads={
        "config_params": ("param_number", "param_name", "param_type", "param_default"),
        "config_values": ("node_id", "config_param", "config_value"),
    },
    min_version=(7, 5, 0),
    sql=SQL,
    collect=collect,
    options=(
        Option(
            "all-params",
            "Export every numeric parameter of every data node in ndb_config_value.",
            False,
            boolean,
        ),
    ),
    metrics=(VALUE, DEFAULT, INCONSISTENT, NON_DEFAULT_COUNT, INCONSISTENT_COUNT),
    # A data node takes its configuration when it starts (a restart moves the nodes signal),
    # and a new generation moves the config signal: every change of these rows moves one of
    # them, so they are not read again for age.
    slow=SlowChanging(frozenset({"config", "nodes"}), aged=False),
)
