"""At default settings the number of series does not grow with the number of tables, and
grows linearly with the number of data nodes."""

from __future__ import annotations

import time

import httpx
import mysql.connector
import pytest
from ndb_harness import running_exporter, running_ndbsim
from ndbinfo_exporter.collectors.base import Context
from ndbinfo_exporter.collectors.registry import all_collectors
from ndbinfo_exporter.scrape.pool import PooledConnection
from ndbinfo_exporter.scrape.scraper import collector_rows
from ndbinfo_exporter.scrape.sql_node import detect
from ndbsim.engine.catalog import load_json

# Label values of table_info are table properties: bounded by their combinations, not by the
# number of tables (2 read_backup x 2 fully_replicated x 2 storage types x 9 balances).
TABLE_INFO_COMBINATIONS = 2 * 2 * 2 * 9
HISTOGRAMS = ("tc", "pgman")
# Open transactions are those a snapshot catches, so their states differ from one moment to
# the next: per data node, one series of each transaction state of DBTC, and the idle time.
DATA_NODES = 2
TC_STATES = len(load_json("enums.json")["ndb$dbtc_apiconnect_state"]["rows"])

# The same configuration for both sizes: ndbsim otherwise raises these limits to fit the
# tables, which would change the config collector's non-default markers.
FIXED_CONFIG = (
    "MaxNoOfTables=20320",
    "MaxNoOfOrderedIndexes=20000",
    "MaxNoOfUniqueHashIndexes=20000",
    "MaxNoOfAttributes=200000",
    "MaxNoOfTriggers=200000",
    "DataMemory=17179869184",
)


def series_per_collector(tables: int) -> dict[str, int]:
    config = [arg for setting in FIXED_CONFIG for arg in ("--config", setting)]
    with running_ndbsim(*config, data_nodes=DATA_NODES, tables=tables, seed=1) as sim:
        connection = mysql.connector.connect(
            host=sim.host, port=sim.port, user=sim.user, password=sim.password
        )
        try:
            info = detect(connection)
            counts = {}
            for collector in all_collectors():
                if not collector.default_enabled or not collector.available(info):
                    continue
                context = Context(target=info)
                rows = collector_rows(PooledConnection(connection, info), collector, context)
                families = collector.collect(rows, context)
                counts[collector.name] = sum(len(family.samples) for family in families)
            return counts
        finally:
            connection.close()


@pytest.mark.integration
def test_default_series_do_not_grow_with_tables():
    few, many = series_per_collector(20), series_per_collector(400)
    assert many.pop("table_info") <= TABLE_INFO_COMBINATIONS
    few.pop("table_info")
    for counts in (few, many):
        assert DATA_NODES <= counts.pop("transactions") <= DATA_NODES * (1 + TC_STATES)
    assert many == few


def scraped_series(data_nodes: int, tables: int = 200) -> int:
    """Series of a /metrics scrape (everything, the exporter's own metrics included) of an
    exporter at default settings in front of ndbsim, once ndbsim has written its history and
    histogram tables (every 10 cluster seconds): the steady state, not the first scrape."""
    with running_ndbsim(data_nodes=data_nodes, tables=tables, seed=1) as sim:
        args = [f"--mysqld.address={sim.host}:{sim.port}", f"--mysqld.username={sim.user}"]
        with running_exporter(args, {"NDB_EXPORTER_PASSWORD": sim.password}) as exporter:
            url = f"http://{exporter.address}/metrics"
            for _ in range(10):
                text = httpx.get(url, timeout=120).text
                if all(
                    f"ndb_{kind}_operation_duration_seconds_bucket" in text for kind in HISTOGRAMS
                ):
                    break
                time.sleep(3)
            else:
                raise AssertionError("no TC and PGMAN latency histograms after 10 scrapes")
    assert "ndb_exporter_collector_success" in text
    return sum(1 for line in text.splitlines() if line and not line.startswith("#"))


@pytest.mark.integration
def test_default_series_grow_linearly_with_data_nodes():
    """Per-link, per-parameter, per-phase and per-mode detail are opt-in: at default
    settings (the TC and PGMAN latency histograms included) 48 data nodes export at most 13,000
    series, within six and a half times the series of 8 data nodes."""
    eight, forty_eight = scraped_series(8), scraped_series(48)
    assert forty_eight <= 13_000
    assert forty_eight / eight <= 6.5
