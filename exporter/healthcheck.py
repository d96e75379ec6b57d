"""``python -m ndbinfo_exporter.healthcheck``: is the exporter on this host alive?

The image's HEALTHCHECK. It takes the exporter's own flags (or, with ``--pid N``, reads them
from that process's command line, the container's PID 1) and the same ``NDB_EXPORTER_*``
environment, so it knows the listen address and whether the web config turns on TLS. It asks
``/livez``, which answers without basic auth and says nothing but "ok", so no password is
needed; TLS is spoken without verifying the certificate (the exporter is on this host).
Exit status 0 when alive, 1 with a one-line reason otherwise, 2 for unusable flags.
"""

from __future__ import annotations

import ssl
import sys
from collections.abc import Sequence
from pathlib import Path

import httpx
from ndbinfo_exporter import webconfig
from ndbinfo_exporter.collectors.registry import all_collectors
from ndbinfo_exporter.errors import ConfigError
from ndbinfo_exporter.settings import listen_host_port, parse
from ndbinfo_exporter.targets import join_address

PATH = "/livez"
TIMEOUT_SECONDS = 4.0
PROGRAMS = ("ndbinfo-exporter", "ndbinfo_exporter.cli")


def flags_of(pid: int) -> list[str]:
    """The flags the exporter with this process id was started with."""
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")[:-1]
    except OSError as exc:
        raise ConfigError(
            f"cannot read the command line of process {pid}: {exc.strerror}"
        ) from None
    for index, arg in enumerate(argv):
        if Path(arg).name in PROGRAMS or arg in PROGRAMS:
            return argv[index + 1 :]
    raise ConfigError(f"process {pid} is not ndbinfo-exporter: {' '.join(argv[:3])}")


def url_and_tls(argv: Sequence[str]) -> tuple[str, ssl.SSLContext | None]:
    settings = parse(argv, all_collectors())
    host, port = listen_host_port(settings.listen_address)
    host = {"0.0.0.0": "127.0.0.1", "::": "::1"}.get(host, host)
    address = join_address(host, port)
    web = webconfig.load(settings.web_config_file) if settings.web_config_file else None
    if web is None or web.tls is None:
        return f"http://{address}{PATH}", None
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return f"https://{address}{PATH}", context


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        if args[:1] == ["--pid"] and len(args) == 2 and args[1].isdigit():
            args = flags_of(int(args[1]))
        url, tls = url_and_tls(args)
    except ConfigError as exc:
        print(f"healthcheck: {exc}", file=sys.stderr)
        return 2
    try:
        answer = httpx.get(url, verify=tls if tls is not None else True, timeout=TIMEOUT_SECONDS)
    except httpx.HTTPError as exc:
        print(f"healthcheck: {url}: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    if answer.status_code != 200:
        print(f"healthcheck: {url} answered HTTP {answer.status_code}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
