"""ndbsim and the exporter as real processes, and how Chromium is launched, for the view's tests."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass

from ndb_harness import Ndbsim, running_exporter, running_ndbsim

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@dataclass
class Stack:
    sim: Ndbsim  # port, control_url, stop_node(), start_node(), fault(), reset()
    url: str  # the exporter, http://127.0.0.1:port


@contextlib.contextmanager
def running_stack(*ndbsim_args: str, exporter_args: tuple[str, ...] = ()) -> Iterator[Stack]:
    with (
        running_ndbsim(*ndbsim_args) as sim,
        running_exporter(exporter_args, mysqld=sim.account()) as exporter,
    ):
        yield Stack(sim, exporter.url)
