"""The exporter account of the README ("The MySQL user"), read from the README itself, so
that the statements a reader copies are the ones the privilege tests run."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"
_TO = re.compile(r" TO \S+$")


def readme_statements() -> list[str]:
    """The statements of the SQL block under "The MySQL user", comments dropped."""
    text = README.read_text()
    section = text[text.index("### The MySQL user") :]
    start = section.index("```sql") + len("```sql")
    block = section[start : section.index("```", start)]
    lines = (line.split("--", 1)[0].strip() for line in block.splitlines())
    return [line.rstrip(";") for line in lines if line]


def readme_grants(account: str | None = None) -> list[str]:
    """The README's GRANT statements, to `account` ('user'@'host') instead of the README's
    when given."""
    grants = [s for s in readme_statements() if s.upper().startswith("GRANT ")]
    return grants if account is None else [_TO.sub(f" TO {account}", g) for g in grants]
