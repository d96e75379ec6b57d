"""``make demo``: ndbsim, the exporter pointed at it, and Prometheus with the project's alert
rules and Alertmanager when their programs are installed, until Ctrl-C. With ``--backend
victoriametrics`` the same stack runs on VictoriaMetrics instead of Prometheus: vmagent
scrapes the exporters into a VictoriaMetrics server, vmalert evaluates the same rule files
and sends to Alertmanager, and the view's alert list follows vmalert. With ``--backend
thanos`` ndbsim's replication pair runs as two data centers: site A's Prometheus HA pair
scrapes the source cluster, site B's Prometheus the replica cluster, each with the rules that
read one cluster and a Thanos sidecar; Thanos Ruler evaluates the rules that join the two over
Thanos Query, which the view's alert list follows (docs/scaling.md).

Options the demo does not know are handed to ndbsim (``--data-nodes 8 --tables 2000``).
Every process listens on a free port of 127.0.0.1 unless told otherwise, so the demo never
collides with a running MySQL server, exporter or Prometheus; their logs go to files in a
temporary directory that the demo names. The exporter's cluster view shows the alerts
Prometheus has pending or firing (``--view.alerts-url``).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import yaml
from ndb_harness.exporter import Exporter, running_exporter
from ndb_harness.ports import HOST, free_port
from ndb_harness.process import HarnessError, Process
from ndb_harness.prometheus import running_alertmanager, running_prometheus
from ndb_harness.simulator import Ndbsim, running_ndbsim
from ndb_harness.thanos import running_sites, split_for_sites
from ndb_harness.victoriametrics import VictoriaMetricsPrograms, running_victoriametrics_stack

CLUSTER = "demo"
REPLICA_CLUSTER = "dr"  # the replica cluster of --replica
PROVISIONING = Path(__file__).resolve().parents[1] / "provisioning"  # in a source checkout
PROMETHEUS = ("prometheus",)
BACKENDS = ("prometheus", "victoriametrics", "thanos")
# VictoriaMetrics' programs: on the PATH, or built by `make tools` in a source checkout
VICTORIAMETRICS = ("victoria-metrics", "vmagent", "vmalert")
TOOLS = PROVISIONING.parent / ".tools" / "bin"
ALERTMANAGER = ("prometheus-alertmanager", "alertmanager")  # Debian's name, upstream's name
# A demo cluster is small: the per-phase restart times (off by default for the series they
# add per data node) fill the data-node dashboard's restart table after a fault.
DEMO_FLAGS = ("--collector.restart_info.phases=true",)


@dataclass(frozen=True)
class Monitoring:
    """Prometheus, vmalert or Thanos (with the project's rules) and Alertmanager, as far as
    they are installed."""

    prometheus_url: str | None  # where the alerts are read: Prometheus, vmalert, Thanos Query
    alertmanager_url: str | None
    left_out: list[str]  # one line each: what is not running and why
    processes: list[Process]
    links: list[tuple[str, str]]  # (what, URL) of each page the banner shows


def find_program(names: Sequence[str]) -> str | None:
    for name in names:
        if path := shutil.which(name):
            return path
    return None


def _alertmanager_config() -> dict[str, Any]:
    """The project's routing and inhibitions, with receivers that notify nobody."""
    config = yaml.safe_load((PROVISIONING / "alertmanager" / "alertmanager.yml").read_text())
    config["receivers"] = [{"name": r["name"]} for r in config["receivers"]]
    return config


def _labels(cluster: str) -> dict[str, str]:
    """The target labels of a cluster's exporter; the replica names its source cluster."""
    if cluster == CLUSTER:
        return {"cluster": cluster, "instance": "ndbsim"}
    return {"cluster": cluster, "source_cluster": CLUSTER, "instance": f"ndbsim-{cluster}"}


def _scrape_config(exporters: dict[str, str], every: float) -> dict[str, Any]:
    """Scraping each exporter (cluster label -> exporter URL), for Prometheus or vmagent."""
    interval = f"{every:g}s"
    return {
        "global": {"scrape_interval": interval, "scrape_timeout": interval},
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


def _prometheus_config(
    exporters: dict[str, str],
    alertmanager: str | None,
    every: float,
    rule_files: Sequence[str | Path] = (str(PROVISIONING / "prometheus" / "rules" / "*.yml"),),
) -> dict[str, Any]:
    """Prometheus scraping each exporter and evaluating ``rule_files`` at the same interval."""
    config = _scrape_config(exporters, every)
    config["global"]["evaluation_interval"] = f"{every:g}s"
    config["rule_files"] = [str(path) for path in rule_files]
    if alertmanager:
        targets = [alertmanager.removeprefix("http://")]
        config["alerting"] = {"alertmanagers": [{"static_configs": [{"targets": targets}]}]}
    return config


@dataclass(frozen=True)
class MonitoringPlan:
    """Which of Prometheus (or VictoriaMetrics) and Alertmanager the demo can start; the URL
    the alerts are read from (Prometheus' or vmalert's) is known before the exporter starts,
    for its --view.alerts-url."""

    prometheus: str | None  # program
    alertmanager: str | None
    prometheus_url: str | None
    left_out: list[str]  # one line each: what does not run and why
    victoriametrics: VictoriaMetricsPrograms | None = None  # instead of Prometheus
    thanos: str | None = None  # beside Prometheus: two sites


def _victoriametrics_programs() -> VictoriaMetricsPrograms | None:
    found = [find_program((name,)) or _built(name) for name in VICTORIAMETRICS]
    if None in found:
        return None
    return VictoriaMetricsPrograms(*(Path(path) for path in found if path))


def _built(name: str) -> str | None:
    path = TOOLS / name
    return str(path) if path.is_file() else None


def plan_monitoring(prometheus_port: int, backend: str = "prometheus") -> MonitoringPlan:
    prometheus, alertmanager = find_program(PROMETHEUS), find_program(ALERTMANAGER)
    victoriametrics = thanos = None
    left_out = []
    if not (PROVISIONING / "prometheus" / "rules").is_dir():
        left_out.append(f"Prometheus and Alertmanager: no alert rules under {PROVISIONING}")
        prometheus = alertmanager = None
    else:
        if backend == "victoriametrics":
            prometheus, victoriametrics = None, _victoriametrics_programs()
            if victoriametrics is None:
                left_out.append(
                    f"VictoriaMetrics: {', '.join(VICTORIAMETRICS)} not found (make tools);"
                    " no alerts in the view"
                )
        elif prometheus is None:
            left_out.append(
                "Prometheus: not installed (apt-get install prometheus); no alerts in the view"
            )
        if backend == "thanos" and prometheus is not None:
            thanos = find_program(("thanos",)) or _built("thanos")
            if thanos is None:
                prometheus = None
                left_out.append("Thanos: thanos not found (make tools); no alerts in the view")
        if alertmanager is None:
            left_out.append("Alertmanager: not installed (apt-get install prometheus-alertmanager)")
    running = prometheus or victoriametrics
    url = f"http://{HOST}:{prometheus_port}" if running else None
    return MonitoringPlan(prometheus, alertmanager, url, left_out, victoriametrics, thanos)


def start_monitoring(
    stack: contextlib.ExitStack,
    plan: MonitoringPlan,
    logs: Path,
    exporters: dict[str, str],
    every: float,
) -> Monitoring:
    """Alertmanager, then Prometheus (or VictoriaMetrics) scraping the exporter and sending it
    its alerts."""
    am_url, processes = None, []
    if plan.alertmanager is not None:
        alertmanager = stack.enter_context(
            running_alertmanager(plan.alertmanager, _alertmanager_config(), logs)
        )
        am_url = alertmanager.url
        processes.append(alertmanager.process)
    if plan.thanos is not None and plan.prometheus is not None and plan.prometheus_url:
        port = int(plan.prometheus_url.rpartition(":")[2])
        links = _start_thanos(
            stack, plan.thanos, plan.prometheus, port, logs, exporters, every, am_url, processes
        )
        return Monitoring(plan.prometheus_url, am_url, plan.left_out, processes, links)
    links = [("Alertmanager", f"{am_url}/")] if am_url else []
    if plan.prometheus is not None and plan.prometheus_url is not None:
        config = _prometheus_config(exporters, am_url, every)
        port = int(plan.prometheus_url.rpartition(":")[2])
        prometheus = stack.enter_context(
            running_prometheus(plan.prometheus, config, logs, port=port)
        )
        processes.append(prometheus.process)
        links.insert(0, ("Prometheus", f"{prometheus.url}/alerts"))
    if plan.victoriametrics is not None and plan.prometheus_url is not None:
        victoriametrics = stack.enter_context(
            running_victoriametrics_stack(
                plan.victoriametrics,
                _scrape_config(exporters, every),
                sorted((PROVISIONING / "prometheus" / "rules").glob("*.yml")),
                logs,
                f"{every:g}s",
                am_url,
                vmalert_port=int(plan.prometheus_url.rpartition(":")[2]),
            )
        )
        processes += victoriametrics.processes
        links[:0] = [
            ("vmalert", f"{plan.prometheus_url}/vmalert/alerts"),
            ("VictoriaMetrics", f"{victoriametrics.server.url}/vmui/"),
        ]
    return Monitoring(plan.prometheus_url, am_url, plan.left_out, processes, links)


def _site_config(
    exporters: dict[str, str], alertmanager: str | None, every: float, rule_files: Sequence[Path]
) -> dict[str, Any]:
    """A site's Prometheus: its alerts reach Alertmanager without the HA pair's `replica`
    external label, so that the pair's two copies of an alert are one."""
    config = _prometheus_config(exporters, alertmanager, every, rule_files)
    if "alerting" in config:
        config["alerting"]["alert_relabel_configs"] = [{"regex": "replica", "action": "labeldrop"}]
    return config


def _start_thanos(
    stack: contextlib.ExitStack,
    thanos_program: str,
    prometheus: str,
    query_port: int,
    logs: Path,
    exporters: dict[str, str],
    every: float,
    am_url: str | None,
    processes: list[Process],
) -> list[tuple[str, str]]:
    """The replication pair as two sites: site A's Prometheus HA pair scraping the source
    cluster, site B's Prometheus the replica cluster, each with the rules that read one
    cluster and a sidecar; Thanos Query on ``query_port``, the Ruler with the rules that join
    the two clusters and the verdict, every evaluator sending to Alertmanager. Adds their
    processes to ``processes``; returns the banner's links."""
    rules = sorted((PROVISIONING / "prometheus" / "rules").glob("*.yml"))
    site_files, ruler_files = split_for_sites(rules, logs / "ruler-rules")
    sites = {
        name: (_site_config({cluster: exporters[cluster]}, am_url, every, site_files), n)
        for name, cluster, n in (("a", CLUSTER, 2), ("b", REPLICA_CLUSTER, 1))
    }
    thanos = stack.enter_context(
        running_sites(
            thanos_program,
            prometheus,
            sites,
            ruler_files,
            logs,
            f"{every:g}s",
            am_url,
            query_port=query_port,
        )
    )
    links = [
        ("Thanos Query", f"{thanos.query.url}/alerts"),
        ("Thanos Ruler", f"{thanos.ruler.url}/alerts"),
        *(
            (f"Prometheus {site.name}/{index}", f"{server.url}/alerts")
            for site in thanos.sites.values()
            for index, server in enumerate(site.servers)
        ),
    ]
    if am_url:
        links.append(("Alertmanager", f"{am_url}/"))
    processes += thanos.processes
    return links


def ndbsim_command() -> str:
    """How to call the ndbsim CLI from the demo's shell: `make demo` does not put the
    virtualenv on PATH."""
    script = Path(sys.executable).with_name("ndbsim")
    if not script.exists() or shutil.which("ndbsim") == str(script):
        return "ndbsim"
    return os.path.relpath(script)


# Every `ndbsim fault` command (simulator/cli.py), with an example and what it shows.
# tests/view/test_view_demo.py checks that none is missing.
FAULT_EXAMPLES: tuple[tuple[str, str], ...] = (
    ("stop-node 2", "data node 2 stops: NdbDataNodeDown, dead replicas"),
    ("start-node 2", "and starts again"),
    ("lcp-stall", "LCPs stop: NdbLcpStalled after 300 GCIs (10 min; with --speed 10, 1 min)"),
    ("data-memory 0.97", "DataMemory 97 % full: NdbDataMemoryCritical"),
    ("redo-log 0.95", "REDO log 95 % full: NdbRedoLogSpaceCritical"),
    ("arbitrator-lost", "no arbitrator: NdbNoArbitrator"),
    ("arbitration-denied", "the arbitrator says no at the next failure: NdbArbitrationLost"),
    ("data-node-crash 2", "node 2 crashes (2341): NdbDataNodeForcedStop, NdbDataNodeDown"),
    ("missed-heartbeats 2", "node 2's heartbeats go missing: NdbHeartbeatsMissed"),
    ("lcp-keep-gci-stall", "the LCP cannot move the keep GCI: NdbLcpKeepGciStuck"),
    ("api-writes-only", "only NDB API applications write; the SQL nodes read: no alert"),
    ("sql-node-slot-taken 51", "mysqld 51 restarts into a free API slot: no alert"),
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
    (
        "gcp-save-lag",
        "GCP_SAVE lags (slow redo disk), micro GCPs go on: NdbGlobalCheckpointStalled,"
        " NdbRedoWritesLagging",
    ),
    (
        "job-buffer-congestion 1",
        "node 1's LDM threads saturated, their producers wait: NdbThreadBufferFull",
    ),
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
    ("slow-backup 600", "backups take 10 cluster minutes: their progress and time left"),
    ("backup-abort", "backups abort (error 1325): NdbBackupFailed"),
    ("backup-start-failure", "backups fail to start (error 1342): NdbBackupFailed"),
    ("copy-alter 600", "a copying ALTER TABLE for 10 cluster minutes: its #sql- table fills"),
    ("reorganize 600", "REORGANIZE PARTITION for 10 cluster minutes: new fragments fill"),
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


def _mysql_command(sim: Ndbsim, endpoint: str) -> str:
    account = sim.account(endpoint)
    return f"mysql -h {account.host} -P {account.port} -u {account.user} -p{account.password}"


def banner(sim: Ndbsim, exporter: Exporter, logs: Path, monitoring: Monitoring) -> str:
    fault = f"{ndbsim_command()} fault --control-url {sim.control_url}"
    width = max(len(example) for example, _ in FAULT_EXAMPLES)
    lines = [
        "",
        f"  Cluster view    {exporter.url}/",
        f"  Metrics         {exporter.url}/metrics",
        f"  JSON API        {exporter.url}/docs",
    ]
    lines += [f"  {what:<15} {url}" for what, url in monitoring.links]
    lines += [
        *(
            f"  SQL node {node:<6} {_mysql_command(sim, f'sql{node}')}"
            for node in sim.sql_node_ports()
        ),
        f"  ndbsim control  {sim.control_url}",
        *([f"  replica (MySQL) {_mysql_command(sim, 'replica')}"] if sim.replica_port else []),
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
        prog="python -m ndb_harness.demo",
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
        "--backend",
        choices=BACKENDS,
        default="prometheus",
        help="what scrapes and evaluates the rules: Prometheus; vmagent, VictoriaMetrics "
        "and vmalert (built by `make tools`), --prometheus-port then vmalert's; or the "
        "replication pair (--replica) as two sites, each with Prometheus and a Thanos sidecar, "
        "Thanos Ruler and Query (thanos built by `make tools`), --prometheus-port then Query's",
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
    if options.backend == "thanos" and "--replica" not in ndbsim_args:
        ndbsim_args.append("--replica")  # the two sites are the replication pair's clusters
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
                    log_level=None,
                    log_dir=logs,
                )
            )
            plan = plan_monitoring(options.prometheus_port or free_port(), options.backend)
            alerts = []
            if plan.prometheus_url:  # the view shows the alerts of this cluster only
                # vmalert serves /api/v1/alerts and its alerts page under /vmalert
                base = plan.prometheus_url + ("/vmalert" if plan.victoriametrics else "")
                alerts = ["--view.alerts-url", f'{base}/?filter=cluster="{CLUSTER}"']
            # site A's HA pair scrapes the source's exporter twice an interval: one read
            reuse = [f"--exporter.scrape-reuse-age={options.evaluation_interval / 2:g}"]
            shared = reuse if plan.thanos else []
            exporter = stack.enter_context(
                running_exporter(
                    [*alerts, *DEMO_FLAGS, *shared, f"--mgmd.address={HOST}:{sim.mgm_port}"],
                    mysqld=sim.account(),
                    port=options.exporter_port,
                    log_dir=logs,
                )
            )
            exporters, exporter_processes = {CLUSTER: exporter.url}, [exporter.process]
            if sim.replica_port is not None:
                replica_exporter = stack.enter_context(
                    running_exporter(
                        DEMO_FLAGS,
                        mysqld=sim.account("replica"),
                        log_dir=logs,
                        name="ndbinfo-exporter-dr",
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
    except HarnessError as exc:
        print(f"demo: {exc}", file=sys.stderr)
        if exc.status == 2:
            shutil.rmtree(logs, ignore_errors=True)
        return exc.status


if __name__ == "__main__":
    sys.exit(main())
