"""NDB epochs as global checkpoint ids (GCI): an epoch is a 64-bit number, the GCI in its
high 32 bits and a micro-GCP counter in the low ones. Each half is exported on its own: a
float holds only 53 bits, so a whole epoch would lose its low bits."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from .base import BadValue, text


def _epoch(epoch: Any) -> int | None:
    """The epoch as an integer; None for SQL NULL, BadValue for anything that is not a whole
    number."""
    if epoch is None or epoch == "":
        return None
    if isinstance(epoch, Decimal):
        epoch = str(epoch)
    try:
        return epoch if isinstance(epoch, int) else int(text(epoch).strip())
    except ValueError as exc:
        raise BadValue(f"not an epoch: {text(epoch)[:40]!r}") from exc


def gci(epoch: Any) -> float | None:
    """epoch >> 32, shifted as an integer."""
    value = _epoch(epoch)
    return None if value is None else float(value >> 32)


def micro_gcp(epoch: Any) -> float | None:
    """The low 32 bits: the micro GCP counter within the epoch's GCI."""
    value = _epoch(epoch)
    return None if value is None else float(value & 0xFFFFFFFF)
