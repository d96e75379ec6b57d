"""ndb-loadgen: load for MySQL NDB Cluster with the workloads of the NDB tuning guide.

ndb-loadgen [--host H] [--workload pk-read,scan-pruned] [--duration 60] ...
ndb-loadgen sysbench [prepare|run|cleanup] [--host H] ...
"""

from __future__ import annotations

import argparse
import os
import sys

from . import report, runner, schema, sysbench
from .target import ConnectionSpec, TargetError, connect, detect
from .workloads import WORKLOADS

PASSWORD_ENV = "NDB_LOADGEN_PASSWORD"
DEFAULT_DURATION = 60.0


class OptionError(Exception):
    """A bad option; main prints it as one line and exits 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):
        raise OptionError(message)


def _positive(kind):
    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
        if value <= 0:
            raise argparse.ArgumentTypeError(f"must be greater than 0: {text!r}")
        return value

    return parse


def _connection_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1", help="SQL node (default 127.0.0.1)")
    parser.add_argument("--port", type=_positive(int), default=3306, help="(default 3306)")
    parser.add_argument("--user", default="loadgen", help="(default loadgen)")
    parser.add_argument(
        "--password", default=None, help=f"default: the {PASSWORD_ENV} environment variable"
    )
    parser.add_argument("--database", default="loadgen", help="(default loadgen)")
    parser.add_argument(
        "--threads", type=_positive(int), default=1, help="connections per workload (default 1)"
    )


def _parser() -> _Parser:
    parser = _Parser(prog="ndb-loadgen", description=__doc__.splitlines()[0])
    _connection_options(parser)
    parser.add_argument(
        "--workload", default=None, help=f"comma-separated, default all: {','.join(WORKLOADS)}"
    )
    parser.add_argument(
        "--mix",
        default=None,
        help="shares of --rate, e.g. pk-read=8,pk-write=2 (default: equal shares)",
    )
    parser.add_argument(
        "--rate",
        type=float,
        default=0.0,
        help="statements per second, all workloads (default 0: unpaced)",
    )
    parser.add_argument(
        "--duration",
        type=_positive(float),
        default=None,
        help="seconds (default 60 without --count)",
    )
    parser.add_argument(
        "--count",
        type=_positive(int),
        default=None,
        help="statements per workload (default: none, run for --duration)",
    )
    parser.add_argument(
        "--customers", type=_positive(int), default=10_000, help="table size (default 10000)"
    )
    return parser


def _sysbench_parser() -> _Parser:
    parser = _Parser(prog="ndb-loadgen sysbench", description=sysbench.__doc__.splitlines()[0])
    parser.add_argument(
        "phase", nargs="?", choices=sysbench.PHASES, default="run", help="(default run)"
    )
    _connection_options(parser)
    parser.add_argument("--duration", type=_positive(int), default=60, help="seconds (default 60)")
    parser.add_argument(
        "--rate", type=int, default=0, help="transactions per second (default 0: unpaced)"
    )
    return parser


def _spec(args) -> ConnectionSpec:
    password = args.password if args.password is not None else os.environ.get(PASSWORD_ENV, "")
    return ConnectionSpec(args.host, args.port, args.user, password, args.database)


def _plan(args) -> runner.Plan:
    names = args.workload.split(",") if args.workload else None
    weights: dict[str, float] = {}
    if args.mix:
        for item in args.mix.split(","):
            name, _, weight = item.partition("=")
            try:
                weights[name] = float(weight)
            except ValueError:
                raise OptionError(f"--mix: {item!r} is not NAME=WEIGHT") from None
            if weights[name] <= 0:
                raise OptionError(f"--mix: the weight of {name} must be greater than 0")
        if not args.rate:
            raise OptionError("--mix sets shares of --rate: give --rate too")
        names = names or list(weights)
    names = names or list(WORKLOADS)
    for name in [*names, *weights]:
        if name not in WORKLOADS:
            raise OptionError(f"unknown workload {name!r}; known: {', '.join(WORKLOADS)}")
    if not set(weights) <= set(names):
        raise OptionError("--mix names a workload that --workload does not select")
    if args.rate < 0:
        raise OptionError("--rate must not be negative")
    total = sum(weights.get(n, 1.0) for n in names)
    rates = {n: args.rate * weights.get(n, 1.0) / total for n in names} if args.rate else {}
    return runner.Plan(
        workloads=[WORKLOADS[n] for n in dict.fromkeys(names)],
        threads=args.threads,
        rates=rates,
        duration=args.duration or (None if args.count else DEFAULT_DURATION),
        count=args.count,
        customers=args.customers,
    )


def _prepare(spec: ConnectionSpec, customers: int):
    conn = connect(spec, database=False)
    cur = conn.cursor()
    cur.execute(f"CREATE DATABASE IF NOT EXISTS `{spec.database}`")
    cur.execute(f"USE `{spec.database}`")
    cur.close()
    target = detect(conn)
    layout = schema.create(conn, target)
    schema.seed(conn, customers)
    conn.close()
    return target, layout


def run(argv: list[str]) -> int:
    if argv[:1] == ["sysbench"]:
        args = _sysbench_parser().parse_args(argv[1:])
        spec = _spec(args)
        return sysbench.execute(
            sysbench.command(spec, args.threads, args.duration, args.rate, args.phase)
        )
    args = _parser().parse_args(argv)
    plan = _plan(args)
    spec = _spec(args)
    print(f"ndb-loadgen: {spec.describe()}", flush=True)
    target, layout = _prepare(spec, plan.customers)
    for line in report.describe_target(target, layout):
        print(line, flush=True)
    results = runner.run(spec, plan, measure_ndb=target.ndb)
    for line in report.table(results, target.ndb):
        print(line)
    return 0


def main(argv: list[str] | None = None) -> int:
    import mysql.connector

    try:
        return run(sys.argv[1:] if argv is None else argv)
    except OptionError as exc:
        print(f"ndb-loadgen: {exc}", file=sys.stderr)
        return 2
    except TargetError as exc:
        print(f"ndb-loadgen: {exc}", file=sys.stderr)
        return 1
    except mysql.connector.Error as exc:
        print(f"ndb-loadgen: {exc.errno}: {exc.msg}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
