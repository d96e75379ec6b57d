"""NDB epochs as global checkpoint ids (GCI): an epoch is a 64-bit number, the GCI in its
high 32 bits and a micro-GCP counter in the low ones."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from .base import BadValue, text


def gci(epoch: Any) -> float | None:
    """epoch >> 32, shifted as an integer (a float holds only 53 bits of an epoch); None for
    SQL NULL, BadValue for anything that is not a whole number."""
    if epoch is None or epoch == "":
        return None
    if isinstance(epoch, Decimal):
        epoch = str(epoch)
    try:
        value = epoch if isinstance(epoch, int) else int(text(epoch).strip())
    except ValueError as exc:
        raise BadValue(f"not an epoch: {text(epoch)[:40]!r}") from exc
    return float(value >> 32)
