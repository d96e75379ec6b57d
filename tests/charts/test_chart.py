"""The Helm chart: lint, rendering with the defaults and every example, strict schema
validation, the rules and dashboards it carries, and the label selectors between its objects."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import pytest
import yaml
from ndb_harness import running_exporter
from ndb_harness.thanos import RULER_GROUPS

from tests.charts.chart_render import (
    CHART,
    EVERYTHING,
    EXAMPLES,
    NAMESPACE,
    ROOT,
    kubeconform,
    objects,
    of_kind,
    run,
    sync_module,
    template,
    tool,
)
from tests.charts.kube_schemas import OLDEST_KUBERNETES

pytestmark = pytest.mark.integration  # helm and kubeconform from .tools/bin

RULES_DIR = ROOT / "provisioning" / "prometheus" / "rules"
DASHBOARDS_DIR = ROOT / "dashboards" / "generated"
VALUES = [None, *EXAMPLES, EVERYTHING]
IDS = ["defaults", *(path.name for path in EXAMPLES), EVERYTHING.name]
SCRAPE_KINDS = {"ServiceMonitor", "Probe", "PodMonitor"}


def test_chart_copies_equal_their_sources():
    stale = sync_module().stale()
    assert not stale, "run `make chart`: " + "; ".join(stale)


def test_app_version_is_the_project_version():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    chart = yaml.safe_load((CHART / "Chart.yaml").read_text())
    assert chart["apiVersion"] == "v2"
    assert chart["appVersion"] == project["version"]


@pytest.mark.parametrize("values", VALUES, ids=IDS)
def test_helm_lint(values):
    args = ["lint", "--strict", str(CHART)]
    if values is not None:
        args += ["--values", str(values)]
    result = run(tool("helm"), *args)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize(
    "setting",
    [
        "colectors.config=false",
        "scrapeJobs[0].name=mysql",
        "log.level=verbose",
        "prometheusRule.runbookBaseUrl=https://wiki.example.net/runbook#top",
    ],
)
def test_values_schema_rejects(setting):
    """A misspelt key, a job the alert rules would not select, a level the exporter refuses,
    a runbook base that already has an anchor."""
    result = run(tool("helm"), "lint", str(CHART), "--set", setting)
    assert result.returncode != 0
    assert "schema" in result.stdout + result.stderr


@pytest.mark.parametrize("values", VALUES, ids=IDS)
def test_renders_every_part(values):
    kinds = [doc["kind"] for doc in objects(values)]
    for kind in ("Deployment", "Service", "ServiceMonitor"):
        assert kinds.count(kind) >= 1, kind
    assert kinds.count("PrometheusRule") == len(list(RULES_DIR.glob("*.yml")))
    assert kinds.count("ConfigMap") == len(list(DASHBOARDS_DIR.glob("*.json")))
    assert "Secret" not in kinds


@pytest.mark.parametrize("values", VALUES, ids=IDS)
def test_kubeconform_strict(values):
    summary = kubeconform(template(values))
    assert summary["invalid"] == summary["errors"] == summary["skipped"] == 0
    assert summary["valid"] == len(objects(values))


def test_plain_helm_template_renders_valid_objects():
    """`helm template ndb charts/ndbinfo-exporter`, with Helm's default capabilities."""
    result = run(tool("helm"), "template", "ndb", str(CHART.relative_to(ROOT)))
    assert result.returncode == 0, result.stderr
    summary = kubeconform(result.stdout)
    assert summary["invalid"] == summary["errors"] == summary["skipped"] == 0
    assert summary["valid"] == len(objects())


def test_kube_version_admits_the_oldest_tested_release():
    chart = yaml.safe_load((CHART / "Chart.yaml").read_text())
    major, minor, _ = OLDEST_KUBERNETES[1].removeprefix("v").split(".")
    assert chart["kubeVersion"] == f">={major}.{minor}.0-0"


@pytest.mark.parametrize("values", VALUES, ids=IDS)
def test_kubeconform_strict_on_the_oldest_admitted_release(values):
    summary = kubeconform(template(values), OLDEST_KUBERNETES)
    assert summary["invalid"] == summary["errors"] == summary["skipped"] == 0
    assert summary["valid"] == len(objects(values))


