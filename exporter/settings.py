"""Command-line flags (named as mysqld_exporter's where the meaning is the same) and settings.

Each flag is declared once, as a field of the pydantic-settings model ``Settings``: its type,
default and bounds are the field's, its name, help and metavar the field's ``Flag``, and its
environment variable ``NDB_EXPORTER_`` and the field's name in capitals. The argparse parser,
the help text with its defaults and the error messages are made from these declarations.
Flags are parsed with argparse and validated by the model, which also reads the environment
variables for any flag not given; the MySQL password is only taken from the environment
(NDB_EXPORTER_PASSWORD, or MYSQLD_EXPORTER_PASSWORD), never a flag.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal, NoReturn

from ndbinfo_exporter import __version__
from ndbinfo_exporter.collectors.base import Collector
from ndbinfo_exporter.errors import ConfigError
from pydantic import AliasChoices, Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict, SettingsError

ENV_PREFIX = "NDB_EXPORTER_"
RESERVED_PATHS = ("/", "/probe", "/healthz", "/livez")


@dataclass(frozen=True)
class Flag:
    """The command-line side of a setting; its default, type and bounds are the field's, and
    its environment variable is ENV_PREFIX and the field's name in capitals."""

    name: str
    metavar: str
    help: str
    shown: str | None = None  # the default in words, where the value alone does not say it
    repeatable: bool = False  # comma-separated values, given once or more


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix=ENV_PREFIX, extra="forbid", populate_by_name=True)

    listen_address: Annotated[
        str, Flag("--web.listen-address", "ADDR", "address to listen on for HTTP requests")
    ] = ":9645"
    telemetry_path: Annotated[
        str, Flag("--web.telemetry-path", "PATH", "path under which to expose the metrics")
    ] = "/metrics"
    web_config_file: Annotated[
        Path | None,
        Flag(
            "--web.config.file",
            "FILE",
            "exporter-toolkit web configuration file: TLS and basic auth",
        ),
    ] = None
    my_cnf: Annotated[
        Path | None,
        Flag(
            "--config.my-cnf", "FILE", "MySQL option file with [client] and [client.NAME] sections"
        ),
    ] = None
    mysqld_address: Annotated[
        str | None,
        Flag(
            "--mysqld.address",
            "HOST:PORT",
            "SQL node to scrape on /metrics",
            shown="host, port or socket of [client], else none: /metrics serves only the "
            "exporter's own metrics",
        ),
    ] = None
    mysqld_username: Annotated[
        str | None,
        Flag(
            "--mysqld.username",
            "USER",
            "MySQL user; the password comes from NDB_EXPORTER_PASSWORD",
            shown="user of [client]",
        ),
    ] = None
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
    query_timeout: Annotated[
        float,
        Flag(
            "--exporter.query-timeout",
            "SECONDS",
            "upper bound for connecting and for each collector's query",
        ),
    ] = Field(default=10.0, gt=0)
    max_connections: Annotated[
        int,
        Flag(
            "--exporter.max-connections",
            "N",
            "most connections open to one SQL node for scrapes; the cluster view opens as many"
            " of its own while it is looked at",
        ),
    ] = Field(default=3, ge=1, le=100)
    scrape_timeout_offset: Annotated[
        float,
        Flag(
            "--exporter.scrape-timeout-offset",
            "SECONDS",
            "subtracted from Prometheus' X-Prometheus-Scrape-Timeout-Seconds",
        ),
    ] = Field(default=0.5, ge=0)
    refresh_max_age: Annotated[
        float,
        Flag(
            "--exporter.refresh-max-age",
            "SECONDS",
            "longest time the rows of the small slowly changing collectors"
            " (table_distribution, with the objects fingerprint, and table_detail; certificates"
            " and inventory at least an hour) are served"
            " without a change signal; 0 reads every slowly changing collector at every scrape",
        ),
    ] = Field(default=120.0, ge=0)
    scrape_reuse_age: Annotated[
        float,
        Flag(
            "--exporter.scrape-reuse-age",
            "SECONDS",
            "a scrape of /metrics or /probe within this many seconds of a finished scrape of the"
            " same target and collect[] is answered with that scrape: an HA pair of Prometheus"
            " servers reads the cluster once per interval when this is under the interval;"
            " 0 reads at every scrape",
        ),
    ] = Field(default=0.0, ge=0)
    probe_allowed_targets: Annotated[
        tuple[str, ...],
        NoDecode,
        Flag(
            "--probe.allowed-targets",
            "PATTERNS",
            "comma-separated host:port glob patterns /probe may scrape, besides the "
            "host:port of each [client.NAME]; repeatable",
            repeatable=True,
        ),
    ] = ()
    mgmd_address: Annotated[
        tuple[str, ...],
        NoDecode,
        Flag(
            "--mgmd.address",
            "HOST:PORT",
            "management server (ndb_mgmd, port 1186) of the cluster: node statuses and the"
            " cluster log; a second one is its failover, not a second cluster; repeatable",
            shown="ndb-connectstring of [mysql_cluster], else none",
            repeatable=True,
        ),
    ] = ()
    mgmd_event_log: Annotated[
        str | None,
        Flag(
            "--mgmd.event-log",
            "PATH",
            "append every cluster log event the exporter receives to PATH as a JSON line"
            " (- for stdout), for Loki, Vector or an OpenTelemetry collector",
        ),
    ] = None
    log_level: Annotated[
        Literal["debug", "info", "warn", "error"],
        Flag("--log.level", "LEVEL", "debug, info, warn or error"),
    ] = "info"
    log_format: Annotated[
        Literal["logfmt", "json"], Flag("--log.format", "FORMAT", "logfmt or json")
    ] = "logfmt"
    view_alerts_url: Annotated[  # checked by ndbinfo_exporter.health.alerts
        str | None,
        Flag(
            "--view.alerts-url",
            "URL",
            "Prometheus or Alertmanager whose Ndb* alerts the cluster view shows (the firing ones "
            "among its findings); "
            'filter=label="value" in the query keeps matching ones',
        ),
    ] = None

    @field_validator("listen_address")
    @classmethod
    def _check_listen_address(cls, value: str) -> str:
        listen_host_port(value)
        return value

    @field_validator("probe_allowed_targets", "mgmd_address", mode="before")
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


