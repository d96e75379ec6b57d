"""Which SQL nodes the exporter may scrape, and with which credentials."""

from __future__ import annotations

import functools
import ipaddress
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from ndbinfo_exporter import logs, mycnf
from ndbinfo_exporter.errors import ConfigError
from ndbinfo_exporter.mycnf import ClientSection
from ndbinfo_exporter.settings import Settings

DEFAULT_PORT = 3306
MGMD_PORT = 1186
MAX_MGMD = 2  # a cluster's management servers read for one target (the second a failover)


@dataclass(frozen=True)
class TargetConfig:
    """How to reach one SQL node. ``name`` is what appears in logs, metrics and the view."""

    host: str
    port: int
    user: str
    password: str = field(default="", repr=False)
    socket: str | None = None
    ssl_ca: str | None = None
    ssl_cert: str | None = None
    ssl_key: str | None = None
    auth_module: str | None = None

    @property
    def name(self) -> str:
        return self.socket or join_address(self.host, self.port)

    @property
    def key(self) -> tuple[str, str, str | None]:
        """Identity for pooling and sharing in-flight scrapes (never holds the password)."""
        return (self.name, self.user, self.auth_module)


class ProbeRefused(Exception):
    """A /probe request that must not be served; ``status`` is the HTTP status to answer."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


def split_address(address: str, default_port: int = DEFAULT_PORT) -> tuple[str, int]:
    """ "host:port", "[v6]:port" or "host" -> (host, port); ValueError when malformed."""
    address = address.strip()
    if address.startswith("["):
        host, sep, rest = address[1:].partition("]")
        if not sep or (rest and not rest.startswith(":")):
            raise ValueError(f"malformed address {address!r}")
        port_text = rest[1:]
    elif address.count(":") == 1:
        host, port_text = address.split(":")
    elif ":" in address:
        raise ValueError(f"IPv6 address {address!r} needs brackets: [addr]:port")
    else:
        host, port_text = address, ""
    if not host:
        raise ValueError(f"address {address!r} has no host")
    if not port_text:
        return host, default_port
    if not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise ValueError(f"address {address!r} has an invalid port")
    return host, int(port_text)


def join_address(host: str, port: int) -> str:
    """(host, port) -> "host:port", an IPv6 address in brackets, as ``split_address`` reads it."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


@functools.cache
def pattern_regex(pattern: str) -> re.Pattern[str]:
    """A host:port glob: ``*`` and ``?`` stay within one dot-separated part of the host (or
    within the port), so "10.0.1.*:3306" cannot match "10.0.1.5.evil.example:3306"."""
    parts = []
    for char in pattern.lower():
        if char == "*":
            parts.append(r"[^.:\[\]]*")
        elif char == "?":
            parts.append(r"[^.:\[\]]")
        else:
            parts.append(re.escape(char))
    return re.compile("".join(parts))


def normalise_host(host: str) -> str:
    """One spelling per host: lower case, no trailing dot, an IP address in its short form
    ("DB1.example." and "db1.example" are one target, so are "[0:0::1]" and "[::1]")."""
    host = host.strip().lower().rstrip(".")
    try:
        return str(ipaddress.ip_address(host))
    except ValueError:
        return host


def _normalise(host: str, port: int) -> str:
    return join_address(normalise_host(host), port)


def _matches(address: str, patterns: tuple[str, ...]) -> bool:
    return any(pattern_regex(pattern).fullmatch(address) for pattern in patterns)