def test_scrape_objects_per_target_kind():
    """Static targets give Probes, discovered ones ServiceMonitors: one per scrape job each."""
    static = of_kind(objects(CHART / "examples" / "static.yaml"), "Probe")
    operator = of_kind(objects(CHART / "examples" / "ndb-operator.yaml"), "ServiceMonitor")
    everything = objects(EVERYTHING)
    assert len(static) == 1 and static[0]["spec"]["jobName"] == "ndb"
    assert len(operator) == 2  # the exporter's own /metrics and the SQL nodes' /probe
    assert len(of_kind(everything, "Probe")) == 2
    assert len(of_kind(everything, "ServiceMonitor")) == 3
    assert len(of_kind(everything, "PodMonitor")) == 1


def _rendered_groups(docs: list[dict]) -> list[dict]:
    """The groups of every PrometheusRule, without the Thanos Ruler's partial response
    strategy (test_thanos_ruler_objects)."""
    return [
        {k: v for k, v in group.items() if k != "partial_response_strategy"}
        for rule in of_kind(docs, "PrometheusRule")
        for group in rule["spec"]["groups"]
    ]


def _source_groups() -> list[dict]:
    return [
        group
        for path in sorted(RULES_DIR.glob("*.yml"))
        for group in yaml.safe_load(path.read_text())["groups"]
    ]


@pytest.mark.parametrize("values", VALUES, ids=IDS)
def test_prometheus_rules_equal_the_source_groups(values):
    """Every alert and recording rule, with the annotations' {{ $labels.x }} left to Prometheus."""
    rendered = _rendered_groups(objects(values))
    assert rendered == _source_groups()
    rules = [rule for group in rendered for rule in group["rules"]]
    assert sum("alert" in rule for rule in rules) >= 1
    assert sum("record" in rule for rule in rules) >= 1
    assert any("{{ $labels." in json.dumps(rule.get("annotations", {})) for rule in rules)


def _runbook_urls(groups: list[dict]) -> list[str]:
    return [
        rule["annotations"]["runbook_url"]
        for group in groups
        for rule in group["rules"]
        if "runbook_url" in rule.get("annotations", {})
    ]


def test_default_runbook_base_is_the_rule_files_base():
    default = yaml.safe_load((CHART / "values.yaml").read_text())["prometheusRule"]
    bases = {url.split("#", 1)[0] for url in _runbook_urls(_source_groups())}
    assert bases == {default["runbookBaseUrl"]}


def test_runbook_base_url_changes_every_runbook_url_and_nothing_else(tmp_path):
    base = "https://wiki.example.net/display/NDB/Runbook?page=1&copy=$1"
    values = tmp_path / "values.yaml"
    values.write_text(yaml.safe_dump({"prometheusRule": {"runbookBaseUrl": base}}))
    expected = _source_groups()
    for group in expected:
        for rule in group["rules"]:
            annotations = rule.get("annotations", {})
            if "alert" in rule:
                anchor = annotations["runbook_url"].split("#", 1)[1]
                annotations["runbook_url"] = f"{base}#{anchor}"
    rendered = _rendered_groups(objects(values))
    assert rendered == expected
    assert len(_runbook_urls(rendered)) == len(_runbook_urls(_source_groups())) > 0


@pytest.mark.parametrize("values", [None, EVERYTHING], ids=["defaults", EVERYTHING.name])
def test_dashboard_configmaps(values):
    settings = yaml.safe_load(values.read_text()) if values else {}
    dashboards = {**yaml.safe_load((CHART / "values.yaml").read_text())["dashboards"]}
    dashboards.update(settings.get("dashboards", {}))
    maps = of_kind(objects(values), "ConfigMap")
    rendered = {name: json.loads(text) for cm in maps for name, text in cm["data"].items()}
    sources = {path.name: json.loads(path.read_text()) for path in DASHBOARDS_DIR.glob("*.json")}
    assert rendered == sources
    for cm in maps:
        meta = cm["metadata"]
        assert meta["labels"][dashboards["label"]] == dashboards["labelValue"]
        assert meta["namespace"] == (dashboards["namespace"] or NAMESPACE)
        folder = (meta.get("annotations") or {}).get(dashboards["folderAnnotation"], "")
        assert folder == dashboards["folder"]


def _matches(selector: dict, labels: dict) -> bool:
    assert selector, "an empty selector selects everything"
    assert set(selector) <= {"matchLabels"}, selector
    return all(labels.get(key) == value for key, value in selector["matchLabels"].items())


def _pod_labels(docs: list[dict]) -> dict:
    (deployment,) = of_kind(docs, "Deployment")
    return deployment["spec"]["template"]["metadata"]["labels"]


def _container(docs: list[dict]) -> dict:
    (deployment,) = of_kind(docs, "Deployment")
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    return container


