"""Load generator for MySQL NDB Cluster, with the workloads of the NDB tuning guide."""
