"""Start a real ``ndbinfo-exporter`` process for tests and benchmarks: it listens on a free
port (``127.0.0.1:0``), its address is read from its start-up log line, its log lines are
kept, and it is stopped on exit.

    with running_exporter(["--mysqld.address=127.0.0.1:3306"], env) as exporter:
        httpx.get(f"http://{exporter.address}/metrics")
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

_ADDRESS = re.compile(r'msg="starting ndbinfo-exporter" .*address=(\S+)')


@dataclass
class RunningExporter:
    process: subprocess.Popen
    address: str = ""
    lines: list[str] = field(default_factory=list)

    @property
    def log(self) -> str:
        return "\n".join(self.lines)

    def stop(self) -> None:
        """Stop the exporter before the end of the ``with`` block."""
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(10)


@contextmanager
def running_exporter(
    args: Sequence[str],
    env: dict[str, str] | None = None,
    timeout: float = 30,
    python: str = sys.executable,
    preexec_fn: Callable[[], None] | None = None,
) -> Iterator[RunningExporter]:
    """The exporter with these command-line arguments, on a free 127.0.0.1 port; ``env`` is
    added to this process's environment, ``python`` is the interpreter of the install to run,
    ``preexec_fn`` runs in the child before it starts (to lower a resource limit, say)."""
    process = subprocess.Popen(
        [python, "-m", "ndbinfo_exporter.cli", "--web.listen-address=127.0.0.1:0", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **(env or {})},
        preexec_fn=preexec_fn,
    )
    exporter = RunningExporter(process)
    started = threading.Event()

    def read() -> None:
        for line in process.stderr:
            exporter.lines.append(line.rstrip("\n"))
            match = _ADDRESS.search(line)
            if match:
                exporter.address = match[1]
                started.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        deadline = time.monotonic() + timeout
        while not started.wait(0.05):
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"exporter did not start:\n{exporter.log}")
        yield exporter
    finally:
        exporter.stop()
        reader.join(5)