@pytest.mark.parametrize("values", VALUES, ids=IDS)
def test_selectors_select_the_chart_objects(values):
    docs = objects(values)
    (deployment,) = of_kind(docs, "Deployment")
    (service,) = of_kind(docs, "Service")
    pod_labels = _pod_labels(docs)
    container_ports = {port["name"] for port in _container(docs)["ports"]}
    assert _matches(deployment["spec"]["selector"], pod_labels)
    assert _matches({"matchLabels": service["spec"]["selector"]}, pod_labels)
    assert {port["targetPort"] for port in service["spec"]["ports"]} <= container_ports
    service_ports = {port["name"]: port["port"] for port in service["spec"]["ports"]}
    address = f"{service['metadata']['name']}.{service['metadata']['namespace']}.svc:{service_ports['http']}"
    for policy in of_kind(docs, "NetworkPolicy"):
        assert _matches(policy["spec"]["podSelector"], pod_labels)
        for rule in policy["spec"]["ingress"]:
            assert {port["port"] for port in rule["ports"]} <= container_ports
    monitors = of_kind(docs, "ServiceMonitor")
    (own,) = [m for m in monitors if m["spec"]["endpoints"][0]["path"] == "/metrics"]
    probing = [m for m in monitors if m is not own]
    assert _matches(own["spec"]["selector"], service["metadata"]["labels"])
    assert own["spec"]["namespaceSelector"]["matchNames"] == [service["metadata"]["namespace"]]
    assert {endpoint["port"] for endpoint in own["spec"]["endpoints"]} <= set(service_ports)
    for monitor in probing:  # select the SQL nodes' Service, scrape the exporter's
        for endpoint in monitor["spec"]["endpoints"]:
            assert endpoint["path"] == "/probe"
            relabel = [r for r in endpoint["relabelings"] if r.get("targetLabel") == "__address__"]
            assert [r["replacement"] for r in relabel] == [address]
    for probe in of_kind(docs, "Probe"):
        assert probe["spec"]["prober"]["url"] == address
        assert probe["spec"]["prober"]["path"] == "/probe"


@pytest.mark.parametrize("values", VALUES, ids=IDS)
def test_scrape_jobs_carry_cluster_and_an_ndb_job(values):
    """The rules join on cluster (and pair a replica with its source on source_cluster) and
    select job=~".*ndb.*"."""
    docs = objects(values)
    settings = yaml.safe_load(values.read_text()) if values else {}
    cluster = settings.get("cluster") or "ndb"  # the release name
    source = settings.get("sourceCluster")  # absent when not set
    for doc in docs:
        if doc["kind"] == "Probe":
            assert "ndb" in doc["spec"]["jobName"]
            labels = doc["spec"]["targets"]["staticConfig"]["labels"]
            assert (labels["cluster"], labels.get("source_cluster")) == (cluster, source)
        elif doc["kind"] in SCRAPE_KINDS:
            endpoints = doc["spec"].get("endpoints") or doc["spec"]["podMetricsEndpoints"]
            for endpoint in endpoints:
                labels = {
                    r.get("targetLabel"): r.get("replacement") for r in endpoint["relabelings"]
                }
                assert (labels["cluster"], labels.get("source_cluster")) == (cluster, source)
                assert "ndb" in labels["job"]


def test_scrape_jobs_split_collectors_and_targets():
    """The cluster-wide job reads two SQL nodes only, with its own collect[] parameters."""
    docs = objects(EVERYTHING)
    probes = {doc["spec"]["jobName"]: doc["spec"] for doc in of_kind(docs, "Probe")}
    assert len(probes["ndb-sql"]["targets"]["staticConfig"]["static"]) == 3
    assert len(probes["ndb-cluster"]["targets"]["staticConfig"]["static"]) == 2
    assert probes["ndb-sql"]["params"] == [{"name": "collect[]", "values": ["status"]}]
    monitors = {doc["metadata"]["name"]: doc["spec"] for doc in of_kind(docs, "ServiceMonitor")}
    (cluster_job,) = monitors["ndb-ndbinfo-exporter-ndb-cluster"]["endpoints"]
    keep = cluster_job["relabelings"][0]
    assert keep["action"] == "keep" and keep["sourceLabels"] == ["__meta_kubernetes_pod_name"]
    pattern = re.compile(keep["regex"])
    names = [f"example-ndb-mysqld-{ordinal}" for ordinal in range(12)]
    assert [name for name in names if pattern.fullmatch(name)] == names[:2]
    assert cluster_job["params"]["collect[]"][0] == "nodes"
    operator = of_kind(objects(CHART / "examples" / "ndb-operator.yaml"), "ServiceMonitor")
    assert not any("params" in m["spec"]["endpoints"][0] for m in operator)


