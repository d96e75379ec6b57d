"""ndbsim: a simulated SQL node of a live MySQL NDB Cluster, speaking the MySQL protocol."""
