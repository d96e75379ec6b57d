"""Credentials from a MySQL option file: the [client] section and [client.NAME] auth modules."""

from __future__ import annotations

import configparser
from dataclasses import dataclass, field
from pathlib import Path

from ndbinfo_exporter.errors import ConfigError

KEYS = ("user", "password", "host", "port", "socket", "ssl-ca", "ssl-cert", "ssl-key")


@dataclass(frozen=True)
class ClientSection:
    """One [client] or [client.NAME] section; only keys that were set are not None."""

    user: str | None = None
    password: str | None = field(default=None, repr=False)
    host: str | None = None
    port: int | None = None
    socket: str | None = None
    ssl_ca: str | None = None
    ssl_cert: str | None = None
    ssl_key: str | None = None


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value


def _section(path: Path, name: str, items: dict[str, str | None]) -> ClientSection:
    values: dict[str, object] = {}
    for raw_key, raw_value in items.items():
        key = raw_key.strip().replace("_", "-")
        if key not in KEYS:
            continue  # other client options (default-character-set, ...) do not apply
        value = _unquote((raw_value or "").strip())
        if key == "port":
            if not value.isdigit() or not 0 < int(value) < 65536:
                raise ConfigError(f"{path}: [{name}] port must be a number from 1 to 65535")
            values["port"] = int(value)
        else:
            values[key.replace("-", "_")] = value
    return ClientSection(**values)


def _where(exc: Exception) -> str:
    if isinstance(exc, configparser.MissingSectionHeaderError):
        return f"line {exc.lineno} is outside any [section]"
    if isinstance(exc, configparser.ParsingError) and exc.errors:
        return f"line {exc.errors[0][0]} is not 'key = value'"
    if isinstance(exc, UnicodeDecodeError):
        return "not UTF-8 text"
    return type(exc).__name__


def load(path: str | Path) -> dict[str, ClientSection]:
    """Sections keyed "client" and "client.NAME"; other sections ([mysqld], ...) are ignored."""
    path = Path(path)
    parser = configparser.ConfigParser(allow_no_value=True, interpolation=None, strict=False)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    try:
        with path.open(encoding="utf-8") as handle:
            parser.read_file(handle)
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror or exc}") from None
    except (configparser.Error, UnicodeDecodeError) as exc:
        # The parser's own text quotes the offending line, which may hold a password.
        raise ConfigError(f"cannot parse {path}: {_where(exc)}") from None
    return {
        name: _section(path, name, dict(parser.items(name, raw=True)))
        for name in parser.sections()
        if name == "client" or name.startswith("client.")
    }
