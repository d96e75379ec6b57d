"""The exporter against ndbsim as NDB 9.x and 7.5.4: every collector, including those that are
off by default, succeeds or is skipped, and the resource collectors appear where the version
has their objects, with series linear in the data nodes."""

from __future__ import annotations

import httpx
import pytest
from ndb_harness import running_exporter, running_ndbsim
from ndbinfo_exporter.collectors import transporters
from ndbinfo_exporter.collectors.registry import all_collectors

from tests.exporter.exposition_samples import metrics, per_collector

pytestmark = pytest.mark.integration

NEW_IN_8 = {"disk_data", "certificates", "inventory", "metadata_sync"}


def scrape(version: str, data_nodes: int, collectors: set[str]) -> dict:
    """One scrape of ndbsim by the exporter with exactly these collectors enabled."""
    flags = [
        f"--collector.{c.name}" if c.name in collectors else f"--no-collector.{c.name}"
        for c in all_collectors()
    ]
    with running_ndbsim(ndb_version=version, data_nodes=data_nodes, tables=12) as sim:
        args = [f"--mysqld.address=127.0.0.1:{sim.port}", f"--mysqld.username={sim.user}", *flags]
        with running_exporter(args, env={"NDB_EXPORTER_PASSWORD": sim.password}) as exporter:
            return metrics(httpx.get(f"http://{exporter.address}/metrics", timeout=60).text)


RONDB_ONLY = {c.name for c in all_collectors() if c.flavour == "rondb"}


@pytest.mark.parametrize(
    ("version", "ndb_version"),
    [("9.x", "9.7.0"), ("7.5.4", "7.5.4"), ("rondb-22.10", "8.0.34")],
)
def test_every_collector_succeeds_or_is_skipped(version, ndb_version):
    names = {c.name for c in all_collectors()}
    parsed = scrape(version, 2, names)
    assert parsed["ndb_up"] == {(): 1}
    assert dict(list(parsed["ndb_version_info"])[0])["ndb_version"] == ndb_version
    success = per_collector(parsed, "ndb_exporter_collector_success")
    skipped = {n for n, v in per_collector(parsed, "ndb_exporter_collector_skipped").items() if v}
    assert set(success) | skipped == names
    assert {name for name, value in success.items() if value != 1} == set()
    if version == "rondb-22.10":
        # RonDB's own views read; what its 8.0.34 base lacks skipped
        assert set(success) >= RONDB_ONLY
        assert skipped == {"certificates"}  # TLS: MySQL NDB 8.3 and later
    elif version == "9.x":
        assert skipped == RONDB_ONLY
        # two data nodes, the management node and two SQL nodes hold certificates
        assert len(parsed["ndb_tls_certificate_expiry_timestamp_seconds"]) == 5
        assert set(parsed["ndb_send_buffer_limit_bytes"]) == {
            (("node_id", "1"),),
            (("node_id", "2"),),
        }
    else:
        assert skipped >= NEW_IN_8


def resource_series(data_nodes: int) -> dict[str, int]:
    families = {
        c.name: [spec.name for spec in c.metrics] for c in all_collectors() if c.name in NEW_IN_8
    }
    families["send_buffers"] = [
        spec.name for spec in transporters.COLLECTOR.metrics if spec.name.startswith("ndb_send")
    ]
    parsed = scrape("8.4", data_nodes, NEW_IN_8 | {"transporters"})
    return {
        name: sum(len(parsed.get(family, {})) for family in names)
        for name, names in families.items()
    }


def test_resource_series_are_linear_in_data_nodes():
    two, six = resource_series(2), resource_series(6)
    # per data node: 3 send buffer series, 6 inventory series; 2 certificate series per node
    # of the cluster (data nodes, one management node, two SQL nodes)
    assert six["send_buffers"] - two["send_buffers"] == 4 * 3
    assert six["inventory"] - two["inventory"] == 4 * 6
    assert six["certificates"] - two["certificates"] == 4 * 2
    # per file and per object type: the same for any number of data nodes
    assert six["disk_data"] == two["disk_data"] == 4
    assert six["metadata_sync"] == two["metadata_sync"] == 8
