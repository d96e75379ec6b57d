"""`ndbsim`: serve a simulated NDB SQL node, or drive a running one with `ndbsim fault ...`."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import signal
import socket
import sys
from collections.abc import Sequence

import httpx
from ndbsim import versions
from ndbsim.model.cluster import build_config
from ndbsim.model.config_params import parse_override
from ndbsim.model.faults import (
    BUFFERS,
    CONFLICT_FUNCTIONS,
    DEFAULT_ABORT_SHARE,
    DEFAULT_BEHIND_SECONDS,
    DEFAULT_DISK_PAGE_BUFFER_HITS,
    DEFAULT_GROWTH_SHARE,
    DEFAULT_POOL,
    DEFAULT_SEND_BUFFER_SHARE,
    DEFAULT_STUCK_PHASE,
    GROWTH,
    POOLS,
    START_PHASES,
)
from ndbsim.model.spec import ClusterSpec, command_line_settings

DEFAULT_CONTROL_URL = "http://127.0.0.1:8081"
REPLICA_SYSTEM_NAME = "MC_20240212141503"  # the replica cluster of --replica, made later
log = logging.getLogger("ndbsim")


class _Parser(argparse.ArgumentParser):
    """argparse that reports errors in one line on stderr and exits 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message}\n")


def _positive_int(low: int, high: int):
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{value} is not in {low}..{high}")
        return value

    return parse


def _float_range(low: float, high: float, low_open: bool = False):
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if value < low or value > high or (low_open and value == low):
            bound = f"> {low}" if low_open else f">= {low}"
            raise argparse.ArgumentTypeError(f"{value} must be {bound} and <= {high}")
        return value

    return parse


def _version(text: str) -> str:
    try:
        return versions.parse_version(text).series
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def serve_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="ndbsim",
        description="Simulated SQL node of a MySQL NDB Cluster (MySQL protocol, ndbinfo, "
        "Ndb_% status) with a control API for faults. `ndbsim fault --help` drives a running one.",
    )
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument(
        "--port",
        type=_positive_int(0, 65535),
        default=3306,
        help="MySQL port, 0 picks a free one (default 3306)",
    )
    p.add_argument("--user", default="ndbsim", help="MySQL user (default ndbsim)")
    p.add_argument(
        "--password", default=None, help="MySQL password (default: $NDBSIM_PASSWORD, else ndbsim)"
    )
    p.add_argument(
        "--control-port",
        type=_positive_int(0, 65535),
        default=8081,
        help="HTTP control API port on the same host, 0 picks a free one (default 8081)",
    )
    p.add_argument(
        "--mgm-port",
        type=_positive_int(0, 65535),
        default=None,
        help="also serve the management server's protocol (ndb_mgmd, usually 1186) on this "
        "port, 0 picks a free one (default: none)",
    )
    p.add_argument(
        "--ndb-version",
        type=_version,
        default=versions.DEFAULT,
        help=f"NDB version to simulate: {', '.join(versions.SUPPORTED)} "
        f"(default {versions.DEFAULT})",
    )
    _spec_options(p)
    p.add_argument(
        "--max-connections",
        type=_positive_int(1, 100000),
        default=151,
        help="concurrent client connections; more get mysqld's error 1040 (default 151)",
    )
    p.add_argument(
        "--connect-timeout",
        type=_positive_int(1, 31536000),
        default=10,
        help="seconds a client has to log in before it is disconnected (default 10)",
    )
    p.add_argument(
        "--config",
        action="append",
        default=[],
        metavar="PARAM=VALUE[@NODE]",
        help="data node parameter, for all data nodes or one (repeatable)",
    )
    p.add_argument(
        "--replica",
        action="store_true",
        help="also run a replica cluster whose SQL node applies the binary log of this one "
        "(asynchronous NDB replication, default channel)",
    )
    p.add_argument(
        "--active-active",
        action="store_true",
        help="with --replica, the replica cluster's first SQL node also writes a binary log "
        "that the source cluster's first SQL node applies (circular replication; the replica "
        "cluster is the primary of NDB$EPOCH2 conflict detection, the source the secondary)",
    )
    p.add_argument(
        "--replica-port",
        type=_positive_int(0, 65535),
        default=None,
        help="MySQL port of the replica cluster's first SQL node, the others after it "
        "(default --port + --sql-nodes; 0 with --port 0)",
    )
    p.add_argument(
        "--binlog-servers",
        type=_positive_int(1, 48),
        default=1,
        help="with --replica, the source's SQL nodes that write a binary log, from the first "
        "(the others are standby binlog servers a replica can fail over to; default 1)",
    )
    p.add_argument(
        "--max-binlog-size",
        type=_positive_int(4096, 1 << 30),
        default=1 << 30,
        help="with --replica, the size at which a binlog server rotates its binary log "
        "(mysqld's max_binlog_size; default 1073741824)",
    )
    p.add_argument(
        "--log-level",
        default="info",
        choices=["debug", "info", "warning", "error"],
        help="(default info)",
    )
    return p


