"""Static checks of the compose stack: no Docker engine is needed.

docker-compose (Debian's 1.29, which validates against the compose specification's
JSON schema) checks the file per profile; the rest reads the file as compose resolves it.
"""

from __future__ import annotations

import configparser
import json
import os
import re
import shutil
import subprocess
from collections import Counter
from pathlib import Path

import pytest
import yaml

from tests.stack.compose_model import (
    ROOT,
    active_services,
    bind_mounts,
    load,
    network_names,
    option,
    published_ports,
)
from tests.stack.ndb_config import nodes, parse
from tests.stack.prometheus_model import CONFIG as PROMETHEUS_CONFIG
from tests.stack.prometheus_model import config as prometheus_config
from tests.stack.prometheus_model import jobs as prometheus_jobs
from tests.stack.prometheus_model import targets as scrape_targets

COMPOSE = load()
SERVICES = COMPOSE["services"]

# What people run (docs/stack.md). .env sets COMPOSE_PROFILES=ndb for a plain `up`.
PROFILE_SETS = {
    "default (ndb)": {"ndb"},
    "four-data-nodes": {"four-data-nodes"},
    "ndb + four-data-nodes": {"ndb", "four-data-nodes"},
    "sim": {"sim"},
    "replica": {"replica"},
    "sim + replica": {"sim", "replica"},
    "ndb + load": {"ndb", "load"},
    "sim + load": {"sim", "load"},
    "replica + load": {"replica", "load"},
}
NDB_IMAGE_PREFIX = "container-registry.oracle.com/mysql/community-cluster:"
EXPORTER_PORT = 9645


def _dotenv() -> dict[str, str]:
    values = {}
    for line in (ROOT / ".env").read_text().splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            key, value = line.split("=", 1)
            values[key.strip()] = value.strip()
    return values


def _ndb_services(profiles: set[str]) -> dict[str, dict]:
    return {
        name: service
        for name, service in active_services(COMPOSE, profiles).items()
        if service.get("image", "").startswith(NDB_IMAGE_PREFIX)
    }


def _command(service: dict) -> list[str]:
    return [str(arg) for arg in service.get("command", [])]


def _node_id(service: dict) -> int | None:
    value = option(_command(service), "--ndb-nodeid")
    return int(value) if value else None


# --- compose's own validation -------------------------------------------------------


@pytest.mark.integration
@pytest.mark.parametrize("profiles", sorted(map(sorted, PROFILE_SETS.values())), ids=str)
def test_docker_compose_validates_each_profile(profiles):
    binary = shutil.which("docker-compose")
    if binary is None:
        pytest.skip("docker-compose is not installed (.ci/system-packages installs it)")
    env = {k: v for k, v in os.environ.items() if not k.startswith("COMPOSE_")}
    args = [binary, "--project-directory", str(ROOT), "-f", str(ROOT / "docker-compose.yml")]
    for profile in profiles:
        args += ["--profile", profile]
    result = subprocess.run(
        [*args, "config", "-q"], capture_output=True, text=True, env=env, timeout=60
    )
    assert result.returncode == 0, result.stderr


def test_dotenv_makes_the_real_cluster_the_default():
    env = _dotenv()
    assert env["COMPOSE_PROFILES"] == "ndb"
    assert env["COMPOSE_PROJECT_NAME"] == "ndbinfo-exporter"


def test_profiles_are_the_documented_ones():
    used = {p for s in SERVICES.values() for p in s.get("profiles", [])}
    assert used == {"ndb", "four-data-nodes", "sim", "replica", "load"}
    docs = (ROOT / "docs" / "stack.md").read_text()
    for profile in used:
        assert f"--profile {profile}" in docs or f"`{profile}`" in docs, profile


# --- per profile: dependencies, names, ports ------------------------------------------


@pytest.mark.parametrize("label", PROFILE_SETS)
def test_dependencies_are_started_with_the_profile(label):
    active = active_services(COMPOSE, PROFILE_SETS[label])
    for name, service in active.items():
        for dependency in service.get("depends_on", {}):
            assert dependency in active, f"{name} depends on {dependency}, not in {label}"


@pytest.mark.parametrize("label", PROFILE_SETS)
def test_published_ports_do_not_collide(label):
    active = active_services(COMPOSE, PROFILE_SETS[label])
    ports = Counter(p.host_port for s in active.values() for p in published_ports(s))
    assert [port for port, n in ports.items() if n > 1] == []


def test_published_ports_listen_on_localhost_only():
    for name, service in SERVICES.items():
        for port in published_ports(service):
            assert port.host_ip == "127.0.0.1", name


