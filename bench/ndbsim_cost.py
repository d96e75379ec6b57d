"""Cost of ndbsim's own statements: what each statement of a steady scrape costs as the
simulated cluster grows, and what that makes of the scrape.

    python bench/ndbsim_cost.py [--sizes 2,8,16,48] [--tables 2000] [--runs 20] [--scrapes 10]
    python bench/ndbsim_cost.py --tail [--data-nodes 48] [--tables 2000] [--runs 100]

The first form starts ndbsim at each size and runs, with mysql-connector alone, every
statement the exporter's steady scrape sends (the change signal and the default collectors
that are not slowly changing, as the collectors give them for ndbsim's version) ``--runs``
times back-to-back, and prints the median of each at each size and the slowest run of all.
Then it starts ndbsim and the exporter at 8 and 48 data nodes side by side and alternates
``--scrapes`` steady scrapes of /metrics between them (after a first complete scrape of
each), so that both see the same machine: the median of each and their ratio.

The second form, at one size after the first scrape, runs ``SELECT node_id, status FROM
ndbinfo.nodes`` and ``SELECT * FROM ndbinfo.backup_id`` ``--runs`` times back-to-back (over
several cluster seconds), first alone and then with a scrape and a read of the view's
placement between every tenth run, and prints the median and the slowest of each.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path

import httpx
import mysql.connector
from ndbinfo_exporter.scrape.refresh import SIGNAL_SQL
from ndbsim.testing import running_ndbsim

sys.path.insert(0, str(Path(__file__).resolve().parent))
from scrape import complete_scrape, exporter_process, run, scrape, statements

SCRAPE_SIZES = (8, 48)
# the first read of the distribution at 48 x 2,000 may outlast several scrape timeouts
FIRST_SCRAPE_ATTEMPTS = 20
PLACEMENT = "/api/v1/placement?per_page=50"
ONE_ROW = (
    "SELECT node_id, status FROM ndbinfo.nodes",
    "SELECT * FROM ndbinfo.backup_id",
)


def connect(sim) -> mysql.connector.MySQLConnection:
    return mysql.connector.connect(
        host=sim.host, port=sim.port, user=sim.user, password=sim.password
    )


def timed(action: Callable[[], object], runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return times


def steady_statements(connection) -> list[tuple[str, object, str, tuple | None]]:
    """(name, collector, SQL, parameters) of what a steady scrape sends: the change signal
    and the default collectors that are not slowly changing."""
    chosen = statements(connection, enabled_only=True)
    return [
        ("change signal", None, SIGNAL_SQL, None),
        *((c.name, c, sql, params) for c, sql, params in chosen if not c.slow),
    ]


def statement_times(sizes: list[int], tables: int, runs: int, version: str) -> None:
    medians: dict[str, dict[int, float]] = {}
    slowest: dict[int, float] = {}
    for data_nodes in sizes:
        with running_ndbsim(ndb_version=version, data_nodes=data_nodes, tables=tables) as sim:
            connection = connect(sim)
            chosen = steady_statements(connection)
            for _, collector, sql, params in chosen:  # the first read of each, at start-up
                run(connection, collector, sql, params)
            slowest[data_nodes] = 0.0
            for name, collector, sql, params in chosen:

                def once(c=collector, s=sql, p=params, conn=connection) -> int:
                    return run(conn, c, s, p)

                times = timed(once, runs)
                medians.setdefault(name, {})[data_nodes] = statistics.median(times)
                slowest[data_nodes] = max(slowest[data_nodes], max(times))
            connection.close()
    print(
        f"ndbsim {version}, {tables} tables: median ms of {runs} back-to-back runs of each"
        " statement of a steady scrape (mysql-connector alone)"
    )
    header = "".join(f" {f'{n} nodes':>9s}" for n in sizes)
    print(f"{'statement':20s}{header} {f'{sizes[-1]}/{sizes[0]}':>8s}")
    for name, by_size in medians.items():
        cells = "".join(f" {by_size[n] * 1000:9.1f}" for n in sizes)
        print(f"{name:20s}{cells} {by_size[sizes[-1]] / by_size[sizes[0]]:7.1f}x")
    cells = "".join(f" {slowest[n] * 1000:9.1f}" for n in sizes)
    print(f"{'slowest run':20s}{cells}")


def scrape_ratio(tables: int, scrapes: int, version: str) -> None:
    with ExitStack() as stack:
        urls = {}
        for data_nodes in SCRAPE_SIZES:
            sim = stack.enter_context(
                running_ndbsim(
                    ndb_version=version,
                    data_nodes=data_nodes,
                    tables=tables,
                    startup_timeout=300,
                )
            )
            urls[data_nodes] = stack.enter_context(exporter_process(sim))[1]
        for url in urls.values():
            complete_scrape(url, FIRST_SCRAPE_ATTEMPTS)  # connections, detection, slow collectors
        times: dict[int, list[float]] = {n: [] for n in SCRAPE_SIZES}
        for _ in range(scrapes):
            for data_nodes, url in urls.items():
                times[data_nodes].append(scrape(url)[0])
    small, large = (statistics.median(times[n]) for n in SCRAPE_SIZES)
    print(
        f"steady /metrics, {tables} tables, {scrapes} scrapes each, alternated:"
        f" {SCRAPE_SIZES[0]} data nodes {small * 1000:.0f} ms,"
        f" {SCRAPE_SIZES[1]} data nodes {large * 1000:.0f} ms, ratio {large / small:.2f}x"
    )


def tail(data_nodes: int, tables: int, runs: int, version: str) -> None:
    with (
        running_ndbsim(
            ndb_version=version, data_nodes=data_nodes, tables=tables, startup_timeout=300
        ) as sim,
        exporter_process(sim) as (_, url),
        httpx.Client(timeout=300) as client,
    ):
        scrape(url)  # the first scrape: connections, detection, the first reads
        base = url.removesuffix("/metrics")
        connection = connect(sim)

        def statement_times(sql: str, interleaved: bool) -> list[float]:
            """Times of the statement alone; with ``interleaved``, a scrape and a placement
            read come before every tenth run (not timed)."""
            times = []
            for count in range(1, runs + 1):
                if interleaved and count % 10 == 0:
                    scrape(url)
                    client.get(base + PLACEMENT)
                started = time.perf_counter()
                run(connection, None, sql, None)
                times.append(time.perf_counter() - started)
            return times

        print(f"ndbsim {version}, {data_nodes} data nodes x {tables} tables, {runs} runs each")
        print(f"{'statement':44s} {'between':>22s} {'median ms':>10s} {'slowest ms':>11s}")
        for sql in ONE_ROW:
            for between, interleaved in (("nothing", False), ("a scrape and placement", True)):
                times = statement_times(sql, interleaved)
                print(
                    f"{sql:44s} {between:>22s} {statistics.median(times) * 1000:10.1f}"
                    f" {max(times) * 1000:11.1f}"
                )
        connection.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tail", action="store_true", help="slowest of one-row statements")
    parser.add_argument("--sizes", default="2,8,16,48", help="data node counts")
    parser.add_argument("--tables", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=None, help="runs of each statement")
    parser.add_argument("--scrapes", type=int, default=10, help="steady scrapes at 8 and 48")
    parser.add_argument("--data-nodes", type=int, default=48, help="--tail: data nodes")
    parser.add_argument("--ndb-version", default="8.4")
    args = parser.parse_args()
    if args.tail:
        tail(args.data_nodes, args.tables, args.runs or 100, args.ndb_version)
        return
    sizes = [int(size) for size in args.sizes.split(",")]
    statement_times(sizes, args.tables, args.runs or 20, args.ndb_version)
    if args.scrapes:
        scrape_ratio(args.tables, args.scrapes, args.ndb_version)


if __name__ == "__main__":
    main()
