"""The evaluation shared by the checks on a used/total ratio per data node or tablespace."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ndbinfo_exporter.health.findings.check import Check
from ndbinfo_exporter.health.findings.inputs import Inputs
from ndbinfo_exporter.health.findings.wording import joined, percent
from ndbinfo_exporter.health.models import Evidence, Finding


@dataclass(frozen=True)
class Fullest:
    """Every ratio is evidence, the fullest one decides (warning above the first of ``limits``,
    critical above the second); the summary names every node above the first (``problem``
    holds the sentence for one node and for several)."""

    ratios: Callable[[Inputs], dict[int, float] | dict[str, float]]
    collector: str
    label: str
    ok: str
    problem: tuple[str, str]
    limits: tuple[float, float]

    def __call__(self, check: Check, inputs: Inputs) -> Finding:
        ratios = self.ratios(inputs)
        if not ratios:
            return check.no_data(self.collector)
        evidence = [
            Evidence(label=self.label.format(node=node), value=percent(value))
            for node, value in sorted(ratios.items())
        ]
        worst = max(ratios.values())
        warning, critical = self.limits
        if worst <= warning:
            return check.finding("ok", self.ok.format(worst=percent(worst)), evidence)
        over = sorted(node for node, value in ratios.items() if value > warning)
        sentence = self.problem[0] if len(over) == 1 else self.problem[1]
        return check.finding(
            "problem",
            sentence.format(nodes=joined(over), worst=percent(worst)),
            evidence,
            severity="critical" if worst > critical else "warning",
        )
