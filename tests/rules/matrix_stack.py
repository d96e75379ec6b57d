"""The deployment the fault-to-alert matrix runs on: simulated clusters of two SQL nodes, an
exporter beside each SQL node, and a Prometheus server configured
from the shipped provisioning/prometheus/prometheus.yml: its intervals, jobs and collectors,
with only the targets replaced (and the rules read from the repository).

- `healthy`: ndbsim --replica at wall-clock speed, the source cluster (its first SQL node the
  binlog server) and its replica cluster (its first SQL node the applier), a management
  server; its source cluster's SQL nodes only read while an NDB API application writes
  (api-writes-only, the lane `readers`), and nothing else is done to it: the healthy watch.
- lanes of faults (LANES), each a simulated cluster whose rows run one after another, at
  wall-clock speed but for `fast` (ndbsim 10x faster, for the checkpoint and 30-minute
  uptime rows, with the configuration drift of one data node set at its start and the disk
  write speed fixed, MinDiskWriteSpeed = MaxDiskWriteSpeed); `link`, the replication lane's
  pair, replicating both ways (--active-active: the replica cluster the NDB$EPOCH2 primary,
  the source cluster's targets naming it their `source_cluster` too); `triple`,
  three data nodes in one node group of three replicas, with a replica cluster (its source's
  first SQL node a binlog server); `rondb`, RonDB 22.10 as rondb-helm lays it out (three
  replicas configured, the third data node not active).

Every target is scraped at its own phase (Prometheus spreads targets over the interval), the
`ndb` job every 15 s from every SQL node, `ndb-cluster` every 30 s from every SQL node, by one
Prometheus server of the newest build present (the promtool tests cover each build's rule
evaluation).
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from ndb_harness import Exporter, Ndbsim, running_exporter, running_ndbsim, running_prometheus

from tests.rules.alert_matrix import BY_NAME, EQUAL_DISK_WRITE_SPEEDS, Row
from tests.rules.matrix_judges import SqlNodeJudge, healthy_problems, judge_row, running_proxy
from tests.rules.matrix_runner import Target
from tests.support.live_stack import PROMETHEUS_BUILDS, RULE_FILES, PrometheusBuild

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "provisioning" / "prometheus" / "prometheus.yml"
JOBS = ("ndb", "ndb-cluster")
SIM_ARGS = ("--data-nodes", "4", "--sql-nodes", "2")
# 8 tables, one of them a disk data table (a tablespace, an undo log) where rows fill them; 4
# elsewhere, to keep the cluster-wide scrapes short
# ndbsim 10x faster: 300 GCIs in a minute (an LCP stall), 30 minutes of data node uptime in
# three (the disk page buffer's warm-up)
FAST_SPEED = 10


@dataclass(frozen=True)
class LanePlan:
    """A lane: the ndbsim it runs on and which of its clusters takes the rows."""

    sim: str  # key of SIMS
    side: str  # "source" or "replica"
    rows: tuple[str, ...]
    pair: bool = False  # its alerts may be on either cluster of the pair (the link's faults)


DISK_DATA, NO_DISK_DATA = ("--tables", "8"), ("--tables", "4")
# ndbsim -> (speed, --replica, extra args)
SIMS: dict[str, tuple[int, bool, tuple[str, ...]]] = {
    "healthy": (1, True, NO_DISK_DATA),
    "link": (1, True, (*NO_DISK_DATA, "--active-active")),
    "space": (1, True, DISK_DATA),
    "nodes": (1, True, NO_DISK_DATA),
    "fast": (
        FAST_SPEED,
        False,
        (*DISK_DATA, *BY_NAME["config-drift"].ndbsim_args, *EQUAL_DISK_WRITE_SPEEDS),
    ),
    "triple": (1, True, (*NO_DISK_DATA, "--data-nodes", "3", "--replicas", "3")),
    "beats": (1, False, NO_DISK_DATA),
    "rondb": (1, False, (*NO_DISK_DATA, *BY_NAME["rondb-inactive-replica"].ndbsim_args)),
    "standby": (
        1,
        True,
        (*NO_DISK_DATA, "--binlog-servers", "2", "--max-binlog-size", "65536"),
    ),
}
LANES: dict[str, LanePlan] = {
    "replication": LanePlan(
        "link",
        "source",
        (
            "replica-sql-error",
            "replica-io-disconnect",
            "replica-behind",
            "subscriber-lag",
            "injector-behind",
            "injector-gap",
            "subscriber-disconnected",
            "conflicts",
            "restart-loop",
        ),
        pair=True,
    ),
    "memory": LanePlan(
        "space",
        "source",
        (
            "data-memory",
            "redo-log",
            "undo-log",
            "redo-buffer",
            "undo-buffer",
            "long-message-buffer",
            "latency-degradation",
        ),
    ),
    "resources": LanePlan(
        "space",
        "replica",
        (
            "resource-pool",
            "send-buffer",
            "tablespace-full",
            "slow-disk",
            "long-transaction",
            "lock-contention",
            "operation-errors",
            "transaction-aborts",
        ),
    ),
    "nodes": LanePlan(
        "nodes",
        "source",
        (
            "mgm-down",
            "arbitrator-lost",
            "sql-node-stopped",
            "mgm-node-stopped",
            "data-node-stopped",
            "backup-abort",
            "node-group-stopped",
        ),
    ),
    "sql": LanePlan(
        "nodes",
        "replica",
        (
            "sql-connections-refused",
            "slow-ndbinfo",
            "metadata-excluded",
            "stuck-start",
            "primaries-away",
            "certificate-expiring",
            "exporter-stopped",
        ),
    ),
    "fast": LanePlan(
        "fast",
        "source",
        (
            "config-drift",
            "lcp-stall",
            "gcp-stall",
            "disk-page-buffer-misses",
            "send-overload",
            "job-buffer-congestion",
            "gcp-save-lag",
            "arbitration-lost",
        ),
    ),
    "readers": LanePlan("healthy", "source", ("api-writes-only",)),
    "triple": LanePlan(
        "triple",
        "source",
        (
            "three-replicas-node-stopped",
            "data-node-crash",
            "lcp-keep-gci-stall",
            "sql-node-slot-taken",
            "gcp-save-lag-subscriber",
        ),
    ),
    "beats": LanePlan(
        "beats",
        "source",
        (
            "slow-backup",
            "node-restart-killed",
            "missed-heartbeats",
            "dead-by-heartbeat",
            "backup-start-failure",
            "arbitration-denied",
        ),
    ),
    "rondb": LanePlan("rondb", "source", ("rondb-inactive-replica", "rondb-active-node-stopped")),
    "failover": LanePlan(
        "standby",
        "source",
        ("copy-alter", "reorganize", "standby-purged", "channel-failover"),
        pair=True,
    ),
}


def cluster_name(sim: str, side: str) -> str:
    return sim if side == "source" else f"{sim}-dr"


def lane_rows(plan: LanePlan) -> tuple[Row, ...]:
    return tuple(BY_NAME[name] for name in plan.rows)


def shipped_config(
    targets: dict[str, dict[str, dict[str, str]]], rule_files: tuple[Path, ...]
) -> dict[str, Any]:
    """The shipped prometheus.yml with its rule files, its ndb jobs' targets (job -> address
    -> labels) replaced, and nothing else scraped or alerted."""
    config = yaml.safe_load(SHIPPED.read_text())
    config["rule_files"] = [str(path) for path in rule_files]
    config.pop("alerting", None)
    jobs = []
    for job in config["scrape_configs"]:
        if job["job_name"] not in JOBS:
            continue
        job = copy.deepcopy(job)
        for discovered in ("dns_sd_configs", "relabel_configs"):
            job.pop(discovered, None)
        job["static_configs"] = [
            {"targets": [address], "labels": labels}
            for address, labels in targets[job["job_name"]].items()
        ]
        jobs.append(job)
    config["scrape_configs"] = jobs
    return config


@dataclass
class Deployment:
    sims: dict[str, Ndbsim]
    exporters: dict[tuple[str, str, int], Exporter]  # (sim, side, SQL node id) -> exporter
    evaluators: dict[str, Any]  # Prometheus build -> server
    judges: dict[str, list[SqlNodeJudge]]  # cluster -> its SQL nodes' view and check
    stopped: list[str] = field(default_factory=list)

    def target(self, plan: LanePlan) -> Target:
        def stop_exporter(node: int) -> None:
            self.exporters[(plan.sim, plan.side, node)].stop()

        sides = ("source", "replica") if plan.pair else (plan.side,)
        clusters = frozenset(cluster_name(plan.sim, side) for side in sides)
        judges = [j for cluster in sorted(clusters) for j in self.judges[cluster]]
        evaluator = next(iter(self.evaluators.values()))
        return Target(
            self.sims[plan.sim],
            clusters,
            None if plan.side == "source" else "replica",
            stop_exporter,
            lambda alerts: judge_row(alerts, evaluator, judges, clusters),
            lambda window: healthy_problems(evaluator, judges, clusters, window),
        )


def _exporter_args(sim: Ndbsim, side: str, speed: int) -> list[str]:
    args = []
    if side == "source" and sim.mgm_port:
        args.append(f"--mgmd.address=127.0.0.1:{sim.mgm_port}")
    if speed > 1:  # the maximum age of slowly changing rows, in cluster time
        args.append(f"--exporter.refresh-max-age={max(1, 120 // speed)}")
    return args


def _labels(sim: str, side: str, node: int) -> dict[str, str]:
    """A target's labels: a replica cluster's SQL nodes name their source cluster, and so do
    the source cluster's of an active-active pair, the replica cluster's replica."""
    labels = {"cluster": cluster_name(sim, side), "instance": f"{cluster_name(sim, side)}-{node}"}
    if side == "replica":
        labels["source_cluster"] = sim
    elif "--active-active" in SIMS[sim][2]:
        labels["source_cluster"] = cluster_name(sim, "replica")
    return labels


def scraped_sides() -> set[tuple[str, str]]:
    """The clusters (sim, side) whose SQL nodes get exporters: the healthy pair and those a
    lane acts on or reads; a replica cluster no lane uses is left unscraped, to spare the
    machine the suite shares."""
    used = {("healthy", "source"), ("healthy", "replica")}
    for plan in LANES.values():
        used |= {
            (plan.sim, side) for side in (("source", "replica") if plan.pair else (plan.side,))
        }
    return used


@contextmanager
def running_deployment(workdir: Path) -> Iterator[Deployment]:
    with ExitStack() as running:
        sims: dict[str, Ndbsim] = {}
        exporters: dict[tuple[str, str, int], Exporter] = {}
        targets: dict[str, dict[str, dict[str, str]]] = {job: {} for job in JOBS}
        judges: dict[str, list[SqlNodeJudge]] = {}
        proxy = running.enter_context(running_proxy())
        scraped = scraped_sides()
        for name, (speed, replica, extra) in SIMS.items():
            sim = running.enter_context(
                running_ndbsim(*SIM_ARGS, *extra, replica=replica, speed=speed)
            )
            sims[name] = sim
            for side in ("source", "replica") if replica else ("source",):
                if (name, side) not in scraped:
                    continue
                cluster = cluster_name(name, side)
                for node in sorted(sim.sql_node_ports(side)):
                    endpoint = f"{'replica_' if side == 'replica' else ''}sql{node}"
                    flags = tuple(_exporter_args(sim, side, speed))
                    exporter = running.enter_context(
                        running_exporter(
                            [*flags, f"--view.alerts-url={proxy.url(cluster)}"],
                            mysqld=sim.account(endpoint),
                            log_dir=workdir,
                            name=f"exporter-{cluster}-{node}",
                        )
                    )
                    exporters[(name, side, node)] = exporter
                    judges.setdefault(cluster, []).append(
                        SqlNodeJudge(
                            cluster, exporter.url, sim.account(endpoint), flags, proxy.url(cluster)
                        )
                    )
                    for job in JOBS:
                        targets[job][exporter.address] = _labels(name, side, node)
        build = newest_build()
        prometheus = running.enter_context(
            running_prometheus(
                build.prometheus, shipped_config(targets, RULE_FILES), workdir / build.name
            )
        )
        proxy.upstream = prometheus.url
        yield Deployment(sims, exporters, {build.name: prometheus}, judges)


def newest_build() -> PrometheusBuild:
    """The newest Prometheus build present (the promtool tests cover every build's rule
    evaluation; one server keeps the matrix's cost down)."""
    for build in reversed(PROMETHEUS_BUILDS):
        if not build.missing:
            return build
    PROMETHEUS_BUILDS[-1].require()
    raise AssertionError("unreachable")