@dataclass(frozen=True)
class Targets:
    # The SQL node of /metrics; with ``probe_only``, only the credentials /probe starts from.
    default: TargetConfig
    auth_modules: Mapping[str, ClientSection]  # NAME of each [client.NAME]
    allowed_patterns: tuple[str, ...] = ()
    # No SQL node of its own: neither --mysqld.address nor host, port or socket in [client].
    probe_only: bool = False
    # The cluster's management servers read with /metrics (--mgmd.address, ndb-connectstring).
    mgmd: tuple[tuple[str, int], ...] = ()

    def mgmd_for_probe(self, addresses: list[str]) -> tuple[tuple[str, int], ...]:
        """The management servers a /probe request names (`mgmd=`, repeatable), each one
        configured or matching the allowed probe targets, as the SQL node must."""
        if len(addresses) > MAX_MGMD:
            raise ProbeRefused(400, f"at most {MAX_MGMD} mgmd addresses (one cluster)")
        out = []
        for address in addresses:
            try:
                host, port = split_address(address, MGMD_PORT)
            except ValueError as exc:
                raise ProbeRefused(400, f"mgmd: {exc}") from None
            normal = _normalise(host, port)
            known = {_normalise(h, p) for h, p in self.mgmd}
            if normal not in known and not _matches(normal, self.allowed_patterns):
                raise ProbeRefused(403, f"mgmd {address!r} is not in the allowed probe targets")
            out.append((normalise_host(host), port))
        return tuple(out)

    def allowed(self, host: str, port: int) -> bool:
        address = _normalise(host, port)
        if not self.probe_only and address == _normalise(self.default.host, self.default.port):
            return True
        if any(_applies(section, address) for section in self.auth_modules.values()):
            return True
        return _matches(address, self.allowed_patterns)

    def for_probe(self, address: str, auth_module: str | None) -> TargetConfig:
        """The target to scrape; its host is normalised, so that every spelling of one SQL
        node shares one connection pool. An auth module's credentials go only to the hosts
        its section names: its own ``host:port`` and its ``probe-targets`` patterns."""
        try:
            host, port = split_address(address)
        except ValueError as exc:
            raise ProbeRefused(400, str(exc)) from None
        if auth_module is not None:
            auth_module = auth_module.lower()  # as the client matches [client.NAME]
            if auth_module not in self.auth_modules:
                raise ProbeRefused(400, f"unknown auth_module {auth_module!r}")
        if not self.allowed(host, port):
            raise ProbeRefused(403, f"target {address!r} is not in the allowed probe targets")
        base = self.default
        section = self.auth_modules[auth_module] if auth_module else ClientSection()
        if auth_module and not _applies(section, _normalise(host, port)):
            raise ProbeRefused(
                403,
                f"auth_module {auth_module!r} does not apply to {address!r}: its section names "
                "the hosts it applies to (host and port, probe-targets)",
            )
        return TargetConfig(
            host=normalise_host(host),
            port=port,
            user=section.user or base.user,
            password=section.password if section.password is not None else base.password,
            ssl_ca=section.ssl_ca or base.ssl_ca,
            ssl_cert=section.ssl_cert or base.ssl_cert,
            ssl_key=section.ssl_key or base.ssl_key,
            auth_module=auth_module,
        )


def _section_addresses(section: ClientSection) -> set[str]:
    if not section.host:
        return set()
    return {_normalise(section.host, section.port or DEFAULT_PORT)}


def _applies(section: ClientSection, address: str) -> bool:
    return address in _section_addresses(section) or _matches(address, section.probe_targets)


def build(
    client: Mapping[str, ClientSection],
    address: str | None,
    username: str | None,
    password: str | None,
    allowed_patterns: tuple[str, ...],
    mgmd: tuple[str, ...] = (),
) -> Targets:
    """The default target from [client] overridden by flags and the password from the environment."""
    base = client.get("client", ClientSection())
    if address:
        try:
            host, port = split_address(address)
        except ValueError as exc:
            raise ConfigError(f"--mysqld.address: {exc}") from None
        socket = None
    else:
        host, port, socket = base.host or "localhost", base.port or DEFAULT_PORT, base.socket
    user = username or base.user
    if not user:
        raise ConfigError("no MySQL user: set --mysqld.username or user in the [client] section")
    password = password if password is not None else base.password or ""
    for section in client.values():
        logs.add_secret(section.password)
    logs.add_secret(password)
    for pattern in allowed_patterns:
        if not pattern.strip():
            raise ConfigError("--probe.allowed-targets: empty pattern")
    default = TargetConfig(
        host=host if socket else normalise_host(host),
        port=port,
        user=user,
        password=password,
        socket=socket,
        ssl_ca=base.ssl_ca,
        ssl_cert=base.ssl_cert,
        ssl_key=base.ssl_key,
    )
    modules = {name.split(".", 1)[1]: s for name, s in client.items() if name.startswith("client.")}
    return Targets(
        default=default,
        auth_modules=modules,
        allowed_patterns=allowed_patterns,
        probe_only=not (address or base.host or base.port or base.socket),
        mgmd=mgmd_addresses(mgmd),
    )


def from_settings(settings: Settings, allowed_patterns: tuple[str, ...] = ()) -> Targets:
    """The targets of every command: the [client] sections of --config.my-cnf, overridden by
    the flags, with the password from the environment; the management servers from
    --mgmd.address, else the [mysql_cluster] section's ndb-connectstring."""
    client = mycnf.load(settings.my_cnf) if settings.my_cnf else {}
    password = settings.password.get_secret_value() if settings.password is not None else None
    mgmd = settings.mgmd_address or (
        mycnf.connectstring(settings.my_cnf) if settings.my_cnf else ()
    )
    return build(
        client,
        settings.mysqld_address,
        settings.mysqld_username,
        password,
        allowed_patterns,
        mgmd,
    )


def mgmd_addresses(texts: tuple[str, ...]) -> tuple[tuple[str, int], ...]:
    """--mgmd.address values (default port 1186); ConfigError for a malformed one."""
    out = []
    for text in texts:
        try:
            host, port = split_address(text, MGMD_PORT)
        except ValueError as exc:
            raise ConfigError(f"--mgmd.address: {exc}") from None
        out.append((normalise_host(host), port))
    if len(set(out)) > MAX_MGMD:
        raise ConfigError(
            f"--mgmd.address: at most {MAX_MGMD} (the management servers of one cluster)"
        )
    return tuple(dict.fromkeys(out))
