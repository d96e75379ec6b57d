"""Credentials from a MySQL option file: the [client] section and [client.NAME] auth modules.

The file is read line by line as the MySQL client reads option files (mysys'
``search_default_file``): leading whitespace is ignored (an indented line is an option of its
own, never a continuation), ``#`` starts a comment outside quotes, a value in matching quotes
loses them, backslash escapes (``\\n``, ``\\t``, ``\\s``, ``\\\\``, ...) are decoded, the
last value of an option wins, and ``!include FILE`` and ``!includedir DIR`` read more files.
Where the client reads a file differently than expected, or ignores a mistake silently, this
reader refuses with one line naming the file and the line: a header without ``]``, an option
outside a section, an option the client does not know, an abbreviated option name, a
relative or missing ``!include``. No error message quotes a value, and an option name is
quoted only when it looks like one (a stray line could be a password).
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from pathlib import Path

from ndbinfo_exporter.errors import ConfigError

# Options the exporter uses; ``probe-targets`` (host:port patterns the section applies to
# besides its own host:port) is the exporter's own, to be written ``loose-probe-targets``
# when the mysql client reads the same file.
USED = ("user", "password", "host", "port", "socket", "ssl-ca", "ssl-cert", "ssl-key")
EXPORTER_OPTIONS = ("probe-targets",)

# Options the mysql (8.x) and mariadb (10.x, 11.x) clients accept in [client]: a file with
# any other option makes the client stop with "unknown variable", and so does the exporter.
CLIENT_OPTIONS = frozenset(
    [
        "abort-source-on-error",
        "auto-rehash",
        "auto-vertical-output",
        "batch",
        "binary-as-hex",
        "binary-mode",
        "bind-address",
        "character-sets-dir",
        "column-names",
        "column-type-info",
        "comments",
        "commands",
        "compress",
        "compression-algorithms",
        "connect-expired-password",
        "connect-timeout",
        "database",
        "debug",
        "debug-check",
        "debug-info",
        "default-auth",
        "default-character-set",
        "delimiter",
        "dns-srv-name",
        "enable-cleartext-plugin",
        "execute",
        "force",
        "get-server-public-key",
        "histignore",
        "host",
        "html",
        "i-am-a-dummy",
        "ignore-spaces",
        "init-command",
        "line-numbers",
        "load-data-local-dir",
        "local-infile",
        "max-allowed-packet",
        "max-join-size",
        "named-commands",
        "net-buffer-length",
        "network-namespace",
        "no-auto-rehash",
        "no-beep",
        "no-defaults",
        "one-database",
        "pager",
        "password",
        "password1",
        "password2",
        "password3",
        "pipe",
        "plugin-dir",
        "port",
        "print-query-on-error",
        "progress-reports",
        "prompt",
        "protocol",
        "quick",
        "quick-max-column-width",
        "raw",
        "reconnect",
        "safe-updates",
        "sandbox",
        "secure-auth",
        "select-limit",
        "server-arg",
        "server-public-key-path",
        "shared-memory-base-name",
        "show-warnings",
        "sigint-ignore",
        "silent",
        "skip-column-names",
        "skip-line-numbers",
        "socket",
        "ssl",
        "ssl-ca",
        "ssl-capath",
        "ssl-cert",
        "ssl-cipher",
        "ssl-crl",
        "ssl-crlpath",
        "ssl-fips-mode",
        "ssl-fp",
        "ssl-fplist",
        "ssl-key",
        "ssl-mode",
        "ssl-session-data",
        "ssl-session-data-continue-on-failed-reuse",
        "ssl-verify-server-cert",
        "syslog",
        "system-command",
        "table",
        "tee",
        "tls-ciphersuites",
        "tls-sni-servername",
        "tls-version",
        "unbuffered",
        "user",
        "verbose",
        "vertical",
        "wait",
        "xml",
        "zstd-compression-level",
    ]
)
_KNOWN = CLIENT_OPTIONS | set(EXPORTER_OPTIONS)
_BOOLEAN_PREFIXES = ("skip-", "enable-", "disable-", "maximum-")
_INCLUDE_DEPTH = 10  # as the client: deeper nesting is a loop
_SPACE = " \t\r\n\v\f"
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "s": " ", '"': '"', "'": "'", "\\": "\\"}
_NAME_SHAPE = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,63}")


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
    probe_targets: tuple[str, ...] = ()


@dataclass(frozen=True)
class _Value:
    text: str | None  # None: the option was given without "="
    path: Path
    line: int
    written: str  # the option's name as written


def _strip_comment(line: str) -> str:
    """The line up to a ``#`` outside quotes (a backslash escapes a quote inside quotes)."""
    quote = None
    escape = False
    for index, char in enumerate(line):
        if char in "'\"" and not escape:
            if quote is None:
                quote = char
            elif quote == char:
                quote = None
        if quote is None and char == "#":
            return line[:index]
        escape = quote is not None and char == "\\" and not escape
    return line


def _unescape(value: str) -> str:
    out = []
    index = 0
    while index < len(value):
        char = value[index]
        if char == "\\" and index + 1 < len(value):
            index += 1
            out.append(_ESCAPES.get(value[index], "\\" + value[index]))
        else:
            out.append(char)
        index += 1
    return "".join(out)


def _option(line: str) -> tuple[str, str | None]:
    body = _strip_comment(line)
    name, sep, value = body.partition("=")
    name = name.strip(_SPACE)
    if not sep:
        return name, None
    value = value.strip(_SPACE)
    if len(value) >= 2 and value[0] in "'\"" and value[-1] == value[0]:
        value = value[1:-1]
    return name, _unescape(value)


