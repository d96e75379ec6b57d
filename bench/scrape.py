"""Cost of a scrape against ndbsim: time against the floor of the same SQL, series, and the
ndbinfo rows it makes the data nodes read.

    python bench/scrape.py [--scrapes 40] [--data-nodes 8] [--tables 2000] [--ndb-version 8.4]
    python bench/scrape.py --series
    python bench/scrape.py --rows [--interval 15] [--window 330] [--data-nodes 8] [--tables 2000]
    python bench/scrape.py --side-by-side 8,48 [--interval 15] [--window 330] [--tables 2000]

The first form starts ndbsim and the exporter (as a real process; ndbsim on one CPU, the
exporter and the floor on the other, as if the cluster ran elsewhere), times N steady scrapes
of /metrics, then times the floor: the statements the exporter runs in a steady scrape (the
change signals, the default collectors that are not slowly changing, and the latency
histograms once they count activity, which the exporter reads at every scrape; the other
slowly changing collectors are served from their last read until a change signal) executed
by a separate process with mysql-connector alone, fetching every row, with the exporter's
concurrency (one connection per worker, --exporter.max-connections workers, a cursor per
connection). The floor process first imports what the exporter has imported when it serves
(its command, FastAPI, uvicorn, pydantic: EXPORTER_STACK), so that the two processes'
memory compares like with like. Scrapes and floor rounds alternate, and the ratio is the
median of each scrape's time over the floor round that follows it: the simulated cluster's
own work (checkpoint rounds rewriting its tables) drifts over a run, and pairing cancels that
drift. It prints the scrape time, the floor, their ratio, the series count, the CPU time of
the exporter per scrape and of the floor per round, the rows and time of each collector's
statement, and the resident memory of both processes. The second form prints
the series count per collector for 2, 8, 16 and 48 data nodes with 200 tables, once ndbsim
has written its latency histograms (the steady state, not the first scrape). The third
reads ndbsim's cost meter (GET /stats): the ndbinfo base-table rows of the first scrape, and
the average per ndbinfo table and the largest scrape over a window longer than the maximum
age (a scrape every 15 s for 330 s by default). The fourth does what the third does at each
number of data nodes in turn, in one run, and sets the steady rows by table, the largest
steady scrape and the median steady scrape time side by side.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import os
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from queue import Queue

import httpx
import mysql.connector
from ndb_harness import running_exporter, running_ndbsim
from ndbinfo_exporter.collectors.base import Collector, Context, TargetInfo
from ndbinfo_exporter.collectors.registry import all_collectors
from ndbinfo_exporter.scrape.refresh import (
    LINKS_LIMIT,
    SIGNAL_SQL,
    Refresher,
    follows_links,
    links_sql,
    parse_signals,
)
from ndbinfo_exporter.scrape.sql_node import detect
from prometheus_client.openmetrics.parser import text_string_to_metric_families

MAX_CONNECTIONS = 3  # the exporter's default --exporter.max-connections
WARM_UP_TIMEOUT = 120  # seconds for the first scrape, which reads every collector
HISTOGRAM_PERIOD = 10  # cluster seconds between ndbsim's writes of its time-track tables
SERVER_CPU, CLIENT_CPU = 0, 1
# What the exporter has imported once it serves (python -X importtime -m ndbinfo_exporter.cli):
# its command and web app, what FastAPI imports while it declares the routes, and what
# uvicorn loads when its server starts.
EXPORTER_STACK = (
    "ndbinfo_exporter.cli",
    "ndbinfo_exporter.app",
    "pydantic.v1",
    "uvicorn.lifespan.on",
    "uvicorn.protocols.websockets.auto",
)


def rss_kib(pid: int) -> tuple[int, int]:
    """(VmRSS, VmHWM) of a process in KiB."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            fields[key] = int(value.split()[0])
    return fields["VmRSS"], fields["VmHWM"]


