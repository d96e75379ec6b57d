"""Configuration findings: parameters that differ between the data nodes."""

from __future__ import annotations

from ndbinfo_exporter.view.findings.check import Check
from ndbinfo_exporter.view.findings.inputs import Inputs
from ndbinfo_exporter.view.models import Evidence, Finding


def inconsistent_config(check: Check, inputs: Inputs) -> Finding:
    if not inputs.samples.has("ndb_config_inconsistent_params"):
        return check.no_data("config")
    bad = [p for p in inputs.config.params if p.inconsistent]
    evidence = [
        Evidence(label=p.param, value=", ".join(f"node {v.node_id}: {v.value:g}" for v in p.values))
        for p in bad
    ]
    if not bad:
        return check.finding("ok", "Every data node runs with the same parameters.")
    return check.finding("problem", f"{len(bad)} parameter(s) differ between data nodes.", evidence)


CONFIG_INCONSISTENT = Check(
    id="config_inconsistent",
    title="Parameters that differ between data nodes",
    severity="warning",
    promql="ndb_config_inconsistent == 1",
    sql=(
        "SELECT p.param_name, v.node_id, v.config_value\n"
        "FROM ndbinfo.config_values v JOIN ndbinfo.config_params p ON p.param_number = v.config_param\n"
        "ORDER BY p.param_name, v.node_id"
    ),
    guide="4.6 Parameter tuning (Parameteroptimierung)",
    advice=(
        "Data nodes of one cluster should run with the same settings ([ndbd default] in "
        "config.ini); a differing value usually means an incomplete rolling restart."
    ),
    evaluate=inconsistent_config,
)
