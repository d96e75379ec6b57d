"""The exporter-toolkit web configuration file: TLS and basic auth with bcrypt hashes.

Relative file names are resolved against the directory of the configuration file, as
exporter-toolkit does.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import hashlib
import ssl
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import bcrypt
import yaml
from ndbinfo_exporter.errors import ConfigError
from pydantic import BaseModel, ConfigDict, ValidationError

CLIENT_AUTH = {
    "NoClientCert": ssl.CERT_NONE,
    "VerifyClientCertIfGiven": ssl.CERT_OPTIONAL,
    "RequireAndVerifyClientCert": ssl.CERT_REQUIRED,
}


class _TLSServerConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")
    cert_file: str
    key_file: str
    client_ca_file: str | None = None
    client_auth_type: Literal[
        "NoClientCert", "VerifyClientCertIfGiven", "RequireAndVerifyClientCert"
    ] = "NoClientCert"


class _WebConfigFile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    tls_server_config: _TLSServerConfig | None = None
    basic_auth_users: dict[str, str] | None = None


@dataclass(frozen=True)
class TLS:
    cert_file: str
    key_file: str
    client_ca_file: str | None
    cert_reqs: int


@dataclass(frozen=True)
class WebConfig:
    tls: TLS | None = None
    basic_auth: BasicAuth | None = None


class BasicAuth:
    """Checks an Authorization header against bcrypt hashes.

    - A successful check is cached, keyed by a SHA-256 of the credentials, so an authorised
      client pays bcrypt's cost once, and later requests are answered without a thread.
    - bcrypt runs on ``BCRYPT_THREADS`` threads of its own, one check at a time per client
      address: a flood of wrong passwords queues behind itself, and neither takes the
      threads the scrapes use nor every bcrypt thread.
    - An unknown user is checked against a dummy hash of the configured cost, so the answer
      takes as long as for a known user with a wrong password.
    """

    BCRYPT_THREADS = 2
    CACHE_SIZE = 1024

    def __init__(self, users: dict[str, bytes]):
        self._users = users
        self._verified: set[bytes] = set()
        cost = max(_cost(hashed) for hashed in users.values())
        self._unknown_user_hash = bcrypt.hashpw(b"unknown user", bcrypt.gensalt(rounds=cost))
        self._executor = ThreadPoolExecutor(self.BCRYPT_THREADS, thread_name_prefix="bcrypt")
        self._per_client: dict[str, _ClientQueue] = {}

    async def verify(self, authorization: str | None, client: str) -> bool:
        credentials = _parse_basic(authorization)
        if credentials is None:
            return False
        if _digest(*credentials) in self._verified:
            return True
        entry = self._per_client.setdefault(client, _ClientQueue())
        entry.waiting += 1
        try:
            async with entry.lock:
                loop = asyncio.get_running_loop()
                return await loop.run_in_executor(self._executor, self._check, *credentials)
        finally:
            entry.waiting -= 1
            if entry.waiting == 0:
                del self._per_client[client]

    def _check(self, user: bytes, password: bytes) -> bool:
        hashed = self._users.get(user.decode("utf-8", "replace"))
        ok = bcrypt.checkpw(password, hashed or self._unknown_user_hash) and hashed is not None
        if ok:
            if len(self._verified) >= self.CACHE_SIZE:
                self._verified.clear()
            self._verified.add(_digest(user, password))
        return ok


class _ClientQueue:
    """One client address's bcrypt checks, one at a time."""

    def __init__(self) -> None:
        self.lock = asyncio.Lock()
        self.waiting = 0


def _digest(user: bytes, password: bytes) -> bytes:
    return hashlib.sha256(user + b"\0" + password).digest()


def _cost(hashed: bytes) -> int:
    """The cost of a "$2y$10$..." hash (bcrypt checks the format when the file is loaded)."""
    return int(hashed.split(b"$")[2])


def _parse_basic(authorization: str | None) -> tuple[bytes, bytes] | None:
    if not authorization:
        return None
    scheme, _, encoded = authorization.partition(" ")
    if scheme.lower() != "basic":
        return None
    try:
        decoded = base64.b64decode(encoded.strip(), validate=True)
    except (binascii.Error, ValueError):
        return None
    user, sep, password = decoded.partition(b":")
    return (user, password) if sep else None


def _resolve(base: Path, name: str, what: str) -> str:
    path = Path(name)
    if not path.is_absolute():
        path = base / path
    if not path.is_file():
        raise ConfigError(f"web config: {what} {path} does not exist")
    return str(path)


def _first_error(exc: ValidationError) -> str:
    error = exc.errors()[0]
    where = ".".join(str(part) for part in error["loc"])
    if error["type"] == "extra_forbidden":
        return f"unsupported key {where}"
    return f"{where}: {error['msg']}"


def load(path: str | Path) -> WebConfig:
    path = Path(path)
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"cannot read web config {path}: {exc.strerror or exc}") from None
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark else ""
        raise ConfigError(f"cannot parse web config {path}{where}") from None
    try:
        parsed = _WebConfigFile.model_validate(raw or {})
    except ValidationError as exc:
        raise ConfigError(f"web config {path}: {_first_error(exc)}") from None
    return WebConfig(tls=_tls(path.parent, parsed), basic_auth=_basic_auth(parsed))


def _tls(base: Path, parsed: _WebConfigFile) -> TLS | None:
    config = parsed.tls_server_config
    if config is None:
        return None
    tls = TLS(
        cert_file=_resolve(base, config.cert_file, "cert_file"),
        key_file=_resolve(base, config.key_file, "key_file"),
        client_ca_file=(
            _resolve(base, config.client_ca_file, "client_ca_file")
            if config.client_ca_file
            else None
        ),
        cert_reqs=CLIENT_AUTH[config.client_auth_type],
    )
    if tls.cert_reqs != ssl.CERT_NONE and not tls.client_ca_file:
        raise ConfigError(
            f"web config: client_auth_type {config.client_auth_type} needs client_ca_file"
        )
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    try:
        context.load_cert_chain(tls.cert_file, tls.key_file)
        if tls.client_ca_file:
            context.load_verify_locations(tls.client_ca_file)
    except (ssl.SSLError, OSError) as exc:
        reason = getattr(exc, "reason", None) or exc.strerror or type(exc).__name__
        raise ConfigError(f"web config: cannot load the TLS certificate or key: {reason}") from None
    return tls


def _basic_auth(parsed: _WebConfigFile) -> BasicAuth | None:
    if not parsed.basic_auth_users:
        return None
    users: dict[str, bytes] = {}
    for user, hashed in parsed.basic_auth_users.items():
        encoded = hashed.encode()
        try:
            bcrypt.checkpw(b"", encoded)
        except ValueError:
            raise ConfigError(f"web config: basic_auth_users.{user} is not a bcrypt hash") from None
        users[user] = encoded
    return BasicAuth(users)