def _spec_options(p: argparse.ArgumentParser) -> None:
    """An option for every setting of ClusterSpec that has a help text, with its default and
    range."""
    for name, default, declared in command_line_settings():
        bounds = declared.bounds
        if isinstance(default, int):
            kind = int if bounds is None else _positive_int(int(bounds.low), int(bounds.high))
        else:
            kind = _float_range(bounds.low, bounds.high, bounds.low_open)
        p.add_argument(
            f"--{name.replace('_', '-')}",
            type=kind,
            default=default,
            help=f"{declared.help}{f': {bounds}' if bounds else ''} (default {default:g})",
        )


def fault_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="ndbsim fault", description="Drive the control API of a running ndbsim.")
    p.add_argument(
        "--control-url",
        default=DEFAULT_CONTROL_URL,
        help=f"control API (default {DEFAULT_CONTROL_URL})",
    )
    sub = p.add_subparsers(dest="action", required=True, parser_class=_Parser)
    _node_faults(sub)
    _load_faults(sub)
    _growth_faults(sub)
    _capacity_faults(sub)
    _replication_faults(sub)
    s = sub.add_parser("clear", help="clear one fault")
    s.add_argument("name")
    sub.add_parser("list", help="active faults")
    sub.add_parser("reset", help="all nodes started, no faults")
    sub.add_parser("status", help="cluster status")
    sub.add_parser("replication", help="the replication link's epochs and threads")
    for action in sub.choices.values():
        if action.prog.split()[-1] != "replication":
            action.add_argument(
                "--cluster",
                choices=["source", "replica"],
                help="the cluster of ndbsim --replica to act on (default source; a link fault "
                "acts on the link from it with --active-active, else on the one link)",
            )
    return p


def _node_faults(sub) -> None:
    """The subcommands of the node, checkpoint, memory and connection faults."""
    for name in ("stop-node", "start-node"):
        s = sub.add_parser(name, help=f"{name.split('-')[0]} a node")
        s.add_argument("node_id", type=_positive_int(1, 255))
    sub.add_parser("lcp-stall", help="local checkpoints stop completing")
    for name in ("data-memory", "redo-log"):
        s = sub.add_parser(name, help=f"fill {name} to a share on every data node")
        s.add_argument("share", type=_float_range(0, 1))
    sub.add_parser("arbitrator-lost", help="data nodes lose the arbitrator")
    s = sub.add_parser("arbitration-denied", help="the arbitrator answers no after a failure")
    s.add_argument("--timeout", action="store_const", const=True, help="it does not answer")
    s = sub.add_parser("data-node-crash", help="a data node shuts down on an ndbd exit code")
    s.add_argument("node", type=_positive_int(1, 255), help="data node id")
    s.add_argument("--error", type=_positive_int(1, 65535), help="ndbd exit code (default 2341)")
    s.add_argument("--phase", type=_positive_int(1, START_PHASES), help="crash in this start phase")
    s = sub.add_parser("missed-heartbeats", help="a data node's heartbeats stop arriving")
    s.add_argument("node", type=_positive_int(1, 255), help="data node id")
    s.add_argument("--dies", action="store_const", const=True, help="declared dead by them")
    sub.add_parser("lcp-keep-gci-stall", help="the LCP stops in CALCULATED_KEEP_GCI")
    sub.add_parser("api-writes-only", help="SQL nodes only read, an NDB API application writes")
    s = sub.add_parser("sql-node-slot-taken", help="an SQL node moves to a free API slot")
    s.add_argument("node", type=_positive_int(1, 255), help="SQL node id")
    s = sub.add_parser("slow-ndbinfo", help="ndbinfo queries answer late")
    s.add_argument("seconds", type=_float_range(0, 600))
    s.add_argument("--table", help="only queries reading this ndbinfo table")
    sub.add_parser("refuse-connections", help="refuse new MySQL connections")
    sub.add_parser("drop-connections", help="drop connections when they send a query")