class _Reader:
    """Every section's options, in the order the client reads them (the last value wins)."""

    def __init__(self) -> None:
        self.sections: dict[str, dict[str, _Value]] = {}

    def read(self, path: Path, depth: int = 0) -> None:
        try:
            text = path.read_bytes().decode("utf-8")
        except OSError as exc:
            raise ConfigError(f"cannot read {path}: {exc.strerror or exc}") from None
        except UnicodeDecodeError:
            raise ConfigError(f"cannot parse {path}: not UTF-8 text") from None
        section: str | None = None
        for number, raw in enumerate(text.splitlines(), 1):
            line = raw.lstrip(_SPACE)
            where = f"{path} line {number}"
            if not line or line[0] in "#;":
                continue
            if line[0] == "!":
                self._directive(where, line, path, depth)
            elif line[0] == "[":
                end = line.find("]")
                if end < 0:
                    raise ConfigError(f"{where}: section header without ']'")
                section = line[1:end].rstrip(_SPACE).lower()
                self.sections.setdefault(section, {})
            elif section is None:
                raise ConfigError(f"{where}: option before the first [section]")
            else:
                name, value = _option(line)
                key = name.replace("_", "-")
                self.sections[section][key] = _Value(value, path, number, name)

    def _directive(self, where: str, line: str, path: Path, depth: int) -> None:
        word, _, argument = _strip_comment(line).partition(" ")
        argument = argument.strip(_SPACE)
        if word not in ("!include", "!includedir") or not argument:
            raise ConfigError(f"{where}: expected '!include FILE' or '!includedir DIR'")
        target = Path(argument)
        if not target.is_absolute():
            raise ConfigError(f"{where}: {word} needs an absolute path")
        if depth >= _INCLUDE_DEPTH:
            raise ConfigError(f"{where}: {word} nested more than {_INCLUDE_DEPTH} deep")
        if word == "!include":
            self.read(target, depth + 1)
            return
        try:
            names = sorted(entry for entry in target.iterdir() if entry.suffix == ".cnf")
        except OSError as exc:
            raise ConfigError(f"{where}: cannot read {target}: {exc.strerror or exc}") from None
        for entry in names:
            self.read(entry, depth + 1)


def _describe(name: str, value: _Value) -> str:
    """The option's name when it is safe to show: a line without "=" may be a stray secret,
    so its text is shown only when it is close to an option's name."""
    looks_like_a_name = _NAME_SHAPE.fullmatch(name) is not None
    close = difflib.get_close_matches(name, sorted(_KNOWN), n=1, cutoff=0.8)
    if looks_like_a_name and (value.text is not None or close):
        hint = f" (did you mean '{close[0]}'?)" if close and close[0] != name else ""
        return f"'{name}'{hint}"
    return "(its text is not shown: it may be a secret)"


def _known(section: str, name: str, value: _Value) -> str | None:
    """The option ``name`` refers to; None for a ``loose-`` option the client does not know
    (it skips those). ConfigError for an unknown or abbreviated name."""
    where = f"{value.path} line {value.line}"
    loose = name.startswith("loose-")
    base = name.removeprefix("loose-")
    if base in _KNOWN:
        return base
    for prefix in _BOOLEAN_PREFIXES:
        if base.startswith(prefix) and base[len(prefix) :] in CLIENT_OPTIONS:
            return base
    if loose:
        return None
    if _NAME_SHAPE.fullmatch(base) and any(option.startswith(base) for option in _KNOWN):
        full = next(option for option in sorted(_KNOWN) if option.startswith(base))
        raise ConfigError(
            f"{where}: option '{value.written}' in [{section}] is an abbreviation: write '{full}'"
        )
    raise ConfigError(f"{where}: unknown option {_describe(value.written, value)} in [{section}]")


def _section(name: str, options: dict[str, _Value]) -> ClientSection:
    values: dict[str, object] = {}
    for raw_name, value in options.items():
        option = _known(name, raw_name, value)
        if option == "probe-targets":
            targets = [part.strip() for part in (value.text or "").split(",") if part.strip()]
            values["probe_targets"] = tuple(targets)
        elif option == "port":
            text = value.text or ""
            if not text.isdigit() or not 0 < int(text) < 65536:
                raise ConfigError(
                    f"{value.path} line {value.line}: [{name}] port must be a number "
                    "from 1 to 65535"
                )
            values["port"] = int(text)
        elif option in USED:
            values[option.replace("-", "_")] = value.text or ""
    return ClientSection(**values)


def load(path: str | Path) -> dict[str, ClientSection]:
    """Sections keyed "client" and "client.NAME" (lower case, as the client matches group
    names); other sections ([mysqld], [mysql], ...) are not checked and not used."""
    reader = _Reader()
    reader.read(Path(path))
    return {
        name: _section(name, options)
        for name, options in reader.sections.items()
        if name == "client" or name.startswith("client.")
    }


def connectstring(path: str | Path) -> tuple[str, ...]:
    """The management servers of `ndb-connectstring` in [mysql_cluster] (as ndb_mgm and the
    data nodes read it): "host[:port]" items separated by commas; a "nodeid=N" item names the
    reader's own node id and is left out."""
    reader = _Reader()
    reader.read(Path(path))
    options = reader.sections.get("mysql_cluster", {})
    value = options.get("ndb-connectstring") or options.get("connect-string")
    if value is None:
        return ()
    items = [part.strip() for part in (value.text or "").split(",")]
    return tuple(item for item in items if item and not item.lower().startswith("nodeid="))
