"""What the live dashboard tests share: the scrape interval and the rate window the queries
get, the exporter's flags, an exporter once it reports its SQL node up, and a dashboard query
made concrete for one cluster."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager

import httpx
from ndb_harness import MysqlAccount, running_exporter

from tests.support.live_stack import wait_until

# Every 2 s: a full scrape of the default simulated cluster takes about a second on a busy
# 2-core machine, and the scrape timeout is the interval.
SCRAPE_INTERVAL = "2s"
RATE_WINDOW = "10s"  # five scrapes
PASSWORD = "ndbsim"
EXPORTER_FLAGS = (
    "--collector.table_detail",
    "--collector.restart_info.phases=true",
    "--collector.host_cpu",
    "--collector.hot_tables",
    # The scrape timeout is the short interval here: leave the collectors most of it.
    "--exporter.scrape-timeout-offset=0.1",
)


@contextmanager
def exporter_up(
    sim, workdir, port: int | None = None, flags: tuple[str, ...] = EXPORTER_FLAGS
) -> Iterator[str]:
    """The exporter for ``sim``'s SQL node on ``port`` (default: its first), once it reports
    the node up; yields its address."""
    account = MysqlAccount(sim.host, port or sim.port, sim.user, sim.password)
    with running_exporter(flags, mysqld=account, log_dir=workdir) as exporter:
        url = f"http://{exporter.address}/metrics"
        wait_until(lambda: "\nndb_up 1" in httpx.get(url, timeout=10).text, 30, "ndb_up 1")
        yield exporter.address


def concrete(expr: str, cluster: str) -> str:
    """``expr`` with the dashboards' variables set: ``cluster``, every instance and node."""
    text = (
        expr.replace("$__rate_interval", RATE_WINDOW)
        .replace("$cluster", cluster)
        .replace("$instance", ".*")
        .replace("$node", ".*")
    )
    assert not re.search(r"\$[A-Za-z_{]", text), f"unsubstituted variable in {text}"
    return text