def _load_faults(sub) -> None:
    """The subcommands of the faults of the workload: links, locks, errors, latency, disk."""
    s = sub.add_parser("send-overload", help="overload the send buffers of a data node's links")
    s.add_argument("node", type=_positive_int(1, 255), help="data node id")
    s.add_argument("--remote", type=_positive_int(1, 255), help="only the link to this node")
    s = sub.add_parser(
        "job-buffer-congestion", help="a data node's LDM threads congest job buffers"
    )
    s.add_argument("node", type=_positive_int(1, 255), help="data node id")
    s = sub.add_parser("stuck-start", help="hold a data node's next start in a start phase")
    s.add_argument("node", type=_positive_int(1, 255), help="data node id")
    s.add_argument(
        "--phase",
        type=_positive_int(1, START_PHASES),
        help=f"start phase 1..{START_PHASES} (default {DEFAULT_STUCK_PHASE})",
    )
    s = sub.add_parser("primaries-away", help="move primaries off their preferred data node")
    s.add_argument("node", type=_positive_int(1, 255), help="data node id")
    s = sub.add_parser("long-transaction", help="a transaction holds row locks and stays idle")
    s.add_argument("--node", type=_positive_int(1, 255), help="data node id of its TC")
    s.add_argument("--locks", type=_positive_int(1, 1000), help="row locks it holds (default 5)")
    s = sub.add_parser("lock-contention", help="transactions queue for a hot row's lock")
    s.add_argument("--table", help="table name (default the busiest user table)")
    s.add_argument("--waiters", type=_positive_int(1, 1000), help="waiting requests (default 6)")
    s = sub.add_parser("operation-errors", help="operations of the data nodes end in an error")
    s.add_argument("--share", type=_float_range(0, 1), help="errors per success (default 0.2)")
    s = sub.add_parser("transaction-aborts", help="a share of the SQL nodes' transactions abort")
    s.add_argument(
        "--share",
        type=_float_range(0, 1),
        help=f"share of the transactions (default {DEFAULT_ABORT_SHARE})",
    )
    for name, what in (("slow-disk", "disk data page I/O"), ("latency-degradation", "TC")):
        s = sub.add_parser(name, help=f"{what} latency multiplied by a factor")
        s.add_argument("--factor", type=_float_range(1, 1000), help="(default 20)")
    s = sub.add_parser("send-buffer-pressure", help="fill a data node's send buffer memory")
    s.add_argument("node", type=_positive_int(1, 255), help="data node id")
    s.add_argument(
        "--share",
        type=_float_range(0, 1),
        help=f"share of its send buffer memory (default {DEFAULT_SEND_BUFFER_SHARE})",
    )
    s = sub.add_parser("tablespace-full", help="fill the disk data tablespace to a share")
    s.add_argument("share", type=_float_range(0, 1))
    s = sub.add_parser("certificate-expiring", help="bring a TLS certificate close to expiry")
    s.add_argument("days", type=_float_range(0, 3650), help="days until it expires")
    s.add_argument("--node", type=_positive_int(1, 255), help="only this node's certificate")


