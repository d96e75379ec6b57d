"""``make demo``: ndbsim, the exporter pointed at it, and Prometheus with the project's alert
rules and Alertmanager when their programs are installed, until Ctrl-C.

Options the demo does not know are handed to ndbsim (``--data-nodes 8 --tables 2000``).
Every process listens on a free port of 127.0.0.1 unless told otherwise, so the demo never
collides with a running MySQL server, exporter or Prometheus; their logs go to files in a
temporary directory that the demo names. The exporter's cluster view shows the alerts
Prometheus has pending or firing (``--view.alerts-url``).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import httpx
import yaml

HOST = "127.0.0.1"
SIM_USER = "ndbsim"
SIM_PASSWORD = "ndbsim"
START_TIMEOUT = 120.0  # ndbsim builds its dictionary first: seconds for thousands of tables
CLUSTER = "demo"
REPLICA_CLUSTER = "dr"  # the replica cluster of --replica
PROVISIONING = Path(__file__).resolve().parents[1] / "provisioning"  # in a source checkout
PROMETHEUS = ("prometheus",)
ALERTMANAGER = ("prometheus-alertmanager", "alertmanager")  # Debian's name, upstream's name
NDBSIM_READY = re.compile(
    r"ndbsim ready: mysql=\S+:(\d+) control=(\S+)(?: replica=\S+:(\d+))?(?: mgm=\S+:(\d+))?"
)


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
    replica_port: int | None = None  # ndbsim --replica: the replica cluster's SQL node
    mgm_port: int | None = None  # its management server

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
        argv += ["--control-port", str(control_port), "--mgm-port", "0", *args]
        process = stack.enter_context(started("ndbsim", argv, logs))

        def ready() -> re.Match[str] | None:
            return NDBSIM_READY.search(process.log.read_text(errors="replace"))

        match = wait_for(process, ready, "start")
        replica = int(match.group(3)) if match.group(3) else None
        mgm = int(match.group(4)) if match.group(4) else None
        yield Ndbsim(process, int(match.group(1)), match.group(2).rstrip("/"), replica, mgm)


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


# A demo cluster is small: the per-phase restart times (off by default for the series they
# add per data node) fill the data-node dashboard's restart table after a fault.
DEMO_FLAGS = ("--collector.restart_info.phases=true",)


@contextlib.contextmanager
def running_exporter(
    sql_port: int,
    *args: str,
    port: int = 0,
    logs: Path | None = None,
    name: str = "ndbinfo-exporter",
) -> Iterator[Exporter]:
    """The exporter scraping ndbsim on ``sql_port`` with ndbsim's default account (``name``:
    of its process and log)."""
    with contextlib.ExitStack() as stack:
        logs = logs or Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="exporter-")))
        argv = [sys.executable, "-m", "ndbinfo_exporter.cli", "--log.format", "json"]
        argv += ["--web.listen-address", f"{HOST}:{port}", "--mysqld.address", f"{HOST}:{sql_port}"]
        argv += ["--mysqld.username", SIM_USER, *args]
        env = {"NDB_EXPORTER_PASSWORD": SIM_PASSWORD}
        process = stack.enter_context(started(name, argv, logs, env))
        address = wait_for(process, lambda: _listen_address(process.log), "start")
        url = f"http://{address}"
        wait_for(process, lambda: _healthy(url), "answer /healthz")
        yield Exporter(process, url)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


def _ready(url: str) -> bool:
    try:
        return httpx.get(url, timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


@dataclass(frozen=True)
class Monitoring:
    """Prometheus (with the project's rules) and Alertmanager, as far as they are installed."""

    prometheus_url: str | None
    alertmanager_url: str | None
    left_out: list[str]  # one line each: what is not running and why
    processes: list[Process]


def find_program(names: Sequence[str]) -> str | None:
    for name in names:
        if path := shutil.which(name):
            return path
    return None


def _alertmanager_config(logs: Path) -> Path:
    """The project's routing and inhibitions, with receivers that notify nobody."""
    config = yaml.safe_load((PROVISIONING / "alertmanager" / "alertmanager.yml").read_text())
    config["receivers"] = [{"name": r["name"]} for r in config["receivers"]]
    path = logs / "alertmanager.yml"
    path.write_text(yaml.safe_dump(config))
    return path


def _labels(cluster: str) -> dict[str, str]:
    """The target labels of a cluster's exporter; the replica names its source cluster."""
    if cluster == CLUSTER:
        return {"cluster": cluster, "instance": "ndbsim"}
    return {"cluster": cluster, "source_cluster": CLUSTER, "instance": f"ndbsim-{cluster}"}


def _prometheus_config(
    logs: Path, exporters: dict[str, str], alertmanager: str | None, every: float
) -> Path:
    """Prometheus scraping each exporter (cluster label -> exporter URL)."""
    interval = f"{every:g}s"
    config: dict[str, Any] = {
        "global": {
            "scrape_interval": interval,
            "scrape_timeout": interval,
            "evaluation_interval": interval,
        },
        "rule_files": [str(PROVISIONING / "prometheus" / "rules" / "*.yml")],
        "scrape_configs": [
            {
                "job_name": "ndb",
                "static_configs": [
                    {
                        "targets": [url.removeprefix("http://")],
                        "labels": _labels(cluster),
                    }
                    for cluster, url in exporters.items()
                ],
            }
        ],
    }
    if alertmanager:
        targets = [alertmanager.removeprefix("http://")]
        config["alerting"] = {"alertmanagers": [{"static_configs": [{"targets": targets}]}]}
    path = logs / "prometheus.yml"
    path.write_text(yaml.safe_dump(config))
    return path


@dataclass(frozen=True)
class MonitoringPlan:
    """Which of Prometheus and Alertmanager the demo can start; Prometheus' URL is known
    before the exporter starts, for its --view.alerts-url."""

    prometheus: str | None  # program
    alertmanager: str | None
    prometheus_url: str | None
    left_out: list[str]  # one line each: what does not run and why


def plan_monitoring(prometheus_port: int) -> MonitoringPlan:
    prometheus, alertmanager = find_program(PROMETHEUS), find_program(ALERTMANAGER)
    left_out = []
    if not (PROVISIONING / "prometheus" / "rules").is_dir():
        left_out.append(f"Prometheus and Alertmanager: no alert rules under {PROVISIONING}")
        prometheus = alertmanager = None
    else:
        if prometheus is None:
            left_out.append(
                "Prometheus: not installed (apt-get install prometheus); no alerts in the view"
            )
        if alertmanager is None:
            left_out.append("Alertmanager: not installed (apt-get install prometheus-alertmanager)")
    url = f"http://{HOST}:{prometheus_port}" if prometheus else None
    return MonitoringPlan(prometheus, alertmanager, url, left_out)


def start_monitoring(
    stack: contextlib.ExitStack,
    plan: MonitoringPlan,
    logs: Path,
    exporters: dict[str, str],
    every: float,
) -> Monitoring:
    """Alertmanager, then Prometheus scraping the exporter and sending it its alerts."""
    am_url, processes = None, []
    if plan.alertmanager is not None:
        am_url = f"http://{HOST}:{free_port()}"
        argv = [
            plan.alertmanager,
            f"--config.file={_alertmanager_config(logs)}",
            f"--storage.path={logs / 'alertmanager-data'}",
            f"--web.listen-address={am_url.removeprefix('http://')}",
            "--cluster.listen-address=",  # no gossip port: a single Alertmanager
            "--log.level=warn",
        ]
        process = stack.enter_context(started("alertmanager", argv, logs))
        wait_for(process, lambda: _ready(f"{am_url}/-/ready"), "become ready")
        processes.append(process)
    if plan.prometheus is not None and plan.prometheus_url is not None:
        url = plan.prometheus_url
        argv = [
            plan.prometheus,
            f"--config.file={_prometheus_config(logs, exporters, am_url, every)}",
            f"--storage.tsdb.path={logs / 'prometheus-data'}",
            f"--web.listen-address={url.removeprefix('http://')}",
            "--log.level=warn",
        ]
        process = stack.enter_context(started("prometheus", argv, logs))
        wait_for(process, lambda: _ready(f"{url}/-/ready"), "become ready")
        processes.append(process)
    return Monitoring(plan.prometheus_url, am_url, plan.left_out, processes)


def ndbsim_command() -> str:
    """How to call the ndbsim CLI from the demo's shell: `make demo` does not put the
    virtualenv on PATH."""
    script = Path(sys.executable).with_name("ndbsim")
    if not script.exists() or shutil.which("ndbsim") == str(script):
        return "ndbsim"
    return os.path.relpath(script)


# Every `ndbsim fault` command (simulator/cli.py), with an example and what it shows.
# tests/ui/test_view_demo.py checks that none is missing.
FAULT_EXAMPLES: tuple[tuple[str, str], ...] = (
    ("stop-node 2", "data node 2 stops: NdbDataNodeDown, dead replicas"),
    ("start-node 2", "and starts again"),
    ("lcp-stall", "LCPs stop: NdbLcpStalled after 300 GCIs (10 min; with --speed 10, 1 min)"),
    ("data-memory 0.97", "DataMemory 97 % full: NdbDataMemoryCritical"),
    ("redo-log 0.95", "REDO log 95 % full: NdbRedoLogSpaceCritical"),
    ("arbitrator-lost", "no arbitrator: NdbNoArbitrator"),
    ("send-overload 1", "node 1's send buffers overloaded: NdbTransporterOverloaded"),
    (
        "stuck-start 2",
        "node 2's next start hangs in a start phase: NdbRestartPhaseStuck, NdbDataNodeNotStarted",
    ),
    ("primaries-away 1", "primaries leave node 1: NdbPrimariesNotOnPreferredNode"),
    ("long-transaction --node 2", "an idle transaction holds locks: NdbLongRunningTransaction"),
    ("lock-contention", "lock requests queue on a hot row: NdbLockWaits"),
    ("latency-degradation", "key operations 20x slower: NdbOperationLatencyHigh"),
    ("operation-errors", "one operation fails per five that succeed: NdbOperationErrorsHigh"),
    ("transaction-aborts", "one transaction in five aborts: NdbTransactionAbortsHigh"),
    ("slow-disk", "disk data page I/O 20x slower (PGMAN latency)"),
    ("send-buffer-pressure 3", "node 3's send buffer memory fills: NdbSendBufferHigh"),
    ("tablespace-full 0.95", "the tablespace 95 % used: NdbTablespaceFull"),
    (
        "certificate-expiring 2",
        "TLS certificates expire in 2 days (NDB 8.3+): NdbTlsCertificateExpiring",
    ),
    ("metadata-excluded 3", "3 tables excluded from metadata sync"),
    ("disk-page-buffer-misses", "80 % disk page hits: NdbDiskPageBufferHitRatioLow"),
    ("gcp-stall", "the global checkpoint stops: NdbGlobalCheckpointStalled"),
    ("resource-pool 0.95", "TRANSACTION_MEMORY 95 % of a limit: NdbResourcePoolHigh"),
    ("buffer-full redo 0.9", "REDO log buffers 90 % used: NdbRedoBufferHigh"),
    (
        "data-memory-growth 0.1 --share 0.55",
        "DataMemory rises from 55 % by 10 % a cluster hour: NdbDataMemoryExhaustionPredicted",
    ),
    ("redo-log-growth 0.2", "the REDO log's troughs rise: NdbRedoLogExhaustionPredicted"),
    ("undo-log-growth 0.2", "the undo log's troughs rise: NdbUndoLogExhaustionPredicted"),
    ("tablespace-growth 0.1", "the tablespace fills up: NdbTablespaceExhaustionPredicted"),
    ("backups-stopped", "no more scheduled backups: NdbBackupTooOld after 26 hours"),
    ("start-backup", "START BACKUP now: BackupStarted, BackupCompleted in the cluster log"),
    ("backup-abort", "backups abort (error 1325): NdbBackupFailed"),
    ("backup-start-failure", "backups fail to start (error 1342): NdbBackupFailed"),
    ("mgm-down", "the management server stops answering: NdbMgmdUnreachable"),
    ("drop-listeners", "the management server drops the exporter's subscription once"),
    ("old-version 2", "node 2 on the previous NDB release: NdbVersionSkew after 2 hours"),
    (
        "old-config-generation 2",
        "node 2 on the previous configuration: NdbConfigGenerationSkew after 2 hours",
    ),
    ("replica-sql-error", "with --replica: the replica's SQL thread stops: NdbReplicationStopped"),
    ("replica-io-disconnect", "with --replica: the replica's I/O thread reconnects (2003)"),
    ("replica-behind", "with --replica: 900 s behind the source: NdbReplicationLagHigh"),
    ("injector-behind --gap", "with --replica: binlog gap, the replica stops: NdbBinlogGap"),
    ("conflicts", "with --replica: NDB$EPOCH2 conflicts: NdbReplicationConflicts"),
    ("subscriber-lag", "with --replica: event buffer 200 epochs late: NdbSubscriberEpochLagHigh"),
    ("slow-ndbinfo 15", "ndbinfo answers late: collectors time out, NdbExporterCollectorFailing"),
    ("refuse-connections", "new MySQL connections refused"),
    ("drop-connections", "connections dropped: NdbSqlNodeUnreachable"),
    ("clear lcp-stall", "clear one fault"),
    ("list", "active faults"),
    ("status", "cluster status (--cluster replica: the replica's)"),
    ("replication", "with --replica: the link's epochs and threads"),
    ("reset", "all nodes started, no faults"),
)


def banner(sim: Ndbsim, exporter: Exporter, logs: Path, monitoring: Monitoring) -> str:
    fault = f"{ndbsim_command()} fault --control-url {sim.control_url}"
    width = max(len(example) for example, _ in FAULT_EXAMPLES)
    lines = [
        "",
        f"  Cluster view    {exporter.url}/",
        f"  Metrics         {exporter.url}/metrics",
        f"  JSON API        {exporter.url}/docs",
    ]
    if monitoring.prometheus_url:
        lines.append(f"  Prometheus      {monitoring.prometheus_url}/alerts")
    if monitoring.alertmanager_url:
        lines.append(f"  Alertmanager    {monitoring.alertmanager_url}/")
    lines += [
        f"  ndbsim (MySQL)  mysql -h {HOST} -P {sim.port} -u {SIM_USER} -p{SIM_PASSWORD}",
        f"  ndbsim control  {sim.control_url}",
        *(
            [
                f"  replica (MySQL) mysql -h {HOST} -P {sim.replica_port} -u {SIM_USER} -p{SIM_PASSWORD}"
            ]
            if sim.replica_port
            else []
        ),
        f"  Logs            {logs}",
        "",
        f"  Faults: {fault} COMMAND",
        *(f"    {example:<{width}}  {what}" for example, what in FAULT_EXAMPLES),
        "  Alerts show as pending in the view at once and fire after their `for` time.",
        "  Slow faults (lcp-stall) go faster with a quicker cluster clock:",
        '  make demo DEMO_ARGS="--speed 10"',
    ]
    if monitoring.left_out:
        lines += ["", *(f"  Not started: {line}" for line in monitoring.left_out)]
    lines += ["", "  Ctrl-C stops them all.", ""]
    return "\n".join(lines)


def _fail(message: str) -> NoReturn:
    print(f"demo: {message}", file=sys.stderr)
    raise SystemExit(2)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m ndbsim.demo",
        description="Start ndbsim, the exporter pointed at it, and Prometheus and "
        "Alertmanager when installed; Ctrl-C stops them all. "
        "Options not listed here go to ndbsim (see `ndbsim --help`).",
        allow_abbrev=False,
    )
    for name, what in (
        ("exporter", "the exporter's"),
        ("sql", "ndbsim's MySQL"),
        ("control", "ndbsim's control"),
        ("prometheus", "Prometheus'"),
    ):
        parser.add_argument(
            f"--{name}-port", type=int, default=0, help=f"{what} port (default: a free one)"
        )
    parser.add_argument(
        "--evaluation-interval",
        type=float,
        default=15.0,
        metavar="SECONDS",
        help="Prometheus' scrape and rule evaluation interval (default 15)",
    )
    parser.error = _fail  # type: ignore[method-assign]
    return parser


