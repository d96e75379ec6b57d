"""Command-line flags (named as mysqld_exporter's where the meaning is the same) and settings.

Flags are parsed with argparse and validated by a pydantic-settings model, which also reads
``NDB_EXPORTER_*`` environment variables for any flag not given; the MySQL password is only
taken from the environment (NDB_EXPORTER_PASSWORD, or MYSQLD_EXPORTER_PASSWORD), never a flag.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any, Literal, NoReturn

from ndbinfo_exporter import __version__
from ndbinfo_exporter.collectors.base import Collector
from ndbinfo_exporter.errors import ConfigError
from pydantic import AliasChoices, Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict, SettingsError

DEFAULT_PORT = 9645
ENV_PREFIX = "NDB_EXPORTER_"

FLAGS = {
    "listen_address": "--web.listen-address",
    "telemetry_path": "--web.telemetry-path",
    "web_config_file": "--web.config.file",
    "my_cnf": "--config.my-cnf",
    "mysqld_address": "--mysqld.address",
    "mysqld_username": "--mysqld.username",
    "query_timeout": "--exporter.query-timeout",
    "max_connections": "--exporter.max-connections",
    "scrape_timeout_offset": "--exporter.scrape-timeout-offset",
    "refresh_max_age": "--exporter.refresh-max-age",
    "probe_allowed_targets": "--probe.allowed-targets",
    "log_level": "--log.level",
    "log_format": "--log.format",
    "view_alerts_url": "--view.alerts-url",
}
RESERVED_PATHS = ("/", "/probe", "/healthz", "/livez")


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix=ENV_PREFIX, extra="forbid", populate_by_name=True)

    listen_address: str = f":{DEFAULT_PORT}"
    telemetry_path: str = "/metrics"
    web_config_file: Path | None = None
    my_cnf: Path | None = None
    mysqld_address: str | None = None
    mysqld_username: str | None = None
    password: SecretStr | None = Field(
        default=None,
        validation_alias=AliasChoices(
            "NDB_EXPORTER_PASSWORD", "MYSQLD_EXPORTER_PASSWORD", "password"
        ),
    )
    # Collector name -> enabled, only for collectors named by a flag.
    collectors: dict[str, bool] = Field(default_factory=dict)
    # Collector name -> option name -> value, only for options given by a flag.
    collector_options: dict[str, dict[str, Any]] = Field(default_factory=dict)
    query_timeout: float = Field(default=10.0, gt=0)
    max_connections: int = Field(default=3, ge=1, le=100)
    scrape_timeout_offset: float = Field(default=0.5, ge=0)
    refresh_max_age: float = Field(default=120.0, ge=0)
    probe_allowed_targets: Annotated[tuple[str, ...], NoDecode] = ()
    log_level: Literal["debug", "info", "warn", "error"] = "info"
    log_format: Literal["logfmt", "json"] = "logfmt"
    view_alerts_url: str | None = None  # checked by ndbinfo_exporter.view.alerts

    @field_validator("listen_address")
    @classmethod
    def _check_listen_address(cls, value: str) -> str:
        listen_host_port(value)
        return value

    @field_validator("probe_allowed_targets", mode="before")
    @classmethod
    def _split_patterns(cls, value: Any) -> Any:
        """The environment gives "a:1,b:*" as one string."""
        return tuple(_comma_list(value)) if isinstance(value, str) else value

    @field_validator("telemetry_path")
    @classmethod
    def _check_telemetry_path(cls, value: str) -> str:
        if not value.startswith("/") or value in RESERVED_PATHS:
            raise ValueError("must start with / and not be /, /probe, /healthz or /livez")
        return value

    def enabled(self, collectors: Sequence[Collector]) -> list[Collector]:
        return [c for c in collectors if self.collectors.get(c.name, c.default_enabled)]

    def options_for(self, collector: Collector) -> dict[str, Any]:
        given = self.collector_options.get(collector.name, {})
        return {option.name: given.get(option.name, option.default) for option in collector.options}


def listen_host_port(address: str) -> tuple[str, int]:
    """ "host:port", "[v6]:port" or ":port" (every IPv4 interface, as the Go exporters' ":port")."""
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit() or int(port) > 65535:
        raise ValueError(f"{address!r} is not host:port")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    elif ":" in host:
        raise ValueError(f"IPv6 address {address!r} needs brackets: [addr]:port")
    return host or "0.0.0.0", int(port)


def _epilog() -> str:
    flags = "\n".join(f"  {flag:<36} {ENV_PREFIX}{name.upper()}" for name, flag in FLAGS.items())
    return (
        "Every --collector.NAME has a --no-collector.NAME that turns the collector off.\n\n"
        "The MySQL password comes from NDB_EXPORTER_PASSWORD (or MYSQLD_EXPORTER_PASSWORD),\n"
        "never from a flag. A flag not given is read from its environment variable:\n" + flags
    )


def _shown(default: Any) -> str:
    """A default as a user would type it: (), None and "" are "none"."""
    if isinstance(default, tuple | list):
        return ",".join(str(item) for item in default) or "none"
    return "none" if default in (None, "") else str(default)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise ConfigError(message)


def _comma_list(value: str) -> list[str]:
    return [item.strip() for item in value.split(",") if item.strip()]


def _parser(collectors: Sequence[Collector]) -> _Parser:
    parser = _Parser(
        prog="ndbinfo-exporter",
        usage="%(prog)s [flags]",
        description="Prometheus exporter for MySQL NDB Cluster (ndbinfo and Ndb_% status).",
        allow_abbrev=False,
        argument_default=argparse.SUPPRESS,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=_epilog(),
    )
    parser.add_argument("--version", action="version", version=f"ndbinfo-exporter {__version__}")
    add = parser.add_argument
    add(
        FLAGS["listen_address"],
        dest="listen_address",
        metavar="ADDR",
        help=f"address to listen on for HTTP requests (default :{DEFAULT_PORT})",
    )
    add(
        FLAGS["telemetry_path"],
        dest="telemetry_path",
        metavar="PATH",
        help="path under which to expose the metrics (default /metrics)",
    )
    add(
        FLAGS["web_config_file"],
        dest="web_config_file",
        metavar="FILE",
        help="exporter-toolkit web configuration file: TLS and basic auth",
    )
    add(
        FLAGS["my_cnf"],
        dest="my_cnf",
        metavar="FILE",
        help="MySQL option file with [client] and [client.NAME] sections",
    )
    add(
        FLAGS["mysqld_address"],
        dest="mysqld_address",
        metavar="HOST:PORT",
        help="SQL node to scrape on /metrics (default: host, port or socket of [client], else "
        "none: /metrics serves only the exporter's own metrics)",
    )
    add(
        FLAGS["mysqld_username"],
        dest="mysqld_username",
        metavar="USER",
        help="MySQL user (default: user of [client]); the password comes from NDB_EXPORTER_PASSWORD",
    )
    add(
        FLAGS["query_timeout"],
        dest="query_timeout",
        metavar="SECONDS",
        help="upper bound for connecting and for each collector's query (default 10)",
    )
    add(
        FLAGS["max_connections"],
        dest="max_connections",
        metavar="N",
        help="most connections open to one SQL node at any moment (default 3)",
    )
    add(
        FLAGS["scrape_timeout_offset"],
        dest="scrape_timeout_offset",
        metavar="SECONDS",
        help="subtracted from Prometheus' X-Prometheus-Scrape-Timeout-Seconds (default 0.5)",
    )
    add(
        FLAGS["refresh_max_age"],
        dest="refresh_max_age",
        metavar="SECONDS",
        help="longest time the rows of a slowly changing collector (fragments, replicas,"
        " dictionary, configuration, ...) are served without a change signal (default 120;"
        " 0 reads them at every scrape)",
    )
    add(
        FLAGS["probe_allowed_targets"],
        dest="probe_allowed_targets",
        metavar="PATTERNS",
        type=_comma_list,
        action="append",
        help="comma-separated host:port glob patterns /probe may scrape, besides the "
        "host:port of each [client.NAME]; repeatable",
    )
    add(
        FLAGS["log_level"],
        dest="log_level",
        metavar="LEVEL",
        help="debug, info, warn or error (default info)",
    )
    add(
        FLAGS["log_format"],
        dest="log_format",
        metavar="FORMAT",
        help="logfmt or json (default logfmt)",
    )
    add(
        FLAGS["view_alerts_url"],
        dest="view_alerts_url",
        metavar="URL",
        help="Prometheus or Alertmanager whose firing Ndb* alerts the cluster view shows; "
        'filter=label="value" in the query keeps matching ones (default: none)',
    )
    group = parser.add_argument_group("collectors")
    for collector in collectors:
        state = "enabled" if collector.default_enabled else "disabled"
        group.add_argument(
            f"--collector.{collector.name}",
            dest=f"collector:{collector.name}",
            action="store_const",
            const=True,
            help=f"{collector.help} ({state} by default)",
        )
        group.add_argument(
            f"--no-collector.{collector.name}",
            dest=f"collector:{collector.name}",
            action="store_const",
            const=False,
            help=argparse.SUPPRESS,  # named once in the epilog, not 25 times
        )
        for option in collector.options:
            group.add_argument(
                f"--collector.{collector.name}.{option.name}",
                dest=f"option:{collector.name}:{option.name}",
                type=option.type,
                metavar="VALUE",
                help=f"{option.help} (default {_shown(option.default)})",
            )
    return parser


def _first_error(exc: ValidationError) -> str:
    error = exc.errors()[0]
    field = str(error["loc"][0]) if error["loc"] else ""
    flag = FLAGS.get(field, field)
    message = error["msg"].removeprefix("Value error, ")
    return f"{flag}: {message}" if flag else message


def parse(argv: Sequence[str], collectors: Sequence[Collector]) -> Settings:
    """Raises ConfigError with a one-line message on any bad flag or value."""
    namespace = vars(_parser(collectors).parse_args(list(argv)))
    values: dict[str, Any] = {}
    enabled: dict[str, bool] = {}
    options: dict[str, dict[str, Any]] = {}
    for dest, value in namespace.items():
        kind, _, rest = dest.partition(":")
        if kind == "collector":
            enabled[rest] = value
        elif kind == "option":
            name, _, option = rest.partition(":")
            options.setdefault(name, {})[option] = value
        elif dest == "probe_allowed_targets":
            values[dest] = tuple(pattern for group in value for pattern in group)
        else:
            values[dest] = value
    if enabled:
        values["collectors"] = enabled
    if options:
        values["collector_options"] = options
    try:
        return Settings(**values)
    except ValidationError as exc:
        raise ConfigError(_first_error(exc)) from None
    except SettingsError as exc:
        raise ConfigError(f"bad environment variable: {str(exc).splitlines()[0]}") from None