def _growth_faults(sub) -> None:
    """The subcommands of the faults that grow over time, of backups, of versions and of metadata sync."""
    for name, what in GROWTH.items():
        s = sub.add_parser(name, help=f"{what} grows steadily over cluster time")
        s.add_argument(
            "rate", type=_float_range(0, 1, low_open=True), help="share of the total per hour"
        )
        s.add_argument(
            "--share",
            type=_float_range(0, 1),
            help=f"lowest level when it starts (default {DEFAULT_GROWTH_SHARE})",
        )
    sub.add_parser("backups-stopped", help="scheduled backups stop: the backup id stays")
    for name, what in (("backup-abort", "abort"), ("backup-start-failure", "fail to start")):
        s = sub.add_parser(name, help=f"backups {what} with an NDB error")
        s.add_argument("--error", type=_positive_int(1, 65535), help="NDB error code")
    s = sub.add_parser("slow-backup", help="backups run this long before they complete")
    s.add_argument(
        "seconds", type=_float_range(0, 86400, low_open=True), help="cluster seconds per backup"
    )
    for name, what in (
        ("copy-alter", "a copying ALTER TABLE of the largest user table"),
        ("reorganize", "REORGANIZE PARTITION of the largest user table"),
    ):
        s = sub.add_parser(name, help=f"{what}, its rows moving over cluster seconds")
        s.add_argument(
            "seconds", type=_float_range(0, 86400, low_open=True), help="cluster seconds it takes"
        )
    sub.add_parser("mgm-down", help="the management server stops answering")
    sub.add_parser("start-backup", help="START BACKUP now (as ndb_mgm does)")
    sub.add_parser("drop-listeners", help="the management server drops its event listeners")
    for name, what in (("old-version", "NDB release"), ("old-config-generation", "configuration")):
        s = sub.add_parser(name, help=f"a data node still runs the previous {what}")
        s.add_argument("node", type=_positive_int(1, 255), help="data node id")
    s = sub.add_parser("metadata-excluded", help="exclude user tables from metadata sync")
    s.add_argument("tables", type=_positive_int(1, 1000), help="number of tables")


def _replication_faults(sub) -> None:
    """The subcommands of the faults of the replication link."""
    sub.add_parser("replica-sql-error", help="the replica's SQL thread stops on error 1032")
    sub.add_parser("replica-io-disconnect", help="the replica's I/O thread loses the source")
    s = sub.add_parser("replica-behind", help="the replica's applier trails the source")
    s.add_argument(
        "--seconds",
        type=_float_range(0, 86400, low_open=True),
        help=f"seconds behind (default {DEFAULT_BEHIND_SECONDS:g})",
    )
    s = sub.add_parser("subscriber-lag", help="the source's event buffer receives epochs late")
    late = s.add_mutually_exclusive_group()
    late.add_argument("--gcis", type=_positive_int(1, 100000), help="GCIs late (default 10)")
    late.add_argument("--epochs", type=_positive_int(1, 1_000_000), help="epochs (micro GCPs) late")
    s = sub.add_parser("injector-behind", help="the source's binlog injector falls behind")
    s.add_argument(
        "--gap",
        action="store_const",
        const=True,
        help="the event buffer overflows: a LOST_EVENTS incident stops the replica (1590)",
    )
    s = sub.add_parser("conflicts", help="the replica's SQL node finds rows in conflict")
    s.add_argument(
        "--function",
        choices=CONFLICT_FUNCTIONS,
        help="the conflict function (default NDB$EPOCH2; the _TRANS ones move Ndb_conflict_trans_*)",
    )


def _capacity_faults(sub) -> None:
    """The subcommands of the cache, buffer, pool and global checkpoint faults."""
    s = sub.add_parser("disk-page-buffer-misses", help="disk page requests miss the cache")
    s.add_argument(
        "--share",
        type=_float_range(0, 1),
        help=f"share served from the cache (default {DEFAULT_DISK_PAGE_BUFFER_HITS})",
    )
    sub.add_parser("gcp-stall", help="the global checkpoint stops: the GCI and epoch stay")
    sub.add_parser("gcp-save-lag", help="GCP_SAVE lags: the GCI stays, micro GCPs go on")
    s = sub.add_parser("resource-pool", help="fill a resource pool with a fixed limit")
    s.add_argument("share", type=_float_range(0, 1), help="share of its limit")
    s.add_argument("--resource", choices=list(POOLS), help=f"(default {DEFAULT_POOL})")
    s = sub.add_parser("buffer-full", help="fill a buffer of every data node to a share")
    s.add_argument("buffer", choices=list(BUFFERS))
    s.add_argument("share", type=_float_range(0, 1))