@pytest.mark.parametrize("label", PROFILE_SETS)
def test_network_names_are_unambiguous(label):
    names = Counter(network_names(active_services(COMPOSE, PROFILE_SETS[label])))
    assert [name for name, n in names.items() if n > 1] == []


def _exporters(services: dict[str, dict]) -> dict[str, dict]:
    """The services that run an exporter, by name."""
    return {n: s for n, s in services.items() if option(_command(s), "--mysqld.address")}


def _sql_address(service: dict) -> tuple[str, str]:
    host, port = option(_command(service), "--mysqld.address").rsplit(":", 1)
    return host, port


def _sql_ports(service: dict) -> set[str]:
    """The MySQL ports of a SQL node: 3306, or ndbsim's --port and --replica-port."""
    if service.get("entrypoint") != ["ndbsim"]:
        return {"3306"}
    command = _command(service)
    return {option(command, "--port"), option(command, "--replica-port")} - {None}


def _static_hosts() -> list[str]:
    """Hosts Prometheus scrapes or alerts whatever runs: static targets and Alertmanagers."""
    jobs = prometheus_jobs().values()
    hosts = [t.host for job in jobs for t in scrape_targets(job) if not t.discovered]
    for am in prometheus_config()["alerting"]["alertmanagers"]:
        for static in am["static_configs"]:
            hosts += [target.rsplit(":", 1)[0] for target in static["targets"]]
    return hosts


@pytest.mark.parametrize("label", PROFILE_SETS)
def test_every_static_prometheus_target_is_a_service_of_the_stack(label):
    """A static target whose service does not run would be a target down."""
    names = set(network_names(active_services(COMPOSE, PROFILE_SETS[label])))
    for host in _static_hosts():
        assert host == "localhost" or host in names, f"{host} is not a service in {label}"


def test_the_exporters_of_a_profile_are_discovered_by_dns():
    """An exporter that runs only in a profile is found by its DNS name, which resolves only
    while its container runs: without the profile there is no target, not a target down."""
    jobs = prometheus_jobs().values()
    discovered = {t.host for job in jobs for t in scrape_targets(job) if t.discovered}
    optional = {name for name, s in _exporters(SERVICES).items() if s.get("profiles")}
    assert discovered == optional == {"exporter-dr"}


@pytest.mark.parametrize("label,count", [("default (ndb)", 2), ("sim", 2), ("replica", 3)])
def test_exporters_reach_a_sql_node(label, count):
    active = active_services(COMPOSE, PROFILE_SETS[label])
    exporters = _exporters(active)
    assert len(exporters) == count
    for name, service in exporters.items():
        host, port = _sql_address(service)
        answering = [s for n, s in active.items() if host in network_names({n: s})]
        assert len(answering) == 1, f"{name}: {host} is not a service in {label}"
        assert port in _sql_ports(answering[0]), name


def test_the_replica_exporter_reads_the_replica_cluster_of_ndbsim():
    ndbsim = _command(SERVICES["ndbsim"])
    assert "--replica" in ndbsim
    host, port = _sql_address(SERVICES["exporter-dr"])
    assert host in network_names({"ndbsim": SERVICES["ndbsim"]})
    assert port == option(ndbsim, "--replica-port") != option(ndbsim, "--port")
    for source in ("exporter1", "exporter2"):
        assert _sql_address(SERVICES[source])[1] == option(ndbsim, "--port")


def test_every_exporter_is_scraped_with_its_cluster_label():
    targets = scrape_targets(prometheus_jobs()["ndb"])
    assert {t.host for t in targets} == set(_exporters(SERVICES))
    assert all(t.port == EXPORTER_PORT for t in targets)
    clusters = {t.host: t.labels.get("cluster") for t in targets}
    assert clusters == {"exporter1": "demo", "exporter2": "demo", "exporter-dr": "dr"}
    sources = {t.host: t.labels.get("source_cluster") for t in targets}  # the replica's source
    assert sources == {"exporter1": None, "exporter2": None, "exporter-dr": "demo"}
    for target in targets:  # instance names the SQL node the exporter reads
        assert target.labels["instance"] == _sql_address(SERVICES[target.host])[0]


def test_loadgen_runs_against_a_sql_node():
    service = SERVICES["loadgen"]
    assert service["profiles"] == ["load"]
    assert "depends_on" not in service  # `run` must not start or need other profiles
    host = option(_command(service), "--host")
    assert host in network_names(active_services(COMPOSE, {"ndb"}))
    assert service["entrypoint"] == ["ndb-loadgen"]


