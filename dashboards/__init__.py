"""Grafana dashboards for NDB Cluster, written with grafana-foundation-sdk."""
