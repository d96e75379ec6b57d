"""The README's grants are enough, and each one is needed, against ndbsim (which checks
privileges as mysqld does).

The account is made with the statements of the README's SQL block, read from the README
itself, so that the statements a reader copies are the ones tested. With all of them every
available collector (all enabled) succeeds. Without any one GRANT, only the collectors that
need it fail or are skipped, each said once in the log with the missing privilege, and every
other collector's series stays as it was: no storm of failures.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import httpx
import pymysql
import pytest
from ndb_harness import Exporter, Ndbsim, running_exporter, running_ndbsim
from ndbinfo_exporter.collectors.registry import all_collectors
from ndbinfo_exporter.scrape.ndb_visibility import CAUSES, PRIVILEGE_MISSING
from prometheus_client.parser import text_string_to_metric_families

from tests.support.readme_grants import readme_statements

pytestmark = pytest.mark.integration

SCRAPES = 3
# Opt-in collectors whose privilege the README leaves out on purpose: binlog_replicas needs
# REPLICATION SLAVE, which also lets the account read the binary log itself.
BEYOND_THE_README = {"binlog_replicas": "REPLICATION SLAVE"}
_ACCOUNT = re.compile(r"^CREATE USER (?P<account>\S+) IDENTIFIED BY '(?P<password>[^']*)'")
_GRANT = re.compile(r"^GRANT (?P<privileges>.+?) ON (?P<level>\S+) TO ")


STATEMENTS = readme_statements()
GRANTS = [s for s in STATEMENTS if s.upper().startswith("GRANT ")]
CREATE = next(s for s in STATEMENTS if s.upper().startswith("CREATE USER "))
ACCOUNT = _ACCOUNT.match(CREATE)
USER = ACCOUNT["account"].split("@")[0].strip("'`\"")


def test_the_readme_creates_an_account_and_grants_it_something():
    assert ACCOUNT is not None and GRANTS
    assert "GRANT SELECT ON ndbinfo.* TO 'exporter'@'%'" in GRANTS


@pytest.fixture(scope="module")
def sim() -> Iterator[Ndbsim]:
    with running_ndbsim(data_nodes=2, seed=1) as running:
        yield running


def make_account(sim: Ndbsim, grants: list[str]) -> None:
    """The README's account afresh, with `grants` only, made by ndbsim's own account."""
    admin = pymysql.connect(host=sim.host, port=sim.port, user=sim.user, password=sim.password)
    try:
        with admin.cursor() as cursor:
            cursor.execute(f"DROP USER IF EXISTS {ACCOUNT['account']}")
            for statement in [CREATE, *grants]:
                cursor.execute(statement)
    finally:
        admin.close()


def scrape_with(
    sim: Ndbsim, grants: list[str], collectors: list[str] | None = None
) -> tuple[dict, Exporter, str]:
    """The last of SCRAPES scrapes by an exporter with ``collectors`` on (default: every one
    the README's grants are for), logged in as the README's account holding `grants`; its
    samples, the exporter and its log."""
    make_account(sim, grants)
    if collectors is None:
        collectors = [c.name for c in all_collectors() if c.name not in BEYOND_THE_README]
    args = [
        f"--mysqld.address={sim.host}:{sim.port}",
        f"--mysqld.username={USER}",
        *(f"--collector.{name}" for name in collectors),
    ]
    env = {"NDB_EXPORTER_PASSWORD": ACCOUNT["password"]}
    with running_exporter(args, env) as exporter:
        for _ in range(SCRAPES):
            response = httpx.get(f"http://{exporter.address}/metrics", timeout=60)
            assert response.status_code == 200
        samples = {
            (s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(response.text)
            for s in family.samples
        }
    return samples, exporter, exporter.log


def per_collector(samples: dict, name: str) -> dict[str, float]:
    return {dict(labels)["collector"]: v for (n, labels), v in samples.items() if n == name}


@pytest.fixture(scope="module")
def full(sim) -> dict:
    samples, _, log = scrape_with(sim, GRANTS)
    return samples


def test_the_readme_grants_let_every_available_collector_succeed(full):
    success = per_collector(full, "ndb_exporter_collector_success")
    assert success and set(success.values()) == {1.0}, success
    assert full[("ndb_up", ())] == 1.0
    assert full[("ndb_engine_visibility", (("state", "ok"),))] == 1.0


@pytest.mark.parametrize("removed", GRANTS, ids=lambda g: _GRANT.match(g)["privileges"])
def test_without_one_grant_only_the_collectors_needing_it_fail(sim, full, removed):
    samples, _, log = scrape_with(sim, [g for g in GRANTS if g != removed])
    assert samples[("ndb_up", ())] == 1.0
    before = per_collector(full, "ndb_exporter_collector_success")
    after = per_collector(samples, "ndb_exporter_collector_success")
    skipped = {c for c, v in per_collector(samples, "ndb_exporter_collector_skipped").items() if v}
    failed = {c for c, v in after.items() if v == 0}
    newly_skipped = skipped & set(before)
    # every other collector succeeds as with every grant
    assert {c for c, v in after.items() if v == 1} == set(before) - failed - newly_skipped

    grant = _GRANT.match(removed)
    privileges = [p.strip().upper() for p in grant["privileges"].split(",")]
    for collector in failed:
        lines = [line for line in log.splitlines() if f"collector={collector} " in line]
        said = [line for line in lines if "collector lacks the" in line]
        assert len(said) == 1, log  # once, not at every scrape
        assert any(p in said[0] for p in privileges), said[0]
        assert not [line for line in lines if "collector failed" in line], log
    if newly_skipped:  # the schema is hidden: said once for the SQL node
        assert samples[("ndb_engine_visibility", (("state", PRIVILEGE_MISSING),))] == 1.0
        warnings = [line for line in log.splitlines() if "NDB not visible" in line]
        assert len(warnings) == 1 and CAUSES[PRIVILEGE_MISSING] in warnings[0], log
        assert grant["level"] in CAUSES[PRIVILEGE_MISSING]


@pytest.mark.parametrize("collector, privilege", sorted(BEYOND_THE_README.items()))
def test_a_collector_beyond_the_readme_grants_says_the_privilege_it_lacks(
    sim, collector, privilege
):
    samples, _, log = scrape_with(sim, GRANTS, [collector])
    assert per_collector(samples, "ndb_exporter_collector_success")[collector] == 0.0
    said = [line for line in log.splitlines() if f"collector={collector} " in line]
    assert len(said) == 1 and "collector lacks the" in said[0] and privilege in said[0], log
