"""The exporter against ndbsim as NDB 9.x and 7.5.4: every collector, including those that are
off by default, succeeds or is skipped, and the resource collectors appear where the version
has their objects."""

from __future__ import annotations

import httpx
import pytest
from ndbinfo_exporter.collectors.registry import all_collectors
from ndbinfo_exporter.testing import running_exporter
from ndbsim.testing import running_ndbsim
from test_integration import metrics, per_collector

pytestmark = pytest.mark.integration

NEW_IN_8 = {"send_buffers", "disk_data", "certificates", "inventory", "metadata_sync"}


@pytest.mark.parametrize(("version", "ndb_version"), [("9.x", "9.7.0"), ("7.5.4", "7.5.4")])
def test_every_collector_succeeds_or_is_skipped(version, ndb_version):
    names = {c.name for c in all_collectors()}
    flags = [f"--collector.{name}" for name in sorted(names)]
    with running_ndbsim(ndb_version=version, data_nodes=2, tables=12) as sim:
        args = [f"--mysqld.address=127.0.0.1:{sim.port}", f"--mysqld.username={sim.user}", *flags]
        with running_exporter(args, env={"NDB_EXPORTER_PASSWORD": sim.password}) as exporter:
            response = httpx.get(f"http://{exporter.address}/metrics", timeout=60)
    parsed = metrics(response.text)
    assert parsed["ndb_up"] == {(): 1}
    assert dict(list(parsed["ndb_version_info"])[0])["ndb_version"] == ndb_version
    success = per_collector(parsed, "ndb_exporter_collector_success")
    skipped = {n for n, v in per_collector(parsed, "ndb_exporter_collector_skipped").items() if v}
    assert set(success) | skipped == names
    assert {name for name, value in success.items() if value != 1} == set()
    if version == "9.x":
        assert skipped == set()
        # two data nodes, the management node and two SQL nodes hold certificates
        assert len(parsed["ndb_tls_certificate_expiry_timestamp_seconds"]) == 5
        assert set(parsed["ndb_send_buffer_limit_bytes"]) == {
            (("node_id", "1"),),
            (("node_id", "2"),),
        }
    else:
        assert skipped >= NEW_IN_8