def test_sim_profile_publishes_the_control_api_and_both_sql_nodes():
    ndbsim = SERVICES["ndbsim"]
    published = {p.container_port for p in published_ports(ndbsim)}
    for port in ("--control-port", "--port", "--replica-port"):
        assert int(option(_command(ndbsim), port)) in published, port
    assert option(_command(ndbsim), "--host") == "0.0.0.0"
    assert set(ndbsim["profiles"]) == {"sim", "replica"}
    for profile in ndbsim["profiles"]:
        assert not _ndb_services({profile}), f"the {profile} profile starts NDB containers"


# --- files, images ------------------------------------------------------------------


def test_every_bind_mount_exists():
    for name, service in SERVICES.items():
        for source, _target in bind_mounts(service):
            assert (ROOT / source).exists(), f"{name}: {source} does not exist"


def test_provisioning_is_mounted_where_the_services_read_it():
    mounts = {name: dict(bind_mounts(s)) for name, s in SERVICES.items()}
    assert mounts["prometheus"]["./provisioning/prometheus/rules"] == "/etc/prometheus/rules"
    assert (
        mounts["prometheus"]["./provisioning/prometheus/prometheus.yml"]
        == "/etc/prometheus/prometheus.yml"
    )
    assert (
        mounts["alertmanager"]["./provisioning/alertmanager/alertmanager.yml"]
        == "/etc/alertmanager/alertmanager.yml"
    )
    assert mounts["grafana"]["./provisioning/grafana"] == "/etc/grafana/provisioning"
    assert mounts["grafana"]["./dashboards/generated"] == "/var/lib/grafana/dashboards/ndb"


_EXACT_TAG = re.compile(r"^v?\d+\.\d+\.\d+([.-][\w.]+)?$")


def test_every_image_is_pinned():
    for name, service in SERVICES.items():
        image = service["image"]
        if "build" in service:
            assert not image.endswith(":latest"), name
            continue
        if "@sha256:" in image:
            continue
        repository, _, tag = image.rpartition(":")
        assert repository and _EXACT_TAG.match(tag), f"{name}: {image} is not an exact version"


def _build_target(service: dict) -> str | None:
    build = service["build"]
    return build.get("target") if isinstance(build, dict) else None


def test_built_services_share_one_image_per_build_target():
    """The exporter image (the Dockerfile's last stage) and the tools image of ndbsim and
    ndb-loadgen (stage `tools`): one tag each, so compose builds each stage once."""
    images = {(_build_target(s), s["image"]) for s in SERVICES.values() if "build" in s}
    assert images == {
        (None, "ndbinfo-exporter:compose"),
        ("tools", "ndbinfo-exporter-tools:compose"),
    }
    assert {SERVICES[name]["image"] for name in ("ndbsim", "loadgen")} == {
        "ndbinfo-exporter-tools:compose"
    }


def test_grafana_settings():
    env = SERVICES["grafana"]["environment"]
    assert env["GF_AUTH_ANONYMOUS_ENABLED"] == "true"
    assert env["GF_AUTH_ANONYMOUS_ORG_ROLE"] == "Viewer"
    assert env["GF_SECURITY_ADMIN_USER"] and env["GF_SECURITY_ADMIN_PASSWORD"]


# --- Grafana provisioning -----------------------------------------------------------


def _yaml_files(directory: Path) -> list[Path]:
    return sorted([*directory.glob("*.yml"), *directory.glob("*.yaml")])


def _datasources() -> list[dict]:
    files = _yaml_files(ROOT / "provisioning/grafana/datasources")
    assert files, "no datasource provisioning file"
    return [ds for f in files for ds in yaml.safe_load(f.read_text()).get("datasources", [])]


def test_grafana_datasources_point_at_stack_services():
    names = set(network_names(active_services(COMPOSE, {"ndb"})))
    for ds in _datasources():
        assert ds.get("uid"), ds.get("name")
        host = re.match(r"https?://([^:/]+)", ds["url"]).group(1)
        assert host in names, ds["url"]


def test_grafana_dashboard_provider_reads_the_mounted_directory():
    files = _yaml_files(ROOT / "provisioning/grafana/dashboards")
    assert files, "no dashboard provider file"
    providers = [p for f in files for p in yaml.safe_load(f.read_text())["providers"]]
    assert {p["options"]["path"] for p in providers} == {"/var/lib/grafana/dashboards/ndb"}


def _datasource_uids(node) -> set[str]:
    uids = set()
    if isinstance(node, dict):
        ds = node.get("datasource")
        if isinstance(ds, dict) and isinstance(ds.get("uid"), str):
            uids.add(ds["uid"])
        for value in node.values():
            uids |= _datasource_uids(value)
    elif isinstance(node, list):
        for value in node:
            uids |= _datasource_uids(value)
    return uids


