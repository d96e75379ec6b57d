"""Reading the Markdown tables of the docs that tests hold equal to the code."""

from __future__ import annotations


def table_rows(text: str) -> list[list[str]]:
    """The cells, stripped, of every table row of `text` (a line starting with `|`), the
    header and separator rows included."""
    return [
        [cell.strip() for cell in line.strip().strip("|").split("|")]
        for line in text.splitlines()
        if line.strip().startswith("|")
    ]
