"""What a check declares once, like a collector: its name, its usual severity, how to verify
it by hand, and the function that evaluates it."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ndbinfo_exporter.health.findings.inputs import Inputs
from ndbinfo_exporter.health.models import Evidence, Finding


@dataclass(frozen=True)
class Check:
    """A check's name, its usual severity and how to verify it by hand (PromQL, SQL, the
    tuning guide's section, the advice); ``evaluate`` turns one scrape's inputs into a
    finding, built with ``finding`` or ``no_data``."""

    id: str
    title: str
    severity: str  # "critical", "warning" or "info"
    promql: str
    sql: str
    guide: str
    advice: str
    evaluate: Callable[[Check, Inputs], Finding]
    # Its family (availability, storage, network, ...): what ``check --only FAMILY`` selects.
    family: str
    # The collectors whose samples it reads: a run that selects it reads these.
    reads: tuple[str, ...]
    # Its evidence is a rate or a change between two scrapes: from one read it measures
    # since the SQL node started, or misses what changed.
    needs_history: bool = False

    def __call__(self, inputs: Inputs) -> Finding:
        return self.evaluate(self, inputs)

    def finding(
        self,
        status: str,
        summary: str,
        evidence: Sequence[Evidence] = (),
        severity: str | None = None,
    ) -> Finding:
        return Finding(
            id=self.id,
            title=self.title,
            status=status,
            severity=severity or self.severity,
            summary=summary,
            evidence=list(evidence),
            promql=self.promql,
            sql=self.sql,
            guide=self.guide,
            advice=self.advice,
        )

    def no_data(self, collector: str) -> Finding:
        """Unknown: the collector the check reads gave no data (off, skipped or failed)."""
        return self.finding("unknown", f"The {collector} collector gave no data.")
