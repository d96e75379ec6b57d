"""The ``ndbinfo-exporter`` command."""

from __future__ import annotations

import asyncio
import logging
import socket
import sys
from collections.abc import Sequence

import uvicorn
from ndbinfo_exporter import __version__, httpserver, logs, targets, webconfig
from ndbinfo_exporter.collectors.registry import all_collectors
from ndbinfo_exporter.errors import ConfigError
from ndbinfo_exporter.health import alerts
from ndbinfo_exporter.report import command as report_command
from ndbinfo_exporter.scrape.mgmd.event_log import EventLog
from ndbinfo_exporter.scrape.pool import MAX_POOLS
from ndbinfo_exporter.scrape.scraper import Scraper
from ndbinfo_exporter.settings import FLAGS, Settings, listen_host_port, parse

log = logging.getLogger("ndbinfo_exporter")


def _listen(address: str) -> socket.socket:
    host, port = listen_host_port(address)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # Accepted connections inherit this: without it, a response written in two parts waits
    # for the client's delayed ACK (about 40 ms) on every request of a kept-alive connection.
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        sock.bind((host, port))
        sock.listen(128)
    except OSError as exc:
        sock.close()
        raise OSError(f"cannot listen on {address}: {exc.strerror or exc}") from None
    sock.set_inheritable(True)
    return sock


def _configure(argv: Sequence[str]):
    collectors = all_collectors()
    settings: Settings = parse(argv, collectors)
    resolved = targets.from_settings(settings, settings.probe_allowed_targets)
    web = webconfig.load(settings.web_config_file) if settings.web_config_file else None
    if settings.view_alerts_url:
        try:
            alerts.parse_url(settings.view_alerts_url)
        except alerts.AlertsUrlError as exc:
            raise ConfigError(f"{FLAGS['view_alerts_url'].name}: {exc}") from None
    return collectors, settings, resolved, web, _event_log(settings)


def _event_log(settings: Settings) -> EventLog | None:
    if settings.mgmd_event_log is None:
        return None
    try:
        return EventLog.open(settings.mgmd_event_log)
    except OSError as exc:
        flag = FLAGS["mgmd_event_log"].name
        raise ConfigError(f"{flag}: cannot append to {settings.mgmd_event_log}: {exc}") from None


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] in report_command.COMMANDS:
        return report_command.main(argv[0], argv[1:])
    try:
        collectors, settings, resolved, web, event_log = _configure(argv)
        sock = _listen(settings.listen_address)
    except ConfigError as exc:
        print(f"ndbinfo-exporter: {logs.redact(str(exc))}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"ndbinfo-exporter: {exc}", file=sys.stderr)
        return 1
    logs.setup(settings.log_level, settings.log_format)
    # The web framework is imported only to serve: check and report start without it.
    from ndbinfo_exporter.app import create_app

    enabled = settings.enabled(collectors)
    scraper = Scraper(
        enabled,
        {c.name: settings.options_for(c) for c in enabled},
        max_connections=settings.max_connections,
        query_timeout=settings.query_timeout,
        refresh_max_age=settings.refresh_max_age,
        reuse_age=settings.scrape_reuse_age,
    )
    app = create_app(settings, resolved, scraper, web, event_log)
    tls = web.tls if web else None
    config = _server_config(app, settings, tls)
    host, port = sock.getsockname()[:2]
    log.info(
        "starting ndbinfo-exporter",
        extra={
            "fields": {
                "version": __version__,
                "address": targets.join_address(host, port),
                "tls": tls is not None,
                "basic_auth": bool(web and web.basic_auth),
                "target": "none" if resolved.probe_only else resolved.default.name,
                "collectors": ",".join(c.name for c in enabled),
            }
        },
    )
    asyncio.run(_serve(config, sock))
    return 0


def _server_config(app, settings: Settings, tls: webconfig.TLS | None) -> uvicorn.Config:
    descriptors = httpserver.raise_descriptor_limit()
    if tls:
        httpserver.limit_tls_handshake()
    # the scrapes' pools and the view's own pools
    httpserver.GuardedH11Protocol.cap = httpserver.connection_cap(
        descriptors, 2 * MAX_POOLS * settings.max_connections
    )
    return uvicorn.Config(
        app,
        http=httpserver.GuardedH11Protocol,
        timeout_keep_alive=httpserver.KEEP_ALIVE_TIMEOUT,
        log_config=None,
        server_header=False,
        ssl_certfile=tls.cert_file if tls else None,
        ssl_keyfile=tls.key_file if tls else None,
        ssl_ca_certs=tls.client_ca_file if tls else None,
        ssl_cert_reqs=tls.cert_reqs if tls else 0,
    )


async def _serve(config: uvicorn.Config, sock: socket.socket) -> None:
    httpserver.quiet_accept_errors(asyncio.get_running_loop())
    await uvicorn.Server(config).serve(sockets=[sock])


if __name__ == "__main__":
    sys.exit(main())
