"""Polling a condition in tests that assert on what it last returned."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any


def poll(check: Callable[[], Any], timeout: float = 10.0, interval: float = 0.2) -> Any:
    """``check()`` until it returns something truthy or ``timeout`` seconds pass; its last
    result either way, for the caller's assertion to show."""
    deadline = time.monotonic() + timeout
    while True:
        result = check()
        if result or time.monotonic() > deadline:
            return result
        time.sleep(interval)
