"""ndbinfo-exporter as a real process, on a free port unless told otherwise: its address is
read from its start-up log line (the socket listens before that line is written)."""

from __future__ import annotations

import contextlib
import re
import sys
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ndb_harness.ports import HOST
from ndb_harness.process import Process, started
from ndb_harness.simulator import MysqlAccount

START_SECONDS = 60.0
_ADDRESS = re.compile(r'msg="starting ndbinfo-exporter" .*address=(\S+)')


@dataclass
class Exporter:
    process: Process
    address: str  # host:port

    @property
    def url(self) -> str:
        """http://host:port, no trailing slash."""
        return f"http://{self.address}"

    @property
    def lines(self) -> deque[str]:
        return self.process.lines

    @property
    def log(self) -> str:
        return self.process.log

    def stop(self) -> int:
        """Stop the exporter before the end of the ``with`` block."""
        return self.process.stop()


def _address(process: Process) -> str | None:
    for line in list(process.lines):
        if match := _ADDRESS.search(line):
            return match[1]
    return None


@contextlib.contextmanager
def running_exporter(
    args: Sequence[str] = (),
    env: dict[str, str] | None = None,
    *,
    mysqld: MysqlAccount | None = None,
    port: int = 0,
    name: str = "ndbinfo-exporter",
    log_dir: Path | None = None,
    python: str = sys.executable,
    preexec_fn: Callable[[], Any] | None = None,
    timeout: float = START_SECONDS,
) -> Iterator[Exporter]:
    """The exporter with these command-line arguments, listening on ``port`` of 127.0.0.1;
    ``mysqld`` adds the SQL node's address, user and password (in the environment), ``env`` is
    added to this process's environment, ``python`` is the interpreter of the install to run,
    ``name`` names the process and its log file in ``log_dir``."""
    argv = [python, "-m", "ndbinfo_exporter.cli", f"--web.listen-address={HOST}:{port}"]
    env = dict(env or {})
    if mysqld is not None:
        argv += [f"--mysqld.address={mysqld.address}", f"--mysqld.username={mysqld.user}"]
        env["NDB_EXPORTER_PASSWORD"] = mysqld.password
    with started(name, [*argv, *args], env, log_dir, preexec_fn) as process:
        address = process.wait_until(lambda: _address(process), "start", timeout)
        yield Exporter(process, address)
