"""Alertmanager webhook receiver of the compose stack: logs one line per notified alert.

Alertmanager routes by severity to /critical, /warning and /info on this service, so
`docker compose logs -f alert-sink` shows which route each alert took. In production the
receivers point at a pager or chat system instead.
"""

import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def describe(route: str, payload: dict) -> list[str]:
    lines = []
    for alert in payload.get("alerts", []):
        labels = alert.get("labels", {})
        summary = alert.get("annotations", {}).get("summary", "")
        lines.append(
            f"route={route} status={alert.get('status', '?')} "
            f"alertname={labels.get('alertname', '?')} severity={labels.get('severity', '?')} "
            f"cluster={labels.get('cluster', '')} summary={json.dumps(summary)}"
        )
    return lines


class Handler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        try:
            payload = json.loads(self.rfile.read(length) or b"{}")
        except ValueError:
            self.send_error(400, "body is not JSON")
            return
        for line in describe(self.path.strip("/") or "default", payload):
            print(line, flush=True)
        self.send_response(200)
        self.end_headers()

    def log_message(self, format: str, *args) -> None:  # one line per alert is enough
        pass


def main() -> None:
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 8080
    ThreadingHTTPServer(
        ("0.0.0.0", port), Handler
    ).serve_forever()  # all interfaces: it runs in a container


if __name__ == "__main__":
    main()