def pin(pid: int, cpu: int) -> None:
    """Keep a process (and its threads) on one CPU. ndbsim gets one core and the client being
    measured (exporter or floor) the other, as in a deployment where the cluster runs on
    other machines: otherwise the client's own CPU use would slow the simulated SQL node
    down and count twice."""
    for task in Path(f"/proc/{pid}/task").iterdir():
        os.sched_setaffinity(int(task.name), {cpu})


def cpu_seconds(pid: int) -> float:
    """CPU time the threads of a process have used, to the nanosecond (schedstat; the clock
    ticks of /proc/PID/stat are 10 ms, a tenth of a scrape)."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(FileNotFoundError):  # a thread that has just ended
            total += int((task / "schedstat").read_text().split()[0])
    return total / 1e9


@contextmanager
def exporter_process(sim):
    """The exporter in front of ``sim``, pinned to the client CPU; yields (process, url)."""
    # The first read of a large cluster's distribution may take longer than the default
    # query timeout (10 s) on a busy machine; a steady scrape takes far less.
    args = [
        f"--mysqld.address={sim.host}:{sim.port}",
        f"--mysqld.username={sim.user}",
        f"--exporter.query-timeout={WARM_UP_TIMEOUT}",
    ]
    with running_exporter(args, {"NDB_EXPORTER_PASSWORD": sim.password}) as exporter:
        pin(exporter.process.pid, CLIENT_CPU)
        yield exporter.process, f"http://{exporter.address}/metrics"


# One keep-alive client, as Prometheus keeps its connection to a target: creating a client per
# request would add its own set-up (about 20 ms) to every scrape time. It asks for what
# Prometheus asks for (captured from Prometheus 2.42): OpenMetrics, gzip-compressed.
PROMETHEUS_HEADERS = {
    "Accept": "application/openmetrics-text;version=1.0.0,application/openmetrics-text;"
    "version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1",
    "Accept-Encoding": "gzip",
}
CLIENT = httpx.Client(timeout=60, headers=PROMETHEUS_HEADERS)


def scrape(url: str, timeout: float | None = None) -> tuple[float, str]:
    """One scrape; ``timeout``: the scrape timeout Prometheus would send (the exporter's
    default, 10 s, without it)."""
    headers = {"X-Prometheus-Scrape-Timeout-Seconds": str(timeout)} if timeout else None
    started = time.perf_counter()
    response = CLIENT.get(url, headers=headers)
    response.raise_for_status()
    return time.perf_counter() - started, response.text


def complete_scrape(url: str, attempts: int = 5) -> str:
    """The exposition of the first scrape in which every collector succeeded: the first read
    of a large cluster's distribution state may outlast the scrape timeout on a busy machine,
    and is read again at the next scrape."""
    failing: list[str] = []
    for _ in range(attempts):
        text = scrape(url, WARM_UP_TIMEOUT)[1]
        success = {
            sample.labels["collector"]: sample.value
            for family in text_string_to_metric_families(text)
            if family.name == "ndb_exporter_collector_success"
            for sample in family.samples
        }
        failing = sorted(name for name, value in success.items() if value != 1)
        if success and not failing:
            return text
    raise RuntimeError(f"collectors kept failing in {attempts} scrapes: {', '.join(failing)}")


def series_by_collector(exposition: str) -> dict[str, int]:
    owner = {spec.name: c.name for c in all_collectors() for spec in c.metrics}
    counts: dict[str, int] = {}
    for family in text_string_to_metric_families(exposition):
        name = owner.get(family.name, owner.get(family.name + "_total", "exporter"))
        counts[name] = counts.get(name, 0) + len(family.samples)
    return counts


# --- the floor: a separate process running the same statements with mysql-connector --------


def statements(info: TargetInfo, enabled_only: bool) -> list[tuple[Collector, str, tuple | None]]:
    chosen = []
    for collector in all_collectors():
        if (enabled_only and not collector.default_enabled) or not collector.available(info):
            continue
        collector = collector.for_target(info)
        context = Context(target=info, options={o.name: o.default for o in collector.options})
        params = collector.params(context) if collector.params else None
        chosen.append((collector, collector.statement(info), params))
    return chosen


def run(cursor, collector: Collector | None, sql: str, params) -> list[tuple]:
    """Execute and fetch every row (tuples) with the connector's plain cursor; no row when
    what the collector reads does not exist yet (its ``absent_errors``), as in a scrape."""
    try:
        cursor.execute(sql, params)
        return cursor.fetchall()
    except mysql.connector.errors.DatabaseError as exc:
        if collector is None or exc.errno not in collector.absent_errors:
            raise
        return []


def named_rows(cursor, rows: list[tuple]) -> list[dict]:
    """Rows of the cursor's last statement as the collectors read them (column -> value)."""
    return [dict(zip(cursor.column_names, row, strict=True)) for row in rows]


