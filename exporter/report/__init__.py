"""``ndbinfo-exporter report`` and ``ndbinfo-exporter check``: the cluster view's findings
without a running exporter, for a terminal, a ticket or a Nagios-style monitoring system.

Both commands take the exporter's connection, my.cnf and collector flags, read every enabled
collector once through the scrape core (twice with ``--interval``), and build the cluster,
the configuration and the findings with the view's own function (``health.assessment.assess``),
from the health layer both stand on; nothing here imports the view.
"""
