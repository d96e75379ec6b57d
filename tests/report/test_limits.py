"""Performance data as the guidelines write it: quoted labels with their quotes doubled, no
scientific notation, U for a value that cannot be read, the ranges as given."""

from __future__ import annotations

import pytest
from ndbinfo_exporter.health.findings.evaluation import CHECKS
from ndbinfo_exporter.report.limits import LIMITS, Measurement, number, quoted
from ndbinfo_exporter.report.ranges import parse


@pytest.mark.parametrize(
    "value, text",
    [(0, "0"), (40.6, "40.6"), (1e6, "1000000"), (12345678.9, "12345678.9"), (0.0004, "0")],
)
def test_a_number_is_never_in_scientific_notation(value, text):
    assert number(value) == text


def test_a_label_keeps_its_quotes_doubled_and_loses_equals_signs():
    assert quoted("replication_lag_it's=") == "'replication_lag_it''s_'"


def test_a_measurement_reads_as_the_guidelines_write_it():
    lag = Measurement("replication_lag_default", 1.5e6, "s", parse("300"), None, "")
    assert lag.perfdata() == "'replication_lag_default'=1500000s;300;;0"
    stopped = Measurement("data_memory_node_2", None, "%", parse("10:"), parse("@1:5"), "100")
    assert stopped.perfdata() == "'data_memory_node_2'=U;10:;@1:5;0;100"


def test_every_limit_is_the_limit_of_a_check_that_runs():
    assert {limit.check.id for limit in LIMITS.values()} <= {check.id for check in CHECKS}