# Field name -> its Flag, in declaration order.
FLAGS = {
    name: meta
    for name, field in Settings.model_fields.items()
    for meta in field.metadata
    if isinstance(meta, Flag)
}


def default(name: str) -> Any:
    """The declared default of a setting."""
    return Settings.model_fields[name].default


def default_text(name: str) -> str:
    """The default of a flag as its help shows it."""
    return FLAGS[name].shown or _shown(default(name))


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
    flags = "\n".join(
        f"  {flag.name:<36} {ENV_PREFIX}{name.upper()}" for name, flag in FLAGS.items()
    )
    return (
        "Every --collector.NAME has a --no-collector.NAME that turns the collector off.\n\n"
        "The MySQL password comes from NDB_EXPORTER_PASSWORD (or MYSQLD_EXPORTER_PASSWORD),\n"
        "never from a flag. A flag not given is read from its environment variable:\n" + flags
    )


def _shown(value: Any) -> str:
    """A default as a user would type it: (), None and "" are "none", 120.0 is 120."""
    if isinstance(value, tuple | list):
        return ",".join(str(item) for item in value) or "none"
    if isinstance(value, float):
        return f"{value:g}"
    return "none" if value in (None, "") else str(value)


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
    for name, flag in FLAGS.items():
        parser.add_argument(
            flag.name,
            dest=name,
            metavar=flag.metavar,
            help=f"{flag.help} (default {default_text(name)})",
            **({"type": _comma_list, "action": "append"} if flag.repeatable else {}),
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
    flag = FLAGS[field].name if field in FLAGS else field
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
        elif FLAGS[dest].repeatable:
            values[dest] = tuple(item for group in value for item in group)
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
