"""One handle per started process: its output kept (and written to a log file when asked), a
single ready check that fails as soon as the process exits, and a stop that always ends it."""

from __future__ import annotations

import contextlib
import os
import subprocess
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, TypeVar

KEPT_LINES = 10_000  # the last lines of output kept in memory (a demo runs for hours)
STOP_SECONDS = 10.0

T = TypeVar("T")


class HarnessError(RuntimeError):
    """A process did not start or exited; the message is one line, ``status`` the exit status
    to pass on (2: the process refused its configuration)."""

    def __init__(self, message: str, status: int = 1):
        super().__init__(message)
        self.status = status


@dataclass
class Process:
    """A running program: ``lines`` holds its output (stdout and stderr together)."""

    name: str
    popen: subprocess.Popen[str]
    log_file: Path | None = None
    lines: deque[str] = field(default_factory=lambda: deque(maxlen=KEPT_LINES))
    reader: threading.Thread | None = None  # takes the output as it comes

    @property
    def pid(self) -> int:
        return self.popen.pid

    @property
    def log(self) -> str:
        return "\n".join(self.lines)

    def last_line(self) -> str:
        for line in reversed(self.lines):
            if line.strip():
                return line.strip()
        return f"exited with status {self.popen.returncode}"

    def check(self) -> None:
        """HarnessError when the process has exited; a configuration error (2) stays 2."""
        status = self.popen.poll()
        if status is not None:
            if self.reader is not None:
                self.reader.join(1)  # the output's last lines, which say why
            line = self.last_line()
            message = line if line.startswith(self.name) else f"{self.name}: {line}"
            raise HarnessError(message, 2 if status == 2 else 1)

    def wait_until(
        self, ready: Callable[[], T | None], what: str, timeout: float, interval: float = 0.1
    ) -> T:
        """Poll ``ready`` until it returns something true and return it; HarnessError when the
        process exits first or ``timeout`` seconds pass."""
        deadline = time.monotonic() + timeout
        while True:
            self.check()
            found = ready()
            if found:
                return found
            if time.monotonic() > deadline:
                where = f" (see {self.log_file})" if self.log_file else f": {self.last_line()}"
                raise HarnessError(f"{self.name} did not {what} within {timeout:.0f} s{where}")
            time.sleep(interval)

    def stop(self) -> int:
        """SIGTERM, then SIGKILL if it has not gone within ten seconds; its exit status."""
        if self.popen.poll() is None:
            self.popen.terminate()
            try:
                return self.popen.wait(timeout=STOP_SECONDS)
            except subprocess.TimeoutExpired:
                self.popen.kill()
        return self.popen.wait()


def _keep(stream: IO[str], process: Process, sink: IO[str] | None) -> None:
    for line in iter(stream.readline, ""):
        process.lines.append(line.rstrip("\n"))
        if sink is not None:
            sink.write(line)
            sink.flush()
    if sink is not None:
        sink.close()


@contextlib.contextmanager
def started(
    name: str,
    argv: Sequence[str],
    env: dict[str, str] | None = None,
    log_dir: Path | None = None,
    preexec_fn: Callable[[], Any] | None = None,
) -> Iterator[Process]:
    """``argv`` running until the block ends; ``env`` is added to this process's environment,
    the output also goes to ``log_dir/name.log`` when ``log_dir`` is given, ``preexec_fn`` runs
    in the child before the program (to lower a resource limit, say)."""
    popen = subprocess.Popen(
        list(argv),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        errors="replace",
        env={**os.environ, **(env or {})},
        preexec_fn=preexec_fn,
        start_new_session=True,  # Ctrl-C reaches the caller only, which stops the children
    )
    log_file = log_dir / f"{name}.log" if log_dir is not None else None
    process = Process(name, popen, log_file)
    sink = log_file.open("w") if log_file is not None else None
    process.reader = threading.Thread(target=_keep, args=(popen.stdout, process, sink), daemon=True)
    process.reader.start()
    try:
        yield process
    finally:
        process.stop()
        process.reader.join(5)
