"""Read docker-compose.yml the way compose resolves it: defaults of ${VAR:-default},
profiles, published ports and the names each service answers to on the network."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
COMPOSE_FILE = ROOT / "docker-compose.yml"

_VAR = re.compile(r"\$\{(\w+)(?::?-([^}]*))?\}")


def interpolate(value: str) -> str:
    """Substitute ${VAR:-default} with its default, as compose does with VAR unset."""
    return _VAR.sub(lambda m: m.group(2) or "", value.replace("$$", "\0")).replace("\0", "$")


def _walk(node):
    if isinstance(node, str):
        return interpolate(node)
    if isinstance(node, list):
        return [_walk(item) for item in node]
    if isinstance(node, dict):
        return {key: _walk(value) for key, value in node.items()}
    return node


def load() -> dict:
    return _walk(yaml.safe_load(COMPOSE_FILE.read_text()))


@dataclass(frozen=True)
class Port:
    host_ip: str
    host_port: int
    container_port: int


def published_ports(service: dict) -> list[Port]:
    ports = []
    for entry in service.get("ports", []):
        parts = str(entry).split(":")
        host_ip = parts[0] if len(parts) == 3 else "0.0.0.0"
        ports.append(Port(host_ip, int(parts[-2]), int(parts[-1].split("/")[0])))
    return ports


def active_services(compose: dict, profiles: set[str]) -> dict[str, dict]:
    """Services compose starts with these profiles enabled."""
    return {
        name: service
        for name, service in compose["services"].items()
        if not service.get("profiles") or profiles & set(service["profiles"])
    }


def network_names(services: dict[str, dict]) -> list[str]:
    """Every DNS name on the default network, once per service that answers to it."""
    names = []
    for name, service in services.items():
        names.append(name)
        networks = service.get("networks") or {}
        if isinstance(networks, dict):
            for net in networks.values():
                names.extend((net or {}).get("aliases", []))
    return names


def bind_mounts(service: dict) -> list[tuple[str, str]]:
    """(source relative to the project, target) of every bind mount."""
    mounts = []
    for volume in service.get("volumes", []):
        source, target = str(volume).split(":")[:2]
        if source.startswith((".", "/")):
            mounts.append((source, target))
    return mounts


def option(args: list[str], name: str) -> str | None:
    """Value of --name=value in a command list."""
    for arg in args:
        if arg.startswith(f"{name}="):
            return arg.split("=", 1)[1]
    return None
