"""Cost of the cluster view against ndbsim: what its viewers make the cluster read, and what
they do to the scrapes.

    python bench/view.py --placement [--sizes 2,8,16,48] [--tables 2000] [--refreshes 6]
    python bench/view.py --viewers [--data-nodes 16] [--tables 500] [--counts 10,50,100]
    python bench/view.py --memory [--sizes 8,48] [--tables 2000] [--scrapes 4]

The first form starts ndbsim and the exporter at each size, waits until the placement has
been read once (the warm-up), then loads the page's API calls as the page does every 10 s
(cluster, findings, config, the first placement page of 50 tables, alerts) ``--refreshes``
times, and prints the ndbinfo rows the cluster read per refresh (ndbsim's cost meter, GET
/stats, from one refresh to the next: the scrape it starts in the background included), the
time of the first placement page against the median of the steady ones, and the slowest
steady placement page (the view answers the model it has and refreshes in the background, so
no steady refresh waits for a scrape). Steady refreshes are ``--every`` seconds apart
(11: each finds the view's model older than its 10 s interval).

The second form scrapes /metrics every 2 s, alone and then with N viewers that each load
the page's five API calls every 10 s (spread over the interval), and prints the median scrape
time with N viewers over the median alone, measured in the same run, and the scrapes that
failed (ndb_up 0 or an HTTP error).

The third form, at each size in one run, scrapes /metrics ``--scrapes`` times, loads the page's
calls twice (two placement refreshes) and prints the exporter's resident memory (VmRSS) and its
ratio to the first size's.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import statistics
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
from ndb_harness import running_exporter, running_ndbsim

PAGE_CALLS = (
    "/api/v1/cluster",
    "/api/v1/findings",
    "/api/v1/config",
    "/api/v1/placement?page_size=50",
    "/api/v1/alerts",
)
REFRESH = 10.0
STEADY_EVERY = 11.0
# A slow ndbsim at 48 data nodes must not turn scrapes into timeouts: the bench measures the view.
QUERY_TIMEOUT = 60.0
SCRAPE_EVERY = 2.0


def exporter_for(sim):
    args = [
        f"--mysqld.address={sim.host}:{sim.port}",
        f"--mysqld.username={sim.user}",
        f"--exporter.query-timeout={QUERY_TIMEOUT}",
    ]
    return running_exporter(args, {"NDB_EXPORTER_PASSWORD": sim.password}, timeout=120)


@contextlib.contextmanager
def stack_at(data_nodes: int, tables: int):
    """ndbsim, the exporter reading it and an HTTP client with a long timeout."""
    with (
        running_ndbsim(data_nodes=data_nodes, tables=tables) as sim,
        exporter_for(sim) as exporter,
        httpx.Client(timeout=300) as client,
    ):
        yield sim, exporter, client


def rows(sim) -> int:
    return sim.stats()["ndbinfo_rows_read"]


def refresh(client: httpx.Client, base: str) -> dict[str, tuple[int, float]]:
    """The page's calls, as the page makes them: status and seconds of each."""
    answers = {}
    for path in PAGE_CALLS:
        started = time.perf_counter()
        status = client.get(base + path).status_code
        answers[path] = (status, time.perf_counter() - started)
    return answers


def placement(sizes: list[int], tables: int, refreshes: int, every: float) -> None:
    print(f"cluster view, {tables} tables: ndbinfo rows per steady 10 s refresh (ndbsim's meter)")
    print(
        f"{'data nodes':>10s} {'warm-up rows':>13s} {'rows/refresh':>13s} {'largest':>9s}"
        f" {'placement 1st/steady':>21s} {'steady placement':>17s} {'slowest':>9s}"
        f" {'statuses':>9s}"
    )
    for data_nodes in sizes:
        with stack_at(data_nodes, tables) as (sim, exporter, client):
            base = f"http://{exporter.address}"
            before = rows(sim)
            first = refresh(client, base)
            while first[PAGE_CALLS[3]][0] != 200:  # the first placement read is under way
                time.sleep(2)
                first = refresh(client, base)
            warm = rows(sim) - before
            # A refresh's rows: from its start to the next one's, so that the scrape it
            # starts in the background is counted with it.
            times, statuses, starts = [], set(), []
            for _ in range(refreshes):
                time.sleep(every)
                starts.append(rows(sim))
                answers = refresh(client, base)
                times.append(answers[PAGE_CALLS[3]][1])
                statuses.update(status for status, _ in answers.values())
            time.sleep(every)
            starts.append(rows(sim))
            per_refresh = [b - a for a, b in itertools.pairwise(starts)]
            ratio = first[PAGE_CALLS[3]][1] / statistics.median(times)
            print(
                f"{data_nodes:10d} {warm:13,d} {statistics.mean(per_refresh):13,.0f}"
                f" {max(per_refresh):9,d} {ratio:20.1f}x"
                f" {statistics.median(times) * 1000:14.0f} ms {max(times) * 1000:6.0f} ms"
                f" {sorted(statuses)!s:>9s}"
            )
            print(
                f"{'':10s} per refresh: rows {per_refresh}, placement seconds "
                f"{[round(t, 2) for t in times]}"
            )


