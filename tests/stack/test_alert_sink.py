"""The compose stack's webhook receiver logs one line per alert with its severity route."""

import json
import subprocess
import sys
import time
import urllib.request

import pytest
from ndb_harness import free_port

from tests.stack.compose_model import ROOT

pytestmark = pytest.mark.integration  # starts the alert sink

SINK = ROOT / "provisioning/alertmanager/alert_sink.py"


def _post(port: int, path: str, body: bytes) -> int:
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=body, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status
    except urllib.error.HTTPError as exc:
        return exc.code


def test_sink_logs_each_alert_of_a_notification():
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, str(SINK), str(port)], stdout=subprocess.PIPE, text=True
    )
    try:
        payload = {
            "status": "firing",
            "alerts": [
                {
                    "status": "firing",
                    "labels": {
                        "alertname": "NdbDataNodeDown",
                        "severity": "warning",
                        "cluster": "c1",
                    },
                    "annotations": {"summary": "Data node 2 is down"},
                },
                {
                    "status": "firing",
                    "labels": {"alertname": "NdbNodeGroupDegraded", "severity": "critical"},
                    "annotations": {"summary": "Node group 0 runs on its last data node"},
                },
            ],
        }
        for _ in range(100):
            try:
                status = _post(port, "/critical", json.dumps(payload).encode())
                break
            except OSError:
                time.sleep(0.05)
        assert status == 200
        assert _post(port, "/warning", b"not json") == 400
    finally:
        proc.terminate()
        out, _ = proc.communicate(timeout=5)
    lines = out.splitlines()
    assert lines == [
        'route=critical status=firing alertname=NdbDataNodeDown severity=warning cluster=c1 summary="Data node 2 is down"',
        'route=critical status=firing alertname=NdbNodeGroupDegraded severity=critical cluster= summary="Node group 0 runs on its last data node"',
    ]
