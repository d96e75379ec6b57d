"""Thanos as real processes on free ports: a sidecar beside each Prometheus, Query over the
sidecars (or receivers) and the Ruler, the Ruler evaluating rule files over Query, and Receive
nodes in a hashring taking remote writes. Each is ready once its ``/-/ready`` answers.

``ThanosComponent`` answers ``query``, ``alerts`` and ``rule_groups`` as
``ndb_harness.prometheus.Prometheus`` does (Query the first, the Ruler the other two), so that
the same checks run against every backend.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from ndb_harness.api import answers, api_data
from ndb_harness.ports import HOST, free_port
from ndb_harness.process import Process, started
from ndb_harness.prometheus import Prometheus, running_prometheus

START_SECONDS = 60.0
# The labels Query merges replicas by: an HA pair of Prometheus servers (`replica`, their
# external label), the copies a Receive hashring keeps of each series (`receive_replica`) and
# Ruler replicas (`rule_replica`).
REPLICA_LABELS = ("replica", "receive_replica", "rule_replica")
# Where each site has its own Prometheus: the rule groups that only Thanos Ruler, over both
# sites, can evaluate, and the partial_response_strategy each runs with (a Thanos field that
# Prometheus rejects). The lag aborts on an answer that misses a site: a join with one side
# missing is empty and would resolve the lag alert. The missing side's own alert, and the
# verdict over every site's alerts, must run while a site is missing: warn.
RULER_GROUPS = {
    "ndb-cross-site.lag": "abort",
    "ndb-cross-site.presence": "warn",
    "ndb-verdict.rules": "warn",
}


@dataclass
class ThanosComponent:
    """One running Thanos component: its HTTP API at ``url``, its gRPC (StoreAPI) at ``grpc``."""

    name: str
    url: str
    grpc: str
    process: Process

    def query(self, expr: str, **params: str) -> list[dict]:
        return api_data(f"{self.url}/api/v1/query", query=expr, **params)["result"]

    def alert_instances(self) -> list[dict[str, Any]]:
        """Every alert pending or firing (the Ruler's), each with its `labels` and `state`.
        The Ruler names the list `Alerts` (null when empty), where Prometheus says `alerts`."""
        return api_data(f"{self.url}/api/v1/alerts")["Alerts"] or []

    def alerts(self) -> list[dict[str, str]]:
        """The labels of every alert pending or firing (the Ruler's)."""
        return [alert["labels"] for alert in self.alert_instances()]

    def rule_groups(self) -> list[dict[str, Any]]:
        """The rule groups of /api/v1/rules (the Ruler's), each rule with `health` and
        `lastError`."""
        return api_data(f"{self.url}/api/v1/rules")["groups"]


def split_for_sites(
    rule_files: Sequence[Path], into: Path
) -> tuple[tuple[Path, ...], tuple[Path, ...]]:
    """The files each site's Prometheus evaluates (those without a group of RULER_GROUPS), and
    copies in ``into`` of those Thanos Ruler evaluates, each group with its
    partial_response_strategy. A file goes whole to one side."""
    into.mkdir(parents=True, exist_ok=True)
    sites, ruler = [], []
    for path in rule_files:
        document = yaml.safe_load(path.read_text())
        names = [group["name"] for group in document["groups"]]
        if not any(name in RULER_GROUPS for name in names):
            sites.append(path)
            continue
        if stray := [name for name in names if name not in RULER_GROUPS]:
            raise ValueError(f"{path.name}: groups {stray} are not for Thanos Ruler")
        for group in document["groups"]:
            group["partial_response_strategy"] = RULER_GROUPS[group["name"]]
        copy = into / path.name
        copy.write_text(yaml.safe_dump(document, sort_keys=False))
        ruler.append(copy)
    return tuple(sites), tuple(ruler)


def _address() -> str:
    return f"{HOST}:{free_port()}"


@contextlib.contextmanager
def _running(
    program: str | Path,
    component: str,
    name: str,
    workdir: Path,
    *flags: str,
    grpc: str | None = None,
    http: str | None = None,
    timeout: float = START_SECONDS,
) -> Iterator[ThanosComponent]:
    """``thanos component`` with ``flags``, its HTTP API at ``http`` and its gRPC at ``grpc``
    (default: free ports)."""
    workdir.mkdir(parents=True, exist_ok=True)
    http, grpc = http or _address(), grpc or _address()
    argv = [
        str(program),
        component,
        f"--http-address={http}",
        f"--grpc-address={grpc}",
        "--log.level=warn",
        *flags,
    ]
    url = f"http://{http}"
    with started(name, argv, log_dir=workdir) as process:
        process.wait_until(lambda: answers(f"{url}/-/ready"), "become ready", timeout)
        yield ThanosComponent(name, url, grpc, process)


@contextlib.contextmanager
def running_sidecar(
    program: str | Path, prometheus_url: str, tsdb_path: Path, workdir: Path, name: str
) -> Iterator[ThanosComponent]:
    """The sidecar of the Prometheus at ``prometheus_url`` (whose data is ``tsdb_path``): its
    StoreAPI serves that Prometheus' samples with its external labels."""
    flags = (f"--prometheus.url={prometheus_url}", f"--tsdb.path={tsdb_path}")
    with _running(program, "sidecar", name, workdir, *flags) as sidecar:
        yield sidecar


@contextlib.contextmanager
def running_query(
    program: str | Path,
    endpoints: Sequence[str],
    workdir: Path,
    strict: Sequence[str] = (),
    name: str = "thanos-query",
    port: int = 0,
) -> Iterator[ThanosComponent]:
    """Query (its HTTP API on ``port``, default a free one) over the StoreAPIs at
    ``endpoints`` (host:port), deduplicating by REPLICA_LABELS. An endpoint in ``strict`` stays
    in the set when its health check fails: a query that needs it fails (or warns) instead of
    leaving it out unsaid."""
    config = {
        "endpoints": [
            {"address": address, "strict": address in strict} for address in (*strict, *endpoints)
        ]
    }
    flags = [
        f"--endpoint.sd-config={yaml.safe_dump(config)}",
        *(f"--query.replica-label={label}" for label in REPLICA_LABELS),
    ]
    http = f"{HOST}:{port}" if port else None
    with _running(program, "query", name, workdir, *flags, http=http) as query:
        yield query


@contextlib.contextmanager
def running_ruler(
    program: str | Path,
    rule_files: Sequence[Path | str],
    query_url: str,
    workdir: Path,
    evaluation_interval: str,
    grpc: str,
    alertmanager_url: str | None = None,
    name: str = "thanos-ruler",
) -> Iterator[ThanosComponent]:
    """The Ruler evaluating ``rule_files`` every ``evaluation_interval`` over Query at
    ``query_url``; it keeps its results and alert states in its own TSDB, which its StoreAPI
    at ``grpc`` (an address chosen before Query starts, which lists it) serves back to Query.
    Alerts go to Alertmanager at ``alertmanager_url`` when given."""
    flags = [
        *(f"--rule-file={path}" for path in rule_files),
        f"--query={query_url}",
        f"--data-dir={workdir / f'{name}-data'}",
        f"--eval-interval={evaluation_interval}",
        '--label=rule_replica="0"',
    ]
    if alertmanager_url:
        flags.append(f"--alertmanagers.url={alertmanager_url}")
    with _running(program, "rule", name, workdir, *flags, grpc=grpc) as ruler:
        yield ruler


@dataclass
class Hashring:
    """Receive nodes in one hashring; ``write_url`` takes Prometheus' remote write (any node
    forwards each series to the nodes the hashring gives it)."""

    receivers: list[ThanosComponent]
    write_urls: list[str]

    @property
    def write_url(self) -> str:
        return self.write_urls[0]

    @property
    def endpoints(self) -> list[str]:
        return [receiver.grpc for receiver in self.receivers]


@contextlib.contextmanager
def running_hashring(
    program: str | Path,
    workdir: Path,
    receivers: int = 3,
    replication_factor: int = 2,
) -> Iterator[Hashring]:
    """``receivers`` Receive nodes in one hashring, each series kept on
    ``replication_factor`` of them (with RF 2 a write succeeds once one copy is written:
    one node may be down)."""
    workdir.mkdir(parents=True, exist_ok=True)
    grpcs = [_address() for _ in range(receivers)]
    hashring_file = workdir / "hashring.json"
    hashring_file.write_text(json.dumps([{"hashring": "default", "endpoints": grpcs}]))
    with contextlib.ExitStack() as stack:
        nodes, write_urls = [], []
        for index, grpc in enumerate(grpcs):
            write = _address()
            flags = (
                f"--tsdb.path={workdir / f'receive{index}-data'}",
                f"--remote-write.address={write}",
                f"--receive.capnproto-address={_address()}",
                f"--receive.hashrings-file={hashring_file}",
                f"--receive.local-endpoint={grpc}",
                f"--receive.replication-factor={replication_factor}",
                f'--label=receive_replica="{index}"',
            )
            nodes.append(
                stack.enter_context(
                    _running(program, "receive", f"receive{index}", workdir, *flags, grpc=grpc)
                )
            )
            write_urls.append(f"http://{write}/api/v1/receive")
        yield Hashring(nodes, write_urls)


@dataclass
class Site:
    """A data center: its Prometheus servers (an HA pair, or one), each with a sidecar.
    ``stop`` and ``start`` take the servers away and back (same ports, same data); the
    sidecars stay, as they do when a Prometheus restarts."""

    name: str
    servers: list[Prometheus]  # those running
    sidecars: list[ThanosComponent]
    start_server: Callable[[int], Prometheus]
    runs: list[contextlib.ExitStack]

    def stop(self) -> None:
        for run in self.runs:
            run.close()
        self.servers = []

    def start(self) -> None:
        self.servers = [self.start_server(index) for index in range(len(self.runs))]

    @property
    def processes(self) -> list[Process]:
        return [p.process for p in (*self.servers, *self.sidecars)]


@contextlib.contextmanager
def running_site(
    thanos: str | Path,
    prometheus: str | Path,
    name: str,
    config: dict[str, Any],
    workdir: Path,
    replicas: int = 1,
) -> Iterator[Site]:
    """Site ``name``: ``replicas`` Prometheus servers with ``config`` (prometheus.yml as a
    dict), external labels ``site`` (the name) and ``replica`` (0, 1, ...), each with a
    sidecar."""
    ports = [free_port() for _ in range(replicas)]
    runs = [contextlib.ExitStack() for _ in range(replicas)]

    def start_server(index: int) -> Prometheus:
        labels = {"site": name, "replica": str(index)}
        site_config = {**config, "global": {**config.get("global", {}), "external_labels": labels}}
        runs[index] = contextlib.ExitStack()
        return runs[index].enter_context(
            running_prometheus(
                prometheus,
                site_config,
                workdir / f"{name}-{index}",
                name=f"prometheus-{name}-{index}",
                port=ports[index],
            )
        )

    with contextlib.ExitStack() as stack:
        stack.callback(lambda: [run.close() for run in runs])
        servers = [start_server(index) for index in range(replicas)]
        sidecars = [
            stack.enter_context(
                running_sidecar(
                    thanos,
                    server.url,
                    workdir / f"{name}-{index}" / f"prometheus-{name}-{index}-data",
                    workdir,
                    f"sidecar-{name}-{index}",
                )
            )
            for index, server in enumerate(servers)
        ]
        yield Site(name, servers, sidecars, start_server, runs)


@dataclass
class Sites:
    """Sites, Query over their sidecars (strict) and the Ruler, the Ruler over Query."""

    sites: dict[str, Site]
    query: ThanosComponent
    ruler: ThanosComponent

    @property
    def processes(self) -> list[Process]:
        sites = [p for site in self.sites.values() for p in site.processes]
        return [*sites, self.query.process, self.ruler.process]


@contextlib.contextmanager
def running_sites(
    thanos: str | Path,
    prometheus: str | Path,
    sites: dict[str, tuple[dict[str, Any], int]],
    ruler_files: Sequence[Path],
    workdir: Path,
    evaluation_interval: str,
    alertmanager_url: str | None = None,
    query_port: int = 0,
) -> Iterator[Sites]:
    """One site per entry of ``sites`` (name -> its Prometheus config and how many servers),
    Query over their sidecars (strict: a missing site is an error or a warning, never left
    out unsaid) and the Ruler evaluating ``ruler_files`` over Query, whose own results Query
    reads back from the Ruler."""
    with contextlib.ExitStack() as stack:
        running = {
            name: stack.enter_context(
                running_site(thanos, prometheus, name, config, workdir, replicas)
            )
            for name, (config, replicas) in sites.items()
        }
        ruler_grpc = _address()
        sidecars = [sidecar.grpc for site in running.values() for sidecar in site.sidecars]
        query = stack.enter_context(
            running_query(thanos, [ruler_grpc], workdir, strict=sidecars, port=query_port)
        )
        ruler = stack.enter_context(
            running_ruler(
                thanos,
                ruler_files,
                query.url,
                workdir,
                evaluation_interval,
                ruler_grpc,
                alertmanager_url,
            )
        )
        yield Sites(running, query, ruler)