def _interrupt(signum: int, frame: object) -> NoReturn:
    raise KeyboardInterrupt


def main(argv: Sequence[str] | None = None) -> int:
    options, ndbsim_args = _parser().parse_known_args(argv)
    ports = (options.exporter_port, options.sql_port, options.control_port, options.prometheus_port)
    for port in ports:
        if not 0 <= port <= 65535:
            _fail(f"port {port} is not in 0..65535")
    if not 0.1 <= options.evaluation_interval <= 300:
        _fail(f"--evaluation-interval {options.evaluation_interval:g} is not in 0.1..300 seconds")
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, _interrupt)
    logs = Path(tempfile.mkdtemp(prefix="ndbinfo-demo-"))
    try:
        with contextlib.ExitStack() as stack:
            sim = stack.enter_context(
                running_ndbsim(
                    *ndbsim_args,
                    port=options.sql_port,
                    control_port=options.control_port,
                    logs=logs,
                )
            )
            plan = plan_monitoring(options.prometheus_port or free_port())
            alerts = []
            if plan.prometheus_url:  # the view shows the alerts of this cluster only
                alerts = ["--view.alerts-url", f'{plan.prometheus_url}/?filter=cluster="{CLUSTER}"']
            exporter = stack.enter_context(
                running_exporter(
                    sim.port,
                    *alerts,
                    *DEMO_FLAGS,
                    f"--mgmd.address={HOST}:{sim.mgm_port}",
                    port=options.exporter_port,
                    logs=logs,
                )
            )
            exporters, exporter_processes = {CLUSTER: exporter.url}, [exporter.process]
            if sim.replica_port is not None:
                replica_exporter = stack.enter_context(
                    running_exporter(
                        sim.replica_port, *DEMO_FLAGS, logs=logs, name="ndbinfo-exporter-dr"
                    )
                )
                exporters[REPLICA_CLUSTER] = replica_exporter.url
                exporter_processes.append(replica_exporter.process)
            monitoring = start_monitoring(stack, plan, logs, exporters, options.evaluation_interval)
            print(banner(sim, exporter, logs, monitoring), flush=True)
            while True:
                for process in (sim.process, *exporter_processes, *monitoring.processes):
                    process.check()
                time.sleep(0.5)
    except KeyboardInterrupt:
        shutil.rmtree(logs, ignore_errors=True)
        print("stopped the demo's processes", flush=True)
        return 0
    except DemoError as exc:
        print(f"demo: {exc}", file=sys.stderr)
        if exc.status == 2:
            shutil.rmtree(logs, ignore_errors=True)
        return exc.status


if __name__ == "__main__":
    sys.exit(main())
