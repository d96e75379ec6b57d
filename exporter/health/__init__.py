"""What the cluster view and ``check``/``report`` both judge (``ndbinfo_exporter.health``,
folder ``exporter/health/``), built from the scrape core's results: ``samples`` (look-ups over
metric families), ``cluster``, ``replication``, ``parameters`` and ``management`` (the models
of what a scrape read), ``placement`` and ``placement_read`` (the fragment placement and its
one read), ``findings`` and ``thresholds`` (the checks), ``models`` (the models themselves)
and ``assessment`` (the one function that builds them all from a scrape result)."""
