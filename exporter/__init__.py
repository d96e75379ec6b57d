"""ndbinfo-exporter: Prometheus exporter for MySQL NDB Cluster.

Folder ``exporter/``, imported as ``ndbinfo_exporter``. Layers, each importing only those below it
(tests/test_layers.py checks it): the entry (``cli``, ``app``) over the cluster view (``view``)
over the scrape core (``scrape``) over its configuration (``settings``, ``mycnf``, ``webconfig``,
``targets``) over the collectors (``collectors``); ``logs`` and ``errors`` serve every layer.
docs/architecture.md walks through them.
"""

__version__ = "0.1.0"
