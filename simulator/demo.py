"""``make demo``: ndbsim and the exporter pointed at it, until Ctrl-C.

Options the demo does not know are handed to ndbsim (``--data-nodes 8 --tables 2000``).
Both processes listen on free ports of 127.0.0.1 unless told otherwise, so the demo never
collides with a running MySQL server or exporter; their logs go to files in a temporary
directory that the demo names.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import httpx

HOST = "127.0.0.1"
SIM_USER = "ndbsim"
SIM_PASSWORD = "ndbsim"
START_TIMEOUT = 120.0  # ndbsim builds its dictionary first: seconds for thousands of tables
NDBSIM_READY = re.compile(r"ndbsim ready: mysql=\S+:(\d+) control=(\S+)")


class DemoError(Exception):
    """The demo cannot go on; the message is one line, ``status`` the exit status."""

    def __init__(self, message: str, status: int = 1):
        super().__init__(message)
        self.status = status


@dataclass
class Process:
    name: str
    popen: subprocess.Popen[bytes]
    log: Path

    def last_line(self) -> str:
        lines = [line.strip() for line in self.log.read_text(errors="replace").splitlines()]
        lines = [line for line in lines if line]
        return lines[-1] if lines else f"exited with status {self.popen.returncode}"

    def check(self) -> None:
        """DemoError when the process has exited; a configuration error (status 2) stays 2."""
        status = self.popen.poll()
        if status is not None:
            line = self.last_line()
            message = line if line.startswith(self.name) else f"{self.name}: {line}"
            raise DemoError(message, 2 if status == 2 else 1)

    def stop(self) -> None:
        """SIGTERM, then SIGKILL if it has not gone within ten seconds."""
        if self.popen.poll() is None:
            self.popen.terminate()
            try:
                self.popen.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait()


@contextlib.contextmanager
def started(
    name: str, argv: Sequence[str], logs: Path, env: dict[str, str] | None = None
) -> Iterator[Process]:
    log = logs / f"{name}.log"
    with log.open("wb") as out:
        popen = subprocess.Popen(
            list(argv),
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            env={**os.environ, **(env or {})},
            start_new_session=True,  # Ctrl-C reaches the demo only, which stops the children
        )
    process = Process(name, popen, log)
    try:
        yield process
    finally:
        process.stop()


def wait_for(process: Process, ready: Callable[[], Any], what: str) -> Any:
    """Poll ``ready`` until it returns something true; DemoError if the process exits first."""
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        process.check()
        found = ready()
        if found:
            return found
        time.sleep(0.2)
    raise DemoError(
        f"{process.name} did not {what} within {START_TIMEOUT:.0f} s (see {process.log})"
    )


@dataclass(frozen=True)
class Ndbsim:
    """A running ndbsim and its control API."""

    process: Process
    port: int
    control_url: str

    def _control(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        answer = httpx.request(method, self.control_url + path, json=body, timeout=30)
        answer.raise_for_status()
        return answer.json()

    def stop_node(self, node_id: int) -> Any:
        return self._control("POST", f"/nodes/{node_id}/stop")

    def start_node(self, node_id: int) -> Any:
        return self._control("POST", f"/nodes/{node_id}/start")

    def fault(self, name: str, **params: Any) -> Any:
        return self._control("PUT", f"/faults/{name}", params or None)

    def reset(self) -> Any:
        return self._control("POST", "/reset")


@contextlib.contextmanager
def running_ndbsim(
    *args: str, port: int = 0, control_port: int = 0, logs: Path | None = None
) -> Iterator[Ndbsim]:
    """ndbsim with ``args``; port 0 lets it pick free ports, read back from its ready line."""
    with contextlib.ExitStack() as stack:
        logs = logs or Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="ndbsim-")))
        argv = [sys.executable, "-m", "ndbsim", "--host", HOST, "--port", str(port)]
        argv += ["--control-port", str(control_port), *args]
        process = stack.enter_context(started("ndbsim", argv, logs))

        def ready() -> re.Match[str] | None:
            return NDBSIM_READY.search(process.log.read_text(errors="replace"))

        match = wait_for(process, ready, "start")
        yield Ndbsim(process, int(match.group(1)), match.group(2).rstrip("/"))


@dataclass(frozen=True)
class Exporter:
    process: Process
    url: str  # http://host:port, no trailing slash


def _listen_address(log: Path) -> str | None:
    for line in log.read_text(errors="replace").splitlines():
        with contextlib.suppress(ValueError):
            record = json.loads(line)
            if isinstance(record, dict) and record.get("msg") == "starting ndbinfo-exporter":
                return record["address"]
    return None


def _healthy(url: str) -> bool:
    try:
        return httpx.get(f"{url}/healthz", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


@contextlib.contextmanager
def running_exporter(
    sql_port: int, *args: str, port: int = 0, logs: Path | None = None
) -> Iterator[Exporter]:
    """The exporter scraping ndbsim on ``sql_port`` with ndbsim's default account."""
    with contextlib.ExitStack() as stack:
        logs = logs or Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="exporter-")))
        argv = [sys.executable, "-m", "ndbinfo_exporter.cli", "--log.format", "json"]
        argv += ["--web.listen-address", f"{HOST}:{port}", "--mysqld.address", f"{HOST}:{sql_port}"]
        argv += ["--mysqld.username", SIM_USER, *args]
        env = {"NDB_EXPORTER_PASSWORD": SIM_PASSWORD}
        process = stack.enter_context(started("ndbinfo-exporter", argv, logs, env))
        address = wait_for(process, lambda: _listen_address(process.log), "start")
        url = f"http://{address}"
        wait_for(process, lambda: _healthy(url), "answer /healthz")
        yield Exporter(process, url)


