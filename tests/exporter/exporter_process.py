"""Start ``ndbinfo-exporter`` as a subprocess on a free port and collect its log lines."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

_ADDRESS = re.compile(r'msg="starting ndbinfo-exporter" .*address=(\S+)')


@dataclass
class ExporterProcess:
    process: subprocess.Popen
    address: str = ""
    lines: list[str] = field(default_factory=list)

    @property
    def log(self) -> str:
        return "\n".join(self.lines)


@contextmanager
def running_exporter(
    args: Sequence[str], env: dict[str, str] | None = None, timeout: float = 30
) -> Iterator[ExporterProcess]:
    process = subprocess.Popen(
        [sys.executable, "-m", "ndbinfo_exporter.cli", "--web.listen-address=127.0.0.1:0", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **(env or {})},
    )
    exporter = ExporterProcess(process)
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
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)
        reader.join(5)