def signal_statements(
    cursor, info: TargetInfo, slow: list[Collector]
) -> list[tuple[None, str, None]]:
    """The change signals of a steady scrape: SIGNAL_SQL, and where a default collector
    follows the links signal, the links statement with as many rows as the exporter asks
    for once it has read them (``Refresher.links_limit``)."""
    signals = [(None, SIGNAL_SQL, None)]
    if follows_links(slow):
        details = "transporter_details" in info.objects
        links = named_rows(cursor, run(cursor, None, links_sql(LINKS_LIMIT, details), None))
        refresher = Refresher("floor", max_age=0)
        refresher.observe(parse_signals([], links=links))
        signals.append((None, links_sql(refresher.links_limit(slow), details), None))
    return signals


def import_exporter_stack() -> None:
    """Import what the exporter has imported when it serves, so that the floor process's
    memory starts where the exporter's does."""
    for module in EXPORTER_STACK:
        importlib.import_module(module)


def floor_worker(host: str, port: int, user: str) -> None:
    """Answers commands on stdin with one JSON line each: "round" runs the statements of a
    steady scrape once with the exporter's concurrency and gives its time: the change
    signals, the default collectors that are not slowly changing, and those whose rows count
    activity (the latency histograms) while their last rows counted some, as the exporter
    reads them at every scrape; "collectors" gives the rows and sequential time of every
    collector's statement; "memory" gives this process's RSS. The process imports the
    exporter's stack first, and keeps a cursor per connection as the exporter does."""
    import_exporter_stack()
    password = os.environ["NDB_BENCH_PASSWORD"]
    connections = [
        mysql.connector.connect(host=host, port=port, user=user, password=password)
        for _ in range(MAX_CONNECTIONS)
    ]
    cursors: Queue = Queue()  # a cursor holds its connection weakly: ``connections`` keeps them
    for connection in connections:
        cursors.put(connection.cursor())
    info = detect(connections[0])
    default = statements(info, enabled_only=True)
    slow = [c for c, _, _ in default if c.slow]
    probe = cursors.get()
    steady = signal_statements(probe, info, slow) + [s for s in default if not s[0].slow]
    cursors.put(probe)
    counting = [s for s in default if s[0].slow and s[0].slow.idle]
    idle: dict[str, bool] = {}  # collector -> whether its last rows counted nothing
    every = statements(info, enabled_only=False)

    def job(statement) -> None:
        cursor = cursors.get()
        try:
            rows = run(cursor, *statement)
            collector = statement[0]
            if collector is not None and collector.slow is not None:
                idle[collector.name] = collector.slow.idle(named_rows(cursor, rows))
        finally:
            cursors.put(cursor)

    def one_round() -> float:
        started = time.perf_counter()
        list(pool.map(job, steady + [s for s in counting if not idle.get(s[0].name)]))
        return time.perf_counter() - started

    def per_collector() -> dict:
        cursor = cursors.get()
        stats = {}
        for collector, sql, params in every:
            times = []
            for _ in range(5):
                started = time.perf_counter()
                rows = len(run(cursor, collector, sql, params))
                times.append(time.perf_counter() - started)
            stats[collector.name] = {
                "rows": rows,
                "seconds": statistics.median(times),
                "default": collector.default_enabled,
                "slow": collector.slow is not None,
            }
        cursors.put(cursor)
        return stats

    with ThreadPoolExecutor(MAX_CONNECTIONS) as pool:
        for command in sys.stdin:
            command = command.strip()
            if command == "round":
                answer = one_round()
            elif command == "collectors":
                answer = per_collector()
            elif command == "memory":
                answer = rss_kib(os.getpid())
            else:
                return
            print(json.dumps(answer), flush=True)


