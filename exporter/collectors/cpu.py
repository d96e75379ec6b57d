"""How the data node threads spent the last second, from ndbinfo.cpustat: executing signals and
stalled on full job buffers for the busiest thread of each type, or (option per_thread) also
spinning and sending, per thread.

A thread's buffer_full time is the time it slept because the job buffer it writes signals into,
that of another thread of its node, was congested: that thread (most often an overloaded LDM
thread) consumes its signals too slowly (the data node's scheduler, mt.cpp: the sleep in
update_sched_config() counts as m_buffer_full_micros_sleep). It is not a wait on send buffers.
cpustat holds the last second only; the rules average the samples over minutes rather than read
the 20 rows per thread of cpustat_20sec at every scrape."""

from __future__ import annotations

from collections.abc import Iterable

from .base import Collector, Context, Option, Row, boolean, gauge, ident, number, text

ACTIVITIES = {
    "exec": "thread_exec",
    "spin": "thread_spinning",
    "send": "thread_send",
    "buffer_full": "thread_buffer_full",
}
# by default: what saturates a thread type, two series per type and data node
DEFAULT_ACTIVITIES = ("exec", "buffer_full")

# cpustat has no thread names: the thread type comes from threadstat (one row per thread).
SQL = (
    "SELECT c.node_id, c.thr_no, t.thr_nm, c.thread_exec, c.thread_spinning, c.thread_send,"
    " c.thread_buffer_full FROM ndbinfo.cpustat c"
    " JOIN ndbinfo.threadstat t ON t.node_id = c.node_id AND t.thr_no = c.thr_no"
)

RATIO_HELP = (
    "Share of the last second the thread spent executing signals (exec), spinning while"
    " waiting for signals (spin), sending (send) and sleeping on the congested job buffer of a"
    " slower thread it sends signals to (buffer_full); the rest it slept. By default exec and buffer_full of the busiest thread"
    " of each type per data node; OS user and system time are the threads collector's"
    " counters."
)
RATIO = gauge("ndb_thread_time_ratio", RATIO_HELP, ("node_id", "thread", "activity"))


def per_thread(ctx: Context) -> bool:
    return bool(ctx.options.get("per_thread", False))


def collect(rows: list[Row], ctx: Context) -> Iterable:
    detail = per_thread(ctx)
    labels = ("node_id", "thr_no", "thread", "activity") if detail else RATIO.labels
    family = gauge(RATIO.name, RATIO.help, labels).family()
    busiest: dict[tuple[str, ...], float] = {}
    for row in rows:
        thread = (
            (ident(row["node_id"]), ident(row["thr_no"])) if detail else (ident(row["node_id"]),)
        )
        thread = (*thread, text(row["thr_nm"]))
        for activity, column in ACTIVITIES.items():
            percent = number(row[column])
            if percent is None or (not detail and activity not in DEFAULT_ACTIVITIES):
                continue
            key = (*thread, activity)
            busiest[key] = max(busiest.get(key, 0.0), percent / 100)
    for key in sorted(busiest, key=lambda k: (int(k[0]), *k[1:])):
        family.add_metric(list(key), busiest[key])
    yield family


COLLECTOR = Collector(
    name="cpu",
    help="Share of the last second data node threads spent executing and stalled on full job"
    " buffers of slower threads (ndbinfo.cpustat with thread names from threadstat). On by default: the busiest"
    " thread of each type (main, ldm, tc, recv, send, rep) per data node, which shows the"
    " thread type that saturates first; option per_thread adds spinning and sending per thread.",
    default_enabled=True,
    reads={
        "cpustat": (
            "node_id",
            "thr_no",
            "thread_exec",
            "thread_spinning",
            "thread_send",
            "thread_buffer_full",
        ),
        "threadstat": ("node_id", "thr_no", "thr_nm"),
    },
    min_version=(7, 5, 0),
    sql=SQL,
    collect=collect,
    options=(
        Option(
            "per_thread",
            "Every thread (label thr_no) with spin and send time too, instead of the busiest"
            " thread of each type.",
            False,
            boolean,
        ),
    ),
    metrics=(RATIO,),
)