def test_static_instance_names():
    (probe,) = of_kind(objects(CHART / "examples" / "static.yaml"), "Probe")
    relabel = probe["spec"]["targets"]["staticConfig"]["relabelingConfigs"]
    for rule, name in zip(relabel, ["sql1", "sql2"], strict=True):
        assert re.fullmatch(rule["regex"], f"{name}.example.net:3306")
        assert rule["replacement"] == name and rule["targetLabel"] == "instance"


@pytest.mark.parametrize("values", VALUES, ids=IDS)
def test_exporter_container(values):
    """Non-root, read-only, no capabilities; probes on /healthz; credentials from Secrets."""
    docs = objects(values)
    (deployment,) = of_kind(docs, "Deployment")
    pod = deployment["spec"]["template"]["spec"]
    container = _container(docs)
    security = container["securityContext"]
    assert pod["securityContext"]["runAsNonRoot"] and pod["securityContext"]["runAsUser"] == 10001
    assert security["readOnlyRootFilesystem"] and security["capabilities"]["drop"] == ["ALL"]
    assert not security["allowPrivilegeEscalation"]
    assert security["seccompProfile"]["type"] == "RuntimeDefault"
    assert pod["automountServiceAccountToken"] is False
    for probe in (container["livenessProbe"], container["readinessProbe"]):
        handlers = {"httpGet", "tcpSocket", "exec", "grpc"} & set(probe)
        assert len(handlers) == 1, probe
        assert probe.get("httpGet", {"path": "/healthz"})["path"] == "/healthz"
    for env in container.get("env", []):
        assert "value" not in env, env  # only references to Secrets
    mounted = {mount["name"] for mount in container["volumeMounts"]}
    assert mounted <= {volume["name"] for volume in pod["volumes"]}
    assert "/tmp" in {mount["mountPath"] for mount in container["volumeMounts"]}
    args = container["args"]
    assert "--web.listen-address=:9645" in args
    assert container["ports"][0]["containerPort"] == 9645


def test_mysqld_address_only_from_a_default_target():
    """By default the Deployment's exporter has no SQL node of its own: /metrics connects
    nowhere."""
    args = _container(objects())["args"]
    assert not any(arg.startswith("--mysqld.address=") for arg in args)
    address = yaml.safe_load(EVERYTHING.read_text())["deployment"]["defaultTarget"]
    assert f"--mysqld.address={address}" in _container(objects(EVERYTHING))["args"]


def test_allowed_targets_cover_every_static_target():
    args = _container(objects(EVERYTHING))["args"]
    (allowed,) = [arg for arg in args if arg.startswith("--probe.allowed-targets=")]
    patterns = allowed.split("=", 1)[1].split(",")
    settings = yaml.safe_load(EVERYTHING.read_text())["targets"]
    assert patterns == [t["address"] for t in settings["static"]] + settings["allowedPatterns"]
    assert "--no-collector.config" in args and "--collector.table_detail" in args
    assert "--config.my-cnf=/etc/ndbinfo-exporter/my-cnf/my.cnf" in args


def test_no_credentials_in_the_default_values():
    values = yaml.safe_load((CHART / "values.yaml").read_text())
    assert values["mysql"]["passwordSecret"]["name"] == ""
    assert values["mysql"]["myCnfSecret"]["name"] == ""
    assert values["webConfigSecret"] == "" and values["scrape"]["basicAuth"] == {}


def _sql_node_chart(tmp_path: Path, template: str) -> Path:
    """A chart of SQL nodes that takes the exporter as a dependency, with one template."""
    parent = tmp_path / "sql-nodes"
    (parent / "templates").mkdir(parents=True)
    (parent / "charts").mkdir()
    (parent / "charts" / CHART.name).symlink_to(CHART, target_is_directory=True)
    (parent / "Chart.yaml").write_text("apiVersion: v2\nname: sql-nodes\nversion: 1.0.0\n")
    (parent / "values.yaml").write_text(
        yaml.safe_dump(
            {
                "ndbinfo-exporter": {
                    "deployment": {"enabled": False},
                    "sidecar": {"enabled": True, "podMonitor": {"matchLabels": {"app": "mysqld"}}},
                    "mysql": {"myCnfSecret": {"name": "ndb-exporter-my-cnf"}},
                    "prometheusRule": {"enabled": False},
                    "dashboards": {"enabled": False},
                }
            }
        )
    )
    (parent / "templates" / "sql-nodes.yaml").write_text(
        Path(__file__).with_name(template).read_text()
    )
    return parent