def ndbsim_command() -> str:
    """How to call the ndbsim CLI from the demo's shell: `make demo` does not put the
    virtualenv on PATH."""
    script = Path(sys.executable).with_name("ndbsim")
    if not script.exists() or shutil.which("ndbsim") == str(script):
        return "ndbsim"
    return os.path.relpath(script)


def banner(sim: Ndbsim, exporter: Exporter, logs: Path) -> str:
    fault = f"{ndbsim_command()} fault --control-url {sim.control_url}"
    return "\n".join(
        [
            "",
            f"  Cluster view    {exporter.url}/",
            f"  Metrics         {exporter.url}/metrics",
            f"  JSON API        {exporter.url}/docs",
            f"  ndbsim (MySQL)  mysql -h {HOST} -P {sim.port} -u {SIM_USER} -p{SIM_PASSWORD}",
            f"  ndbsim control  {sim.control_url}",
            f"  Logs            {logs}",
            "",
            f"  Stop a data node:  {fault} stop-node 2",
            f"  and start it:      {fault} start-node 2",
            "",
            "  Ctrl-C stops both.",
            "",
        ]
    )


def _fail(message: str) -> NoReturn:
    print(f"demo: {message}", file=sys.stderr)
    raise SystemExit(2)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m ndbsim.demo",
        description="Start ndbsim and the exporter pointed at it; Ctrl-C stops both. "
        "Options not listed here go to ndbsim (see `ndbsim --help`).",
        allow_abbrev=False,
    )
    for name, what in (
        ("exporter", "the exporter's"),
        ("sql", "ndbsim's MySQL"),
        ("control", "ndbsim's control"),
    ):
        parser.add_argument(
            f"--{name}-port", type=int, default=0, help=f"{what} port (default: a free one)"
        )
    parser.error = _fail  # type: ignore[method-assign]
    return parser


def _interrupt(signum: int, frame: object) -> NoReturn:
    raise KeyboardInterrupt


def main(argv: Sequence[str] | None = None) -> int:
    options, ndbsim_args = _parser().parse_known_args(argv)
    for port in (options.exporter_port, options.sql_port, options.control_port):
        if not 0 <= port <= 65535:
            _fail(f"port {port} is not in 0..65535")
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, _interrupt)
    logs = Path(tempfile.mkdtemp(prefix="ndbinfo-demo-"))
    try:
        with (
            running_ndbsim(
                *ndbsim_args, port=options.sql_port, control_port=options.control_port, logs=logs
            ) as sim,
            running_exporter(sim.port, port=options.exporter_port, logs=logs) as exporter,
        ):
            print(banner(sim, exporter, logs), flush=True)
            while True:
                sim.process.check()
                exporter.process.check()
                time.sleep(0.5)
    except KeyboardInterrupt:
        shutil.rmtree(logs, ignore_errors=True)
        print("stopped ndbsim and the exporter", flush=True)
        return 0
    except DemoError as exc:
        print(f"demo: {exc}", file=sys.stderr)
        if exc.status == 2:
            shutil.rmtree(logs, ignore_errors=True)
        return exc.status


if __name__ == "__main__":
    sys.exit(main())
