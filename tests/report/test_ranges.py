"""The guidelines' threshold ranges."""

from __future__ import annotations

import pytest
from ndbinfo_exporter.errors import ConfigError
from ndbinfo_exporter.report.ranges import parse


@pytest.mark.parametrize(
    "text, alerting, quiet",
    [
        ("10", (-1, 10.5, 11), (0, 5, 10)),
        ("10:", (-5, 9.99), (10, 11, 1e9)),
        ("~:10", (10.01, 11), (-1e9, 0, 10)),
        ("10:20", (9, 21), (10, 15, 20)),
        ("@10:20", (10, 15, 20), (9, 21)),
        ("@40:60", (40, 55, 60), (39.9, 60.1)),
        ("0.5", (0.6,), (0.5, 0)),
    ],
)
def test_a_range_alerts_as_the_guidelines_say(text, alerting, quiet):
    parsed = parse(text)
    assert all(parsed.alerts(v) for v in alerting)
    assert not any(parsed.alerts(v) for v in quiet)
    assert parsed.text == text


@pytest.mark.parametrize("text", ["", "@", "x", "10:5", "1:2:3", "nan", "~", "inf:"])
def test_anything_else_is_a_config_error(text):
    with pytest.raises(ConfigError):
        parse(text)
