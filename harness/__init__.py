"""Real processes of the stack on 127.0.0.1: ndbsim, the exporter, Prometheus and Alertmanager.

One handle per process (`process.Process`: its output, its exit, its stop), one ready check
(`Process.wait_until`), one control client for ndbsim (`control.NdbsimControl`) and one
free-port helper (`ports.free_port`). `make demo` (`ndb_harness.demo`), the tests and the
benches start every process through this package:

    with running_ndbsim(data_nodes=4, speed=20) as sim:
        with running_exporter(mysqld=sim.account()) as exporter:
            httpx.get(f"{exporter.url}/metrics")
        sim.stop_node(2)
"""

from ndb_harness.control import NdbsimControl
from ndb_harness.exporter import Exporter, running_exporter
from ndb_harness.ports import HOST, free_port
from ndb_harness.process import HarnessError, Process
from ndb_harness.prometheus import Prometheus, running_alertmanager, running_prometheus
from ndb_harness.simulator import MysqlAccount, Ndbsim, running_ndbsim

__all__ = [
    "HOST",
    "Exporter",
    "HarnessError",
    "MysqlAccount",
    "Ndbsim",
    "NdbsimControl",
    "Process",
    "Prometheus",
    "free_port",
    "running_alertmanager",
    "running_exporter",
    "running_ndbsim",
    "running_prometheus",
]
