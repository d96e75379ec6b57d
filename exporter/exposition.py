"""Text exposition of the exporter's metric families.

prometheus_client renders every sample through its UTF-8 name validation and escaping,
which is most of the exporter's CPU time at a few thousand series (bench/scrape.py). The
families here are gauges and counters with valid legacy names, so they are written directly;
anything else is left to prometheus_client. The output is byte-for-byte the library's
(tests/exporter/test_exposition.py checks it on every golden fixture).
"""

from __future__ import annotations

from collections.abc import Sequence

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import Metric
from prometheus_client.registry import Collector as RegistryCollector
from prometheus_client.utils import floatToGoString

_DIRECT_TYPES = {"gauge", "counter"}


class _Families(RegistryCollector):
    def __init__(self, families: Sequence[Metric]):
        self._families = families

    def collect(self):
        return iter(self._families)


def registry_of(families: Sequence[Metric]) -> CollectorRegistry:
    """A registry that lives for one rendering of these families."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(_Families(families))
    return registry


def _label_value(value: str) -> str:
    return value.replace("\\", r"\\").replace("\n", r"\n").replace('"', r"\"")


def _family_text(family: Metric) -> str:
    name = family.name + "_total" if family.type == "counter" else family.name
    help_text = family.documentation.replace("\\", r"\\").replace("\n", r"\n")
    lines = [f"# HELP {name} {help_text}\n# TYPE {name} {family.type}\n"]
    for sample in family.samples:
        if sample.labels:
            labels = ",".join(
                f'{key}="{_label_value(value)}"' for key, value in sorted(sample.labels.items())
            )
            lines.append(f"{sample.name}{{{labels}}} {floatToGoString(sample.value)}\n")
        else:
            lines.append(f"{sample.name} {floatToGoString(sample.value)}\n")
    return "".join(lines)


def _direct(family: Metric) -> bool:
    return family.type in _DIRECT_TYPES and all(
        sample.timestamp is None
        and sample.name.startswith(family.name)
        and not sample.name.endswith("_created")
        for sample in family.samples
    )


def text_exposition(families: Sequence[Metric]) -> bytes:
    """The Prometheus text format (0.0.4) of these families, in their order."""
    if all(_direct(family) for family in families):
        return "".join(_family_text(family) for family in families).encode()
    return generate_latest(registry_of(families))
