"""Tuning findings: checks from the NDB performance tuning guide over what a scrape collected.

Every finding carries the measured evidence, the PromQL expression that performs the same
check over the exporter's metrics (for an alert or a dashboard) and the SQL the evidence
comes from, so an operator can verify it by hand. Each family of checks is a module that
declares its checks (``check.Check``); ``evaluation`` runs them all in a fixed order.
"""

from ndbinfo_exporter.health.findings.evaluation import evaluate
from ndbinfo_exporter.health.findings.inputs import Inputs

__all__ = ["Inputs", "evaluate"]