def run_fault(args: argparse.Namespace) -> int:
    url = args.control_url.rstrip("/")
    action = args.action
    cluster = getattr(args, "cluster", None)
    if action in ("stop-node", "start-node"):
        method, path, body = "POST", f"/nodes/{args.node_id}/{action.split('-')[0]}", None
    elif action == "clear":
        method, path, body = "DELETE", f"/faults/{args.name}", None
    elif action == "list":
        method, path, body = "GET", "/faults", None
    elif action == "reset":
        method, path, body = "POST", "/reset", None
    elif action == "status":
        method, path, body = "GET", "/status", None
    elif action == "replication":
        method, path, body = "GET", "/replication", None
    elif action == "start-backup":
        method, path, body = "POST", "/backups", None
    elif action == "drop-listeners":
        method, path, body = "POST", "/mgm/drop-listeners", None
    else:  # a fault: the subcommand's arguments are its parameters
        ignored = ("control_url", "action", "cluster")
        body = {k: v for k, v in vars(args).items() if k not in ignored and v is not None} or None
        method, path = "PUT", f"/faults/{action}"
    params = {"cluster": cluster} if cluster else None
    try:
        response = httpx.request(method, url + path, json=body, params=params, timeout=30.0)
    except httpx.HTTPError as e:
        print(f"ndbsim fault: cannot reach {url}: {e}", file=sys.stderr)
        return 1
    try:
        payload = response.json()
    except ValueError:
        payload = {"detail": response.text.strip()}
    if response.status_code >= 400:
        print(f"ndbsim fault: {payload.get('detail', response.reason_phrase)}", file=sys.stderr)
        return 1
    if action == "list":
        payload = payload["active"]
    print(json.dumps(payload, indent=2, sort_keys=True))
    return 0


