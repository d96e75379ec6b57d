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

The second form, at one size after the first complete scrape, runs ``SELECT node_id, status
FROM ndbinfo.nodes`` and ``SELECT * FROM ndbinfo.backup_id`` ``--runs`` times back-to-back
(over several cluster seconds), first alone and then while another thread scrapes /metrics and
reads the view's placement without pause, and prints the median, the slowest and the runs over
``SLOW_MS`` of each, and how many scrapes and placement reads ran alongside.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import threading
import time
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path

import httpx
import mysql.connector
from ndb_harness import running_ndbsim
from ndbinfo_exporter.scrape.refresh import SIGNAL_SQL

sys.path.insert(0, str(Path(__file__).resolve().parent))
from scrape import complete_scrape, exporter_process, run, scrape, statements

SCRAPE_SIZES = (8, 48)
# the first read of the distribution at 48 x 2,000 may outlast several scrape timeouts
FIRST_SCRAPE_ATTEMPTS = 20
PLACEMENT = "/api/v1/placement?per_page=50"
SLOW_MS = 50
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
        # the first scrape: connections, detection, the first reads of every collector
        try:
            complete_scrape(url, FIRST_SCRAPE_ATTEMPTS)
        except RuntimeError as e:
            print(f"note: {e}; measuring anyway")
        placement = url.removesuffix("/metrics") + PLACEMENT
        connection = connect(sim)

        def one_row_times(sql: str) -> list[float]:
            return timed(lambda: run(connection, None, sql, None), runs)

        def alongside(sql: str) -> tuple[list[float], int]:
            """Times of the statement while scrapes and placement reads run without pause on
            another thread, and how many of them ran (a scrape and a placement read each)."""
            done = threading.Event()
            rounds = [0]

            def load() -> None:
                while not done.is_set():
                    scrape(url)
                    client.get(placement)
                    rounds[0] += 1

            loader = threading.Thread(target=load)
            loader.start()
            try:
                times = one_row_times(sql)
            finally:
                done.set()
                loader.join()
            return times, rounds[0]

        print(f"ndbsim {version}, {data_nodes} data nodes x {tables} tables, {runs} runs each")
        print(
            f"{'statement':44s} {'alongside':>28s} {'median ms':>10s} {'slowest ms':>11s}"
            f" {f'> {SLOW_MS} ms':>8s}"
        )
        for sql in ONE_ROW:
            cases = (("nothing", one_row_times(sql)),)
            times, rounds = alongside(sql)
            cases += ((f"{rounds} scrapes and placements", times),)
            for between, times in cases:
                over = sum(t * 1000 > SLOW_MS for t in times)
                print(
                    f"{sql:44s} {between:>28s} {statistics.median(times) * 1000:10.1f}"
                    f" {max(times) * 1000:11.1f} {over:8d}"
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
