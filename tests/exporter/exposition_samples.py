"""The samples of the exporter's exposition text, by metric name and labels."""

from __future__ import annotations

from prometheus_client.parser import text_string_to_metric_families


def metrics(text: str) -> dict[str, dict[tuple, float]]:
    out: dict[str, dict[tuple, float]] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            out.setdefault(sample.name, {})[tuple(sorted(sample.labels.items()))] = sample.value
    return out


def per_collector(parsed, name: str) -> dict[str, float]:
    return {dict(labels)["collector"]: value for labels, value in parsed.get(name, {}).items()}