def _bound_socket(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(128)
    sock.setblocking(False)
    return sock


async def _serve(args: argparse.Namespace, password: str) -> None:
    import uvicorn
    from ndbsim.control.api import create_app
    from ndbsim.engine import model_tables
    from ndbsim.engine.catalog import catalog_for
    from ndbsim.engine.database import Engine
    from ndbsim.model.cluster import Cluster
    from ndbsim.model.replication import ReplicationLink
    from ndbsim.protocol import server
    from ndbsim.protocol.mgm import server as mgm_server

    version = versions.parse_version(args.ndb_version)
    cluster = Cluster(_spec(args), version)
    replica = Cluster(_replica_spec(args), version) if args.replica else None
    link = back = None
    first_position = 154 if version.is_7x else 157
    if replica is not None:
        link = ReplicationLink(
            cluster, replica, first_position, args.binlog_servers, args.max_binlog_size
        )
    if replica is not None and args.active_active:
        back = ReplicationLink(replica, cluster, first_position, 1, args.max_binlog_size)
    engine = Engine(catalog_for(version))
    replica_engine = Engine(catalog_for(version)) if replica is not None else None
    for each_cluster, each_engine in ((cluster, engine), (replica, replica_engine)):
        if each_cluster is not None:
            model_tables.sync(each_cluster, each_engine)
    control_sock = _bound_socket(args.host, args.control_port)
    control_port = control_sock.getsockname()[1]
    app = create_app(
        cluster, engine.meter, replica, replica_engine.meter if replica_engine else None
    )
    uv = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off"))
    uv.install_signal_handlers = lambda: None  # type: ignore[method-assign]

    async def listen(each_cluster, each_engine, port: int):
        return await server.start_sql_nodes(
            each_engine,
            each_cluster,
            args.host,
            port,
            args.user,
            password,
            max_connections=args.max_connections,
            connect_timeout=args.connect_timeout,
        )

    servers = await listen(cluster, engine, args.port)
    mysql_port = _listening_port(servers[0], args.port)
    ready = (
        f"ndbsim ready: mysql={args.host}:{mysql_port} control=http://{args.host}:{control_port}"
    )
    nodes = _node_endpoints("sql", cluster, servers, args.host)
    if link is not None:
        ports = [_listening_port(each, 0) for each in servers]
        link.listen_at(args.host, dict(zip(cluster.sql_node_ids, ports, strict=True)))
        wanted = args.replica_port
        if wanted is None:
            wanted = args.port and args.port + args.sql_nodes
        replica_servers = await listen(replica, replica_engine, wanted)
        servers += replica_servers
        link.replica_port = _listening_port(replica_servers[0], wanted)
        if back is not None:
            back_ports = [_listening_port(each, 0) for each in replica_servers]
            back.listen_at(args.host, dict(zip(replica.sql_node_ids, back_ports, strict=True)))
            back.replica_port = mysql_port
        ready += f" replica={args.host}:{link.replica_port}"
        ready += f" {nodes} " + _node_endpoints("replica_sql", replica, replica_servers, args.host)
    else:
        ready += f" {nodes}"
    if args.mgm_port is not None:
        mgm = await mgm_server.start(cluster, args.host, args.mgm_port)
        servers.append(mgm)
        ready += f" mgm={args.host}:{mgm.sockets[0].getsockname()[1]}"
    log.info("NDB %s, %d data nodes, %d tables", version.series, args.data_nodes, args.tables)
    print(ready, flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    tasks = [asyncio.create_task(uv.serve(sockets=[control_sock]))]
    await stop.wait()
    uv.should_exit = True
    for each in servers:
        each.close()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


def _node_endpoints(prefix: str, cluster, servers: list, host: str) -> str:
    """PREFIXNODE=HOST:PORT of each SQL node, for the ready line (sql50=127.0.0.1:3306)."""
    return " ".join(
        f"{prefix}{node_id}={host}:{_listening_port(each, 0)}"
        for node_id, each in zip(cluster.sql_node_ids, servers, strict=True)
    )


def _listening_port(mysql_server: object, fallback: int) -> int:
    sockets = getattr(mysql_server, "sockets", None)
    if callable(sockets):
        found = sockets()
        if found:
            return found[0].getsockname()[1]
    inner = getattr(mysql_server, "_server", None)
    if inner is not None and inner.sockets:
        return inner.sockets[0].getsockname()[1]
    return fallback


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "fault":
        return run_fault(fault_parser().parse_args(argv[1:]))
    parser = serve_parser()
    args = parser.parse_args(argv)
    password = (
        args.password if args.password is not None else os.environ.get("NDBSIM_PASSWORD", "ndbsim")
    )
    logging.basicConfig(
        level=args.log_level.upper(), format="%(asctime)s %(levelname)s %(message)s"
    )
    if args.port and args.port + args.sql_nodes * (2 if args.replica else 1) > 65536:
        parser.error("--port leaves no room for a port per SQL node; give a lower --port")
    if args.binlog_servers > args.sql_nodes:
        parser.error(f"--binlog-servers {args.binlog_servers} is more than --sql-nodes")
    if args.active_active and not args.replica:
        parser.error("--active-active needs --replica")
    overlap = args.replica_port and abs(args.replica_port - args.port) < args.sql_nodes
    if args.replica and args.port and overlap:
        parser.error(
            f"--replica-port {args.replica_port} is one of the source's SQL node ports "
            f"({args.port}..{args.port + args.sql_nodes - 1})"
        )
    try:
        _check_model(args)
    except ValueError as e:
        parser.error(str(e).splitlines()[0])
    try:
        asyncio.run(_serve(args, password))
    except OSError as e:
        print(f"ndbsim: error: {e.strerror or e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        pass
    return 0


def _spec(args: argparse.Namespace) -> ClusterSpec:
    config: dict[str, str] = {}
    for item in args.config:
        o = parse_override(item)
        config[o.name + (f"@{o.node_id}" if o.node_id is not None else "")] = o.value
    settings = {name: getattr(args, name) for name, _, _ in command_line_settings()}
    return ClusterSpec(**settings, config=config)


def _replica_spec(args: argparse.Namespace) -> ClusterSpec:
    """The replica cluster: the same layout and options, its own seed and name, a quarter of
    the application's load (the applier's writes come from the link)."""
    spec = _spec(args)
    spec.seed += 1
    spec.system_name = REPLICA_SYSTEM_NAME
    spec.ops_per_second /= 4
    return spec


def _check_model(args: argparse.Namespace) -> None:
    """Validate the layout and --config (names, values, nodes) before anything listens."""
    spec = _spec(args)
    spec.validate()
    build_config(spec, versions.parse_version(args.ndb_version))