def test_dashboards_use_provisioned_datasources():
    dashboards = sorted((ROOT / "dashboards/generated").glob("*.json"))
    assert dashboards, "no generated dashboards"
    provisioned = {ds["uid"] for ds in _datasources()}
    builtin = {"grafana", "-- Grafana --", "-- Mixed --", "-- Dashboard --"}
    for path in dashboards:
        used = {u for u in _datasource_uids(json.loads(path.read_text())) if "$" not in u}
        assert used - builtin <= provisioned, f"{path.name}: {sorted(used - provisioned)}"


# --- the NDB cluster configuration --------------------------------------------------

# config.ini per profile: mgm mounts ./cluster/${NDB_CLUSTER_CONFIG:-config.ini}.
CLUSTER_CONFIGS = {
    "config.ini": {"ndb"},
    "config-four-data-nodes.ini": {"four-data-nodes"},
}
SECTION_OF_PROGRAM = {"ndb_mgmd": "ndb_mgmd", "ndbmtd": "ndbd", "mysqld": "mysqld"}


def test_mgm_reads_the_config_chosen_by_ndb_cluster_config():
    mounts = dict(bind_mounts(SERVICES["mgm"]))
    assert mounts["./cluster/config.ini"] == "/etc/mysql-cluster.cnf"
    raw = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    assert (
        "./cluster/${NDB_CLUSTER_CONFIG:-config.ini}:/etc/mysql-cluster.cnf:ro"
        in (raw["services"]["mgm"]["volumes"])
    )


@pytest.mark.parametrize("config_file", CLUSTER_CONFIGS)
def test_config_declares_exactly_the_ndb_services_of_its_profile(config_file):
    """Every node process of the profile has its slot (node id, section, host name), and
    every data node slot has a process: an empty one would be a down data node."""
    declared = nodes(parse(ROOT / "cluster" / config_file))
    by_id = {int(n.params["nodeid"]): n for n in declared}
    assert len(by_id) == len(declared), "duplicate NodeId"
    started = set()
    for name, service in _ndb_services(CLUSTER_CONFIGS[config_file]).items():
        program = _command(service)[0]
        node = by_id.get(_node_id(service))
        assert node is not None, f"{name}: node id {_node_id(service)} is not in {config_file}"
        assert node.name == SECTION_OF_PROGRAM[program], name
        assert node.params["hostname"] == name
        started.add(_node_id(service))
    data_nodes = {i for i, n in by_id.items() if n.name == "ndbd"}
    assert data_nodes <= started


@pytest.mark.parametrize("config_file", CLUSTER_CONFIGS)
def test_config_makes_complete_node_groups(config_file):
    sections = parse(ROOT / "cluster" / config_file)
    replicas = int(next(s for s in sections if s.name == "ndbd default").params["noofreplicas"])
    assert replicas == 2
    groups = Counter(n.params.get("nodegroup") for n in nodes(sections) if n.name == "ndbd")
    assert None not in groups and "65536" not in groups
    assert set(groups.values()) == {replicas}


def test_configs_differ_only_by_the_added_data_nodes():
    two = nodes(parse(ROOT / "cluster/config.ini"))
    four = nodes(parse(ROOT / "cluster/config-four-data-nodes.ini"))
    added = [n for n in four if n not in two]
    assert all(n in four for n in two)
    assert [(n.name, n.params["hostname"]) for n in added] == [("ndbd", "ndbd3"), ("ndbd", "ndbd4")]


@pytest.mark.parametrize("config_file", CLUSTER_CONFIGS)
def test_config_allows_unresolved_host_names(config_file):
    tcp = next(s for s in parse(ROOT / "cluster" / config_file) if s.name == "tcp default")
    assert tcp.params["allowunresolvedhostnames"] in {"1", "true", "TRUE"}


def test_my_cnf_connects_to_the_management_node():
    cnf = configparser.ConfigParser(allow_no_value=True, strict=False)
    cnf.read(ROOT / "cluster/my.cnf")
    mgm = next(n for n in nodes(parse(ROOT / "cluster/config.ini")) if n.name == "ndb_mgmd")
    expected = f"{mgm.params['hostname']}:{mgm.params.get('portnumber', '1186')}"
    assert expected.split(":")[0] == "mgm" and "mgm" in SERVICES
    assert cnf["mysqld"]["ndb-connectstring"] == expected
    assert cnf["mysql_cluster"]["ndb-connectstring"] == expected
    assert "ndbcluster" in cnf["mysqld"]


