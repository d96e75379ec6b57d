"""The configuration of the data nodes (config_values): defaults, the model's [ndbd default],
the overrides of --config, and the limits raised to fit the dictionary."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from ndbsim.model import config_params
from ndbsim.model.config_params import AUTOMATIC_MEMORY
from ndbsim.model.dictionary import Dictionary
from ndbsim.model.spec import ClusterSpec
from ndbsim.model.topology import build_topology
from ndbsim.versions import NdbVersion

if TYPE_CHECKING:
    from ndbsim.model.cluster import Cluster


def build_config(spec: ClusterSpec, version: NdbVersion) -> dict[int, dict[str, str]]:
    """config_values of every data node: defaults, the [ndbd default] of the model and the
    overrides; ValueError for a bad layout, unknown parameters, bad values or unknown nodes."""
    topology = build_topology(
        spec.data_nodes, spec.replicas, spec.sql_nodes, spec.mgm_nodes, spec.free_api_slots
    )
    base = {
        "NoOfReplicas": str(spec.replicas),
        "DataMemory": "134217728",
        "MaxNoOfTables": "130",
        "MaxNoOfAttributes": "1009",
        "MaxNoOfTriggers": "1784",
        "MaxNoOfConcurrentTransactions": "131072",
        "MaxNoOfConcurrentOperations": "131072",
        "MaxNoOfOrderedIndexes": "512",
        "TimeBetweenLocalCheckpoints": "6",
        "NoOfFragmentLogFiles": "384",
        "ODirect": "1",
        "MaxNoOfExecutionThreads": str(min(72, max(2, 2 * spec.ldm_threads))),
        "NoOfFragmentLogParts": str(max(4, spec.ldm_threads)),
        "DataDir": "/var/lib/mysql-cluster",
        "FileSystemPath": "/var/lib/mysql-cluster",
        "BackupDataDir": "/var/lib/mysql-cluster",
    }
    if version.is_7x and not version.at_least(7, 6):
        base["IndexMemory"] = "68157440"
    overrides: list[config_params.Override] = []
    for key, value in spec.config.items():
        name, _, node = key.partition("@")
        overrides.append(
            config_params.parse_override(f"{name}={value}" + (f"@{node}" if node else ""))
        )
    result: dict[int, dict[str, str]] = {}
    params = config_params.params_for(version)
    for node in topology.data_nodes:
        values = {p.name: config_params.default_value(p) for p in params}
        if version.is_rondb:
            # what automatic memory sizes them to: the MySQL NDB defaults
            values.update({name: config_params.mysql_default(name) for name in AUTOMATIC_MEMORY})
        values.update(base)
        values["NodeId"] = str(node.node_id)
        values["HostName"] = node.hostname
        result[node.node_id] = values
    for o in overrides:
        param = config_params.lookup(o.name, version)
        value = config_params.normalize(param, o.value)
        if o.node_id is not None and o.node_id not in result:
            raise ValueError(f"--config {o.name}: {o.node_id} is not a data node id")
        if param.name in ("NodeId", "NoOfReplicas"):
            raise ValueError(f"--config {param.name} is set by the cluster layout")
        for node_id in [o.node_id] if o.node_id is not None else list(result):
            result[node_id][param.name] = value
    for values in result.values():
        if "DataDir" in values and values["FileSystemPath"] == base["FileSystemPath"]:
            values["FileSystemPath"] = values["DataDir"]
    return result


def fit_limits(config: dict[int, dict[str, str]], d: Dictionary, overridden: dict) -> None:
    """Raise the Max* limits where the dictionary would not fit (as an operator must)."""
    counts = d.counts()
    needs = {
        "MaxNoOfTables": counts["tables"] + 16,
        "MaxNoOfOrderedIndexes": counts["ordered_indexes"] + 16,
        "MaxNoOfUniqueHashIndexes": counts["unique_indexes"] + 16,
        "MaxNoOfAttributes": counts["attributes"] + 256,
        "MaxNoOfTriggers": counts["triggers"] * 2 + 768,
    }
    explicit = {k.split("@")[0].lower() for k in overridden}
    for values in config.values():
        for name, need in needs.items():
            if name.lower() not in explicit and int(values[name]) < need:
                values[name] = str(need)


def fit_data_memory(
    config: dict[int, dict[str, str]], node_bytes: dict[int, int], overridden: dict
) -> None:
    """Size DataMemory so the tables take about 40% of it, unless it was set explicitly."""
    if any(k.split("@")[0].lower() == "datamemory" for k in overridden):
        return
    step = 256 * 1024 * 1024
    for node_id, values in config.items():
        need = node_bytes[node_id] / 0.40
        if int(values["DataMemory"]) < need:
            values["DataMemory"] = str(math.ceil(need / step) * step)


def active(values: dict[str, str]) -> bool:
    """Whether a data node's configuration has it active (RonDB's NodeActive; always on MySQL
    NDB, which has no such parameter)."""
    return values.get("NodeActive", "1") == "1"


def reported(c: Cluster, node_id: int) -> dict[str, str]:
    """The configuration of a data node as it reports it (config_values, the management
    server's configuration): on RonDB with AutomaticMemoryConfig on, the memory parameters
    that no --config sets read 0, their configured value, while the node runs with the sizes
    it computed at start."""
    values = c.config[node_id]
    if not c.version.is_rondb or values.get("AutomaticMemoryConfig") != "1":
        return values
    explicit = {key.split("@")[0].lower() for key in c.spec.config}
    return {
        name: "0" if name in AUTOMATIC_MEMORY and name.lower() not in explicit else value
        for name, value in values.items()
    }