@contextmanager
def floor(sim):
    """A floor worker process; yields ask(command) -> its JSON answer, and its pid."""
    env = {**os.environ, "NDB_BENCH_PASSWORD": sim.password}
    args = [sys.executable, __file__, "--floor-worker", sim.host, str(sim.port), sim.user]
    process = subprocess.Popen(
        args, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    pin(process.pid, CLIENT_CPU)

    def ask(command: str):
        process.stdin.write(command + "\n")
        process.stdin.flush()
        return json.loads(process.stdout.readline())

    try:
        yield ask, process.pid
    finally:
        process.stdin.close()
        process.wait(timeout=10)


# --- modes ----------------------------------------------------------------------------------


def cost(scrapes: int, data_nodes: int, tables: int, version: str) -> None:
    with (
        running_ndbsim(ndb_version=version, data_nodes=data_nodes, tables=tables) as sim,
        exporter_process(sim) as (process, url),
        floor(sim) as (ask, floor_pid),
    ):
        pin(sim.process.pid, SERVER_CPU)
        scrape(url)  # warm-up: connections, target detection, the slowly changing collectors
        ask("round")
        # Alternate, so that both see the simulated cluster in the same state.
        times, rounds, text, cpu, floor_cpu = [], [], "", 0.0, 0.0
        for _ in range(scrapes):
            before = cpu_seconds(process.pid)
            seconds, text = scrape(url)
            cpu += cpu_seconds(process.pid) - before
            times.append(seconds)
            before = cpu_seconds(floor_pid)
            rounds.append(ask("round"))
            floor_cpu += cpu_seconds(floor_pid) - before
        exporter_rss, exporter_hwm = rss_kib(process.pid)
        floor_rss, floor_hwm = ask("memory")
        collectors = ask("collectors")
    series = series_by_collector(text)
    scrape_median, floor_median = statistics.median(times), statistics.median(rounds)
    ratio = statistics.median(scrape / floor for scrape, floor in zip(times, rounds, strict=True))
    print(f"ndbsim {version}: {data_nodes} data nodes, {tables} tables; {scrapes} scrapes")
    print(f"steady scrape (HTTP /metrics) median {scrape_median * 1000:7.1f} ms")
    print(f"floor (steady SQL, connector) median {floor_median * 1000:7.1f} ms")
    print(f"scrape / floor               {ratio:8.2f}x")
    print(f"series                       {sum(series.values()):8d}")
    print(f"exporter CPU per scrape      {cpu / scrapes * 1000:8.1f} ms")
    print(f"floor CPU per round          {floor_cpu / scrapes * 1000:8.1f} ms")
    print(
        f"exporter RSS                 {exporter_rss / 1024:8.1f} MiB (peak {exporter_hwm / 1024:.1f});"
        f" floor process {floor_rss / 1024:.1f} MiB (peak {floor_hwm / 1024:.1f});"
        f" ratio {exporter_rss / floor_rss:.2f}x"
    )
    print()
    print("(the slowly changing collectors run on a change signal or at their maximum age, in")
    print(" neither the steady scrapes nor the floor; those whose rows count activity, the")
    print(" latency histograms, run in both once they count some)")
    print(f"{'collector':20s} {'default':>7s} {'slow':>5s} {'rows':>6s} {'ms':>8s} {'series':>7s}")
    for name, stats in sorted(collectors.items()):
        print(
            f"{name:20s} {'on' if stats['default'] else 'off':>7s}"
            f" {'yes' if stats['slow'] else '':>5s} {stats['rows']:6d}"
            f" {stats['seconds'] * 1000:8.1f} {series.get(name, 0):7d}"
        )


def series_table(version: str) -> None:
    print(f"series per collector at default settings (ndbsim {version}, 200 tables)")
    columns = (2, 8, 16, 48)
    counts = {}
    for data_nodes in columns:
        with (
            running_ndbsim(ndb_version=version, data_nodes=data_nodes, tables=200) as sim,
            exporter_process(sim) as (_, url),
        ):
            # the steady state: ndbsim writes its latency histograms every 10 cluster seconds
            sim.wait_for(lambda status: status["cluster_time"] > HISTOGRAM_PERIOD)
            counts[data_nodes] = series_by_collector(complete_scrape(url))
    names = sorted({name for column in counts.values() for name in column})
    header = "".join(f" {f'{n} data nodes':>14s}" for n in columns)
    print(f"{'collector':20s}{header}")
    for name in [*names, "total"]:
        cells = "".join(
            f" {(sum(counts[c].values()) if name == 'total' else counts[c].get(name, 0)):14d}"
            for c in columns
        )
        print(f"{name:20s}{cells}")
    total = {c: sum(counts[c].values()) for c in columns}
    print(f"series(48) / series(8): {total[48] / total[8]:.2f}")


@dataclass
class SteadyRun:
    """ndbsim's cost meter and the scrape times of one run: the first scrape, then one every
    ``interval`` seconds for ``window`` seconds."""

    first: dict[str, int]  # ndbinfo table -> rows of the first scrape
    average: dict[str, float]  # ndbinfo table -> rows per steady scrape
    per_scrape: list[int]  # rows of each steady scrape
    seconds: list[float]  # time of each steady scrape

    @property
    def total(self) -> float:
        return sum(self.average.values())


def steady_run(sim, url: str, interval: float, window: float) -> SteadyRun:
    """The first scrape reads every collector (on a busy machine it is repeated until every
    collector succeeded, and counts as one); the steady scrapes that follow span ``window``,
    longer than the exporter's maximum age so that the safety reads are counted."""
    start = sim.stats()["ndbinfo_rows_read_by_table"]
    complete_scrape(url)
    first = before = sim.stats()["ndbinfo_rows_read_by_table"]
    per_scrape, seconds = [], []
    began = time.monotonic()
    for tick in range(1, int(window / interval) + 1):
        time.sleep(max(0.0, began + tick * interval - time.monotonic()))
        seconds.append(scrape(url)[0])
        after = sim.stats()["ndbinfo_rows_read_by_table"]
        per_scrape.append(sum(after.values()) - sum(before.values()))
        before = after
    scrapes = len(per_scrape)
    return SteadyRun(
        first={name: first[name] - start.get(name, 0) for name in first},
        average={name: (before[name] - first.get(name, 0)) / scrapes for name in before},
        per_scrape=per_scrape,
        seconds=seconds,
    )


def rows_read(interval: float, window: float, data_nodes: int, tables: int, version: str) -> None:
    """ndbinfo base-table rows per scrape from ndbsim's cost meter: the first scrape, then the
    average per ndbinfo table and the largest scrape over the window."""
    with (
        running_ndbsim(ndb_version=version, data_nodes=data_nodes, tables=tables) as sim,
        exporter_process(sim) as (_, url),
    ):
        run = steady_run(sim, url, interval, window)
    scrapes = len(run.per_scrape)
    print(
        f"ndbinfo rows read (ndbsim {version}: {data_nodes} data nodes, {tables} tables;"
        f" {scrapes} scrapes every {interval:g} s after the first)"
    )
    print(f"{'ndbinfo table':32s} {'first scrape':>12s} {'average':>12s}")
    for name in sorted(run.average, key=lambda n: -run.first.get(n, 0)):
        print(f"{name:32s} {run.first.get(name, 0):12d} {run.average[name]:12.0f}")
    print(f"{'total':32s} {sum(run.first.values()):12d} {run.total:12.0f}")
    print(
        f"largest scrape after the first: {max(run.per_scrape)} rows; per scrape: {run.per_scrape}"
    )


def side_by_side(
    interval: float, window: float, sizes: list[int], tables: int, version: str
) -> None:
    """Steady rows by ndbinfo table and the steady scrape time at each number of data nodes,
    one size after the other in one run (ndbsim on one CPU, the exporter on the other)."""
    runs: dict[int, SteadyRun] = {}
    for data_nodes in sizes:
        with (
            running_ndbsim(ndb_version=version, data_nodes=data_nodes, tables=tables) as sim,
            exporter_process(sim) as (_, url),
        ):
            pin(sim.process.pid, SERVER_CPU)
            runs[data_nodes] = steady_run(sim, url, interval, window)
    scrapes = len(runs[sizes[0]].per_scrape)
    print(
        f"steady scrapes side by side (ndbsim {version}, {tables} tables; {scrapes} scrapes"
        f" every {interval:g} s over {window:g} s after the first)"
    )
    header = "".join(f" {f'{n} data nodes':>16s}" for n in sizes)
    print(f"{'ndbinfo rows a steady scrape':32s}{header}")
    names = sorted({n for run in runs.values() for n in run.average if run.average[n]})
    names.sort(key=lambda n: -runs[sizes[-1]].average.get(n, 0))
    for name in [*names, "total"]:
        cells = "".join(
            f" {(run.total if name == 'total' else run.average.get(name, 0)):16.0f}"
            for run in runs.values()
        )
        print(f"{name:32s}{cells}")
    for label, value in (
        ("median steady scrape (rows)", lambda run: f"{statistics.median(run.per_scrape):16.0f}"),
        ("largest steady scrape (rows)", lambda run: f"{max(run.per_scrape):16d}"),
        ("median steady scrape (ms)", lambda run: f"{statistics.median(run.seconds) * 1000:16.1f}"),
    ):
        print(f"{label:32s}" + "".join(f" {value(run)}" for run in runs.values()))
    medians = [statistics.median(runs[n].seconds) for n in sizes]
    print(f"median scrape {sizes[-1]} / {sizes[0]} data nodes: {medians[-1] / medians[0]:.2f}x")
    for n in sizes:
        print(f"rows per scrape at {n} data nodes: {runs[n].per_scrape}")


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--floor-worker":
        host, port, user = sys.argv[2:5]
        floor_worker(host, int(port), user)
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scrapes", type=int, default=40)
    parser.add_argument(
        "--interval", type=float, default=15.0, help="--rows: seconds between scrapes"
    )
    parser.add_argument(
        "--window",
        type=float,
        default=330.0,
        help="--rows: seconds measured after the first scrape",
    )
    parser.add_argument("--data-nodes", type=int, default=8)
    parser.add_argument("--tables", type=int, default=2000)
    parser.add_argument("--ndb-version", default="8.4")
    parser.add_argument(
        "--series", action="store_true", help="series count for 2/8/16/48 data nodes, 200 tables"
    )
    parser.add_argument(
        "--rows", action="store_true", help="ndbinfo rows read per scrape (ndbsim's cost meter)"
    )
    parser.add_argument(
        "--side-by-side",
        metavar="SIZES",
        help="steady rows by table and scrape time at these data node counts, e.g. 8,48",
    )
    args = parser.parse_args()
    if args.series:
        series_table(args.ndb_version)
    elif args.side_by_side:
        sizes = [int(n) for n in args.side_by_side.split(",")]
        side_by_side(args.interval, args.window, sizes, args.tables, args.ndb_version)
    elif args.rows:
        rows_read(args.interval, args.window, args.data_nodes, args.tables, args.ndb_version)
    else:
        cost(args.scrapes, args.data_nodes, args.tables, args.ndb_version)


if __name__ == "__main__":
    main()
