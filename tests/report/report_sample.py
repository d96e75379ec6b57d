"""The sample report of docs/report.md, made from ndbsim with its clock held still (``--speed``
so slow that no cluster second passes) and data node 2 stopped, so that it is the same at
every run. ``make report-sample`` writes it (and docs/report.schema.json); test_sample.py
checks both are current."""

from __future__ import annotations

import re
import sys

from ndb_harness import running_ndbsim
from ndbinfo_exporter.report import schema

from tests.report.report_cli import ROOT, SCHEMA, of, run

DOC = ROOT / "docs" / "report.md"
BEGIN, END = "<!-- sample report: make report-sample -->", "<!-- end of sample report -->"
PASSWORD = "report-sample-pw"
SHOWN_TARGET = "127.0.0.1:3306"
SHOWN_TIME = "2026-01-15T09:30:00+00:00"


def sample() -> str:
    """The Markdown report and the check's output, as docs/report.md shows them."""
    with running_ndbsim(password=PASSWORD, speed=0.00001) as sim:
        sim.stop_node(2)
        report = run("report", "--format", "markdown", *of(sim), password=PASSWORD)
        check = run("check", *of(sim), password=PASSWORD)
        level = run("check", "-v", *of(sim), password=PASSWORD)
        target = f"{sim.host}:{sim.port}"
    text = report.stdout.replace(target, SHOWN_TARGET)
    text = re.sub(r"read at [0-9T:+-]+", f"read at {SHOWN_TIME}", text)
    text = re.sub(r"ndbinfo-exporter [0-9][^:]*: ", "ndbinfo-exporter VERSION: ", text, count=1)
    text = re.sub(r"^(#+) ", r"##\1 ", text, flags=re.M)  # under the page's own headings
    status = check.stdout.replace(target, SHOWN_TARGET)
    verbose = level.stdout.replace(target, SHOWN_TARGET)
    return (
        f"{BEGIN}\n\n"
        f"`ndbinfo-exporter check` (exit {check.returncode}):\n\n```\n{status}```\n\n"
        f"`ndbinfo-exporter check -v` adds the checks not judged and passed:\n\n"
        f"```\n{verbose}```\n\n"
        f"`ndbinfo-exporter report --format markdown`:\n\n{text}\n{END}"
    )


def with_sample(doc: str, section: str) -> str:
    start, end = doc.index(BEGIN), doc.index(END) + len(END)
    return doc[:start] + section + doc[end:]


def main() -> int:
    DOC.write_text(with_sample(DOC.read_text(), sample()))
    SCHEMA.write_text(schema.text())
    return 0


if __name__ == "__main__":
    sys.exit(main())
