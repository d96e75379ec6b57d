"""Grafana dashboards for NDB Cluster, written with grafana-foundation-sdk.

Folder ``dashboards/``, imported as ``ndb_dashboards``.
"""
