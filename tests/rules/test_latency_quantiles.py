"""histogram_quantile over the exported TC and PGMAN histograms gives the latencies ndbsim
models: the median of key operations near the model's, p99 above it, and the estimated mean
(_sum / _count) between them."""

from __future__ import annotations

import math

import pytest
from ndb_harness import running_exporter, running_ndbsim

from tests.support.live_stack import every_prometheus_build, prometheus_of_build, wait_until

pytestmark = pytest.mark.integration

COLLECTORS = (
    "--no-collector.config",
    "--no-collector.counters",
    "--no-collector.dictionary",
)


def quantile(prometheus, q: float, metric: str, operation: str) -> float | None:
    found = prometheus.query(
        f"histogram_quantile({q}, sum by (le) (rate({metric}_bucket"
        f'{{operation="{operation}"}}[30s])))'
    )
    value = float(found[0]["value"][1]) if found else math.nan
    return None if math.isnan(value) else value  # NaN until the window holds an increase


@every_prometheus_build
def test_quantiles_match_the_modelled_latency(tmp_path, prometheus_build):
    with (
        running_ndbsim(speed=5) as sim,
        running_exporter(COLLECTORS, mysqld=sim.account(), log_dir=tmp_path) as exporter,
        prometheus_of_build(
            {exporter.address: {"cluster": "q"}}, tmp_path / "prometheus", "2s", prometheus_build
        ) as prometheus,
    ):
        metric = "ndb_tc_operation_duration_seconds"
        p50 = wait_until(lambda: quantile(prometheus, 0.5, metric, "key"), 60, "key p50")
        p99 = quantile(prometheus, 0.99, metric, "key")
        # the model: reads 110 us, writes 190 us at the median, log-normal, at low load
        assert 60e-6 <= p50 <= 400e-6
        assert p50 < p99 <= 5e-3
        mean = prometheus.query(
            f'sum(rate({metric}_sum{{operation="key"}}[30s]))'
            f' / sum(rate({metric}_count{{operation="key"}}[30s]))'
        )
        assert p50 <= float(mean[0]["value"][1]) <= p99
        pgman = "ndb_pgman_operation_duration_seconds"
        writes = wait_until(lambda: quantile(prometheus, 0.5, pgman, "page_write"), 60, "pgman")
        assert 100e-6 <= writes <= 5e-3
        sim.fault("latency-degradation", factor=20)
        wait_until(
            lambda: (quantile(prometheus, 0.5, metric, "key") or 0) > 10 * p50,
            60,
            "the key median to rise twentyfold",
        )
