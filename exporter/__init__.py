"""ndbinfo-exporter: Prometheus exporter for MySQL NDB Cluster."""

__version__ = "0.1.0"