def test_sidecar_in_a_sql_node_statefulset(tmp_path):
    manifests = template(None, chart=_sql_node_chart(tmp_path, "sidecar-statefulset.yaml"))
    docs = [doc for doc in yaml.safe_load_all(manifests) if doc]
    assert sorted(doc["kind"] for doc in docs) == ["PodMonitor", "StatefulSet"]
    assert kubeconform(manifests)["valid"] == 2
    (statefulset,) = of_kind(docs, "StatefulSet")
    (monitor,) = of_kind(docs, "PodMonitor")
    pod = statefulset["spec"]["template"]
    assert _matches(monitor["spec"]["selector"], pod["metadata"]["labels"])
    mysqld, exporter = pod["spec"]["containers"]
    assert "--mysqld.address=127.0.0.1:3306" in exporter["args"]
    (endpoint,) = monitor["spec"]["podMetricsEndpoints"]
    assert endpoint["port"] in {port["name"] for port in exporter["ports"]}
    assert exporter["livenessProbe"]["httpGet"]["port"] == endpoint["port"]
    mounted = {mount["name"] for mount in exporter["volumeMounts"]}
    assert mounted <= {volume["name"] for volume in pod["spec"]["volumes"]}


def test_notes_print_the_sidecar(tmp_path):
    """The release notes carry the same container and volumes, ready to paste."""
    chart = _sql_node_chart(tmp_path, "sidecar-notes.yaml")
    (notes,) = of_kind(
        [doc for doc in yaml.safe_load_all(template(None, chart=chart)) if doc], "ConfigMap"
    )
    text = notes["data"]["notes"]
    containers = text.split("spec.template.spec.containers:\n", 1)[1].split("and under", 1)[0]
    volumes = text.split("spec.template.spec.volumes:\n", 1)[1].split("\n\n", 1)[0]
    (container,) = yaml.safe_load(containers)
    assert container["name"] == "ndbinfo-exporter"
    assert [port["name"] for port in container["ports"]] == ["ndb-exporter"]
    modes = {v["name"]: v.get("secret", {}).get("defaultMode") for v in yaml.safe_load(volumes)}
    assert modes["ndbinfo-exporter-my-cnf"] == 0o444


FILE_FLAGS = ("--config.my-cnf=", "--web.config.file=")


@pytest.mark.integration
@pytest.mark.parametrize("values", [CHART / "examples" / "static.yaml", EVERYTHING])
def test_the_exporter_accepts_the_rendered_flags(values):
    """The exporter starts with the Deployment's flags (the files of Secrets left out)."""
    args = [arg for arg in _container(objects(values))["args"] if not arg.startswith(FILE_FLAGS)]
    if not any(arg.startswith("--mysqld.username=") for arg in args):
        args.append("--mysqld.username=exporter")  # else from the my.cnf
    args = [arg for arg in args if not arg.startswith("--web.listen-address=")]  # a free port
    with running_exporter(args, env={"NDB_EXPORTER_PASSWORD": "not-used"}) as exporter:
        assert exporter.address.startswith("127.0.0.1:"), exporter.log


def test_thanos_ruler_objects_carry_the_ruler_labels_and_strategies():
    """With prometheusRule.thanosRuler, the rule files of RULER_GROUPS carry the Ruler's
    labels (not the Prometheus Operator's monitoringLabels, so that a site's Prometheus does not
    load them) and each group its partial_response_strategy; the chart's default strategies
    are those the two-site test runs."""
    defaults = yaml.safe_load((CHART / "values.yaml").read_text())["prometheusRule"]
    assert defaults["thanosRuler"]["partialResponseStrategy"] == RULER_GROUPS
    strategies, site_groups = {}, set()
    for rule in of_kind(objects(EVERYTHING), "PrometheusRule"):
        labels = rule["metadata"]["labels"]
        groups = rule["spec"]["groups"]
        if labels.get("thanos-ruler") == "cross-site":
            assert "release" not in labels
            strategies |= {group["name"]: group["partial_response_strategy"] for group in groups}
        else:
            assert labels["release"] == "monitoring"
            assert not any("partial_response_strategy" in group for group in groups)
            site_groups |= {group["name"] for group in groups}
    assert strategies == RULER_GROUPS
    assert not site_groups & set(RULER_GROUPS)