def test_ndb_start_order_uses_health_checks():
    for name, service in _ndb_services({"ndb", "four-data-nodes"}).items():
        assert "healthcheck" in service, name
        for dependency, condition in service.get("depends_on", {}).items():
            assert condition == {"condition": "service_healthy"}, (name, dependency)
    assert set(SERVICES["ndbd1"]["depends_on"]) == {"mgm"}
    assert set(SERVICES["mysqld1"]["depends_on"]) == {"ndbd1", "ndbd2"}


def test_sql_nodes_mount_the_init_scripts_and_get_the_passwords():
    for name in ("mysqld1", "mysqld2"):
        service = SERVICES[name]
        assert dict(bind_mounts(service))["./cluster/initdb"] == "/docker-entrypoint-initdb.d"
        env = service["environment"]
        assert {"MYSQL_ROOT_PASSWORD", "NDB_EXPORTER_PASSWORD", "NDB_LOADGEN_PASSWORD"} <= set(env)
    exporter_pw = {
        SERVICES[n]["environment"]["NDB_EXPORTER_PASSWORD"]
        for n in (*_exporters(SERVICES), "mysqld1")
    }
    assert len(exporter_pw) == 1
    assert SERVICES["ndbsim"]["environment"]["NDBSIM_PASSWORD"] in exporter_pw


# --- Prometheus ---------------------------------------------------------------------


@pytest.mark.integration
def test_prometheus_config_is_valid():
    promtool = shutil.which("promtool")
    if promtool is None:
        pytest.skip("promtool is not installed (.ci/system-packages installs it)")
    result = subprocess.run(
        [
            promtool,
            "check",
            "config",
            "--syntax-only",
            str(PROMETHEUS_CONFIG),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_rule_files_load_the_mounted_rules_but_not_their_tests():
    config = prometheus_config()
    rules_dir = ROOT / "provisioning/prometheus/rules"
    loaded = set()
    for pattern in config["rule_files"]:
        assert pattern.startswith("/etc/prometheus/rules/")
        loaded |= set(rules_dir.glob(pattern.removeprefix("/etc/prometheus/rules/")))
    assert loaded, "the rule_files globs match no rule file"
    assert all(path.parent == rules_dir for path in loaded)
    for path in loaded:
        assert "groups" in yaml.safe_load(path.read_text()), path.name


def test_grafana_time_interval_equals_the_scrape_interval():
    config = prometheus_config()
    interval = config["global"]["scrape_interval"]
    for ds in _datasources():
        if ds["type"] == "prometheus":
            assert ds.get("jsonData", {}).get("timeInterval") == interval, ds["name"]


# --- the commands of the project's own programs --------------------------------------


@pytest.mark.parametrize("name", sorted(_exporters(SERVICES)))
def test_exporter_command_is_accepted_by_the_exporter(name, monkeypatch):
    from ndbinfo_exporter.collectors.registry import all_collectors
    from ndbinfo_exporter.settings import parse as parse_exporter

    monkeypatch.setenv("NDB_EXPORTER_PASSWORD", "x")
    settings = parse_exporter(_command(SERVICES[name]), all_collectors())
    assert settings.mysqld_address == option(_command(SERVICES[name]), "--mysqld.address")
    assert settings.mysqld_username == "ndbexporter"


def test_ndbsim_command_is_accepted_by_ndbsim():
    from ndbsim.cli import serve_parser

    args = serve_parser().parse_args(_command(SERVICES["ndbsim"]))
    assert (args.host, args.port, args.control_port, args.user) == (
        "0.0.0.0",
        3306,
        8081,
        "ndbexporter",
    )
    assert (args.replica, args.replica_port) == (True, 3308)
    assert args.data_nodes % args.replicas == 0


def test_loadgen_command_is_accepted_by_the_load_generator():
    from ndb_loadgen.cli import _parser, _plan

    plan = _plan(_parser().parse_args(_command(SERVICES["loadgen"])))
    assert plan.workloads and plan.duration


def test_alertmanager_webhooks_reach_the_alert_sink():
    config = yaml.safe_load((ROOT / "provisioning/alertmanager/alertmanager.yml").read_text())
    urls = [
        hook["url"]
        for receiver in config["receivers"]
        for hook in receiver.get("webhook_configs", [])
    ]
    assert urls
    for url in urls:
        host, _, port = url.split("/")[2].partition(":")
        assert host in SERVICES, url
        assert SERVICES[host]["entrypoint"][-1] == port, url
