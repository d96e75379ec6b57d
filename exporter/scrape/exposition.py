"""Exposition of the exporter's metric families, rendered once per scrape in both formats.

prometheus_client renders every sample through its UTF-8 name validation and escaping,
which is most of the exporter's CPU time at a few thousand series (bench/scrape.py). The
families here are gauges and counters with valid legacy names, so they are written directly:
the sample lines once, and the HELP/TYPE lines of the Prometheus text format and of
OpenMetrics around them. Anything else is left to prometheus_client. The output is
byte-for-byte the library's (tests/scrape/test_exposition.py checks it on every golden
fixture), and content negotiation stays the library's (``choose_encoder``).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import Metric
from prometheus_client.exposition import choose_encoder
from prometheus_client.openmetrics.exposition import generate_latest as generate_openmetrics
from prometheus_client.registry import Collector as RegistryCollector
from prometheus_client.utils import floatToGoString

_DIRECT_TYPES = {"gauge", "counter"}
_OPENMETRICS_EOF = b"# EOF\n"
# Name escapings that leave valid legacy metric and label names as they are.
_NAMES_UNCHANGED = {"", "underscores", "allow-utf-8", "values"}
# Families' header lines kept for reuse: the exporter's families are a few hundred, whatever
# the cluster.
HEADERS_KEPT = 1024


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


@dataclass(frozen=True)
class Exposition:
    """Families rendered in the Prometheus text format and as an OpenMetrics body (without
    the closing ``# EOF``, so that bodies can be concatenated). The two formats differ only in
    each family's HELP and TYPE lines: its sample lines are kept once, and a format's bytes
    are joined when a client asks for it."""

    # (text format header, OpenMetrics header, sample lines) of each family in turn; the
    # families the library renders are one part with both bodies whole and no shared lines.
    parts: tuple[tuple[bytes, bytes, bytes], ...] = ()

    @property
    def text(self) -> bytes:
        return b"".join(piece for header, _, samples in self.parts for piece in (header, samples))

    @property
    def openmetrics(self) -> bytes:
        return b"".join(piece for _, header, samples in self.parts for piece in (header, samples))

    @staticmethod
    def join(expositions: Sequence[Exposition]) -> Exposition:
        return Exposition(tuple(part for exposition in expositions for part in exposition.parts))


def _escape(value: str) -> str:
    if "\\" in value or "\n" in value or '"' in value:
        return value.replace("\\", r"\\").replace("\n", r"\n").replace('"', r"\"")
    return value


@functools.lru_cache(maxsize=HEADERS_KEPT)
def _headers(name: str, kind: str, documentation: str) -> tuple[bytes, bytes]:
    """A family's HELP and TYPE lines in the text format and in OpenMetrics: the same for
    every scrape of every target, so made once and shared."""
    text_name = name + "_total" if kind == "counter" else name
    text_help = documentation.replace("\\", r"\\").replace("\n", r"\n")
    text = f"# HELP {text_name} {text_help}\n# TYPE {text_name} {kind}\n"
    openmetrics = f"# HELP {name} {_escape(documentation)}\n# TYPE {name} {kind}\n"
    return text.encode(), openmetrics.encode()


def _samples(family: Metric) -> bytes:
    lines = []
    for sample in family.samples:
        labels = sample.labels
        if labels:
            pairs = ",".join([f'{key}="{_escape(labels[key])}"' for key in sorted(labels)])
            lines.append(f"{sample.name}{{{pairs}}} {floatToGoString(sample.value)}\n")
        else:
            lines.append(f"{sample.name} {floatToGoString(sample.value)}\n")
    return "".join(lines).encode()


def _direct(family: Metric) -> bool:
    return (
        family.type in _DIRECT_TYPES
        and not family.unit
        and all(
            sample.timestamp is None
            and sample.exemplar is None
            and sample.name.startswith(family.name)
            and not sample.name.endswith("_created")
            for sample in family.samples
        )
    )


def render(families: Sequence[Metric]) -> Exposition:
    """Both formats of these families, in their order."""
    if not all(_direct(family) for family in families):
        registry = registry_of(families)
        openmetrics = generate_openmetrics(registry)[: -len(_OPENMETRICS_EOF)]
        return Exposition(((generate_latest(registry), openmetrics, b""),))
    return Exposition(
        tuple(
            (*_headers(family.name, family.type, family.documentation), _samples(family))
            for family in families
        )
    )


def encode(exposition: Exposition, families: Sequence[Metric], accept: str) -> tuple[bytes, str]:
    """The body and content type for a request's Accept header: the pre-rendered text when
    the negotiated format is one of the two above, else the library's encoder."""
    encoder, content_type = choose_encoder(accept)
    media_type, *params = (part.strip() for part in content_type.split(";"))
    options = dict(param.partition("=")[::2] for param in params)
    if options.get("escaping", "") in _NAMES_UNCHANGED:
        if media_type == "text/plain":
            return exposition.text, content_type
        if media_type == "application/openmetrics-text" and options.get("version") == "1.0.0":
            return exposition.openmetrics + _OPENMETRICS_EOF, content_type
    return encoder(registry_of(families)), content_type
