"""Look-ups over the metric families of one scrape, by sample name and label values."""

from __future__ import annotations

from collections.abc import Iterable

from prometheus_client.core import Metric

Labels = dict[str, str]


def whole(value: float | None) -> int | None:
    """A sample's value as an integer (a count, a node id), None for no sample."""
    return None if value is None else int(value)


class Samples:
    """The samples of one scrape indexed by sample name (counters carry their ``_total``)."""

    def __init__(self, families: Iterable[Metric]):
        self._by_name: dict[str, list[tuple[Labels, float]]] = {}
        for family in families:
            for sample in family.samples:
                self._by_name.setdefault(sample.name, []).append(
                    (dict(sample.labels), sample.value)
                )

    def select(self, name: str, **match: str) -> list[tuple[Labels, float]]:
        """Every sample of ``name`` whose labels equal the given values."""
        return [
            (labels, value)
            for labels, value in self._by_name.get(name, [])
            if all(labels.get(key) == wanted for key, wanted in match.items())
        ]

    def has(self, name: str) -> bool:
        return name in self._by_name

    def value(self, name: str, **match: str) -> float | None:
        """The value of the first matching sample, None when there is none."""
        found = self.select(name, **match)
        return found[0][1] if found else None

    def gci(self, name: str, **match: str) -> int | None:
        """The GCI (high 32 bits) of the epoch the first matching sample holds, None when
        there is none."""
        epoch = whole(self.value(name, **match))
        return None if epoch is None else epoch >> 32

    def total(self, name: str, **match: str) -> float | None:
        """Sum over the matching samples, None when there is none."""
        found = self.select(name, **match)
        return sum(value for _, value in found) if found else None

    def by(self, name: str, label: str, **match: str) -> dict[str, float]:
        """Matching samples summed per value of ``label``."""
        result: dict[str, float] = {}
        for labels, value in self.select(name, **match):
            key = labels.get(label, "")
            result[key] = result.get(key, 0.0) + value
        return result

    def by_node(self, name: str, **match: str) -> dict[int, float]:
        """Matching samples summed per ``node_id``."""
        return {int(node): value for node, value in self.by(name, "node_id", **match).items()}