def scrape_times(client: httpx.Client, url: str, seconds: float) -> tuple[list[float], int]:
    times, failed = [], 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        started = time.perf_counter()
        try:
            answer = client.get(url)
            ok = answer.status_code == 200 and "\nndb_up 1" in answer.text
        except httpx.HTTPError:
            ok = False
        times.append(time.perf_counter() - started)
        failed += not ok
        time.sleep(max(0.0, SCRAPE_EVERY - times[-1]))
    return times, failed


def viewer(base: str, offset: float, stop: threading.Event) -> None:
    with httpx.Client(timeout=60) as client:
        if stop.wait(offset):
            return
        while not stop.is_set():
            started = time.monotonic()
            for path in PAGE_CALLS:
                client.get(base + path)
            stop.wait(max(0.0, REFRESH - (time.monotonic() - started)))


def viewers(data_nodes: int, tables: int, counts: list[int], seconds: float) -> None:
    with (
        running_ndbsim(data_nodes=data_nodes, tables=tables) as sim,
        exporter_for(sim) as exporter,
        httpx.Client(timeout=60) as client,
    ):
        base = f"http://{exporter.address}"
        while client.get(base + PAGE_CALLS[3]).status_code != 200:  # warm-up
            time.sleep(2)
        alone, failed_alone = scrape_times(client, base + "/metrics", seconds)
        floor = statistics.median(alone)
        print(f"/metrics every {SCRAPE_EVERY:g} s, {data_nodes} data nodes x {tables} tables")
        print(f"{'viewers':>8s} {'median / alone':>15s} {'max / alone':>12s} {'failed':>7s}")
        print(f"{0:8d} {1.0:14.2f}x {max(alone) / floor:11.2f}x {failed_alone:7d}")
        for count in counts:
            stop = threading.Event()
            with ThreadPoolExecutor(count) as pool:
                for i in range(count):
                    pool.submit(viewer, base, REFRESH * i / count, stop)
                time.sleep(REFRESH)  # every viewer has started
                times, failed = scrape_times(client, base + "/metrics", seconds)
                stop.set()
            print(
                f"{count:8d} {statistics.median(times) / floor:14.2f}x"
                f" {max(times) / floor:11.2f}x {failed:7d}"
            )


def resident_bytes(pid: int) -> int:
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError(f"no VmRSS for process {pid}")


def memory(sizes: list[int], tables: int, scrapes: int) -> None:
    print(f"exporter resident memory after {scrapes} scrapes and two placement refreshes")
    print(f"{'data nodes':>10s} {'tables':>7s} {'RSS MiB':>8s} {'/ first':>8s}")
    first = None
    for data_nodes in sizes:
        with stack_at(data_nodes, tables) as (sim, exporter, client):
            base = f"http://{exporter.address}"
            for _ in range(scrapes):
                client.get(base + "/metrics")
            for _ in range(2):
                while refresh(client, base)[PAGE_CALLS[3]][0] != 200:
                    time.sleep(2)
                time.sleep(STEADY_EVERY)
            rss = resident_bytes(exporter.process.pid)
            first = first or rss
            print(f"{data_nodes:10d} {tables:7d} {rss / 2**20:8.0f} {rss / first:7.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--placement", action="store_true", help="rows per refresh by size")
    mode.add_argument("--viewers", action="store_true", help="scrape time with N viewers")
    mode.add_argument("--memory", action="store_true", help="exporter memory by size")
    parser.add_argument("--sizes", help="data node counts (--placement: 2,8,16,48; --memory: 8,48)")
    parser.add_argument("--tables", type=int, default=None)
    parser.add_argument("--refreshes", type=int, default=6)
    parser.add_argument("--every", type=float, default=STEADY_EVERY, help="seconds apart")
    parser.add_argument("--scrapes", type=int, default=4, help="--memory: scrapes first")
    parser.add_argument("--data-nodes", type=int, default=16)
    parser.add_argument("--counts", default="10,50,100", help="--viewers: viewer counts")
    parser.add_argument("--seconds", type=float, default=60.0, help="--viewers: per measure")
    args = parser.parse_args()
    if args.placement:
        sizes = [int(size) for size in (args.sizes or "2,8,16,48").split(",")]
        placement(sizes, args.tables or 2000, args.refreshes, args.every)
    elif args.memory:
        sizes = [int(size) for size in (args.sizes or "8,48").split(",")]
        memory(sizes, args.tables or 2000, args.scrapes)
    else:
        counts = [int(count) for count in args.counts.split(",")]
        viewers(args.data_nodes, args.tables or 500, counts, args.seconds)


if __name__ == "__main__":
    main()
