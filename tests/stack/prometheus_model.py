"""Read the compose stack's prometheus.yml the way Prometheus builds its targets: static
targets with their labels, and DNS-discovered ones (type A: the name is a compose service)
with the job's relabelling applied."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import yaml

CONFIG = Path(__file__).resolve().parents[2] / "provisioning" / "prometheus" / "prometheus.yml"


def config() -> dict:
    return yaml.safe_load(CONFIG.read_text())


def jobs() -> dict[str, dict]:
    return {job["job_name"]: job for job in config()["scrape_configs"]}


@dataclass(frozen=True)
class Target:
    host: str  # a static target's host, or the DNS name a discovered target resolves from
    port: int
    labels: dict[str, str]  # after relabelling, without the __ labels
    discovered: bool


def _relabel(labels: dict[str, str], rules: list[dict]) -> dict[str, str]:
    """Prometheus' `replace` action, the only one the stack uses."""
    labels = dict(labels)
    for rule in rules:
        assert rule.get("action", "replace") == "replace", rule
        value = rule.get("separator", ";").join(labels.get(s, "") for s in rule["source_labels"])
        match = re.fullmatch(rule.get("regex", "(.*)"), value)
        if match:
            replacement = re.sub(r"\$\{?(\d+)\}?", r"\\\1", rule.get("replacement", "$1"))
            labels[rule["target_label"]] = match.expand(replacement)
    return labels


def targets(job: dict) -> list[Target]:
    found = []
    for static in job.get("static_configs", []):
        for address in static["targets"]:
            host, port = address.rsplit(":", 1)
            labels = {"__address__": address, **static.get("labels", {})}
            found.append((host, int(port), labels, False))
    for dns in job.get("dns_sd_configs", []):
        assert dns.get("type") == "A", "only A records name compose services"
        for name in dns["names"]:
            labels = {"__address__": f"{name}:{dns['port']}", "__meta_dns_name": name}
            found.append((name, int(dns["port"]), labels, True))
    result = []
    for host, port, labels, discovered in found:
        labels = _relabel(labels, job.get("relabel_configs", []))
        labels.setdefault("instance", labels["__address__"])
        visible = {k: v for k, v in labels.items() if not k.startswith("__")}
        result.append(Target(host, port, visible, discovered))
    return result
