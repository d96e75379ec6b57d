"""Load generator for MySQL NDB Cluster, with the workloads of the NDB tuning guide.

Folder ``loadgen/``, imported as ``ndb_loadgen``.
"""
