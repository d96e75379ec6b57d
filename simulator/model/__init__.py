"""The simulated cluster (``ndbsim.model``): topology, dictionary and fragment placement,
checkpoints, workload, configuration parameters, faults, and the ndbinfo rows they make. It knows
nothing of SQL or DuckDB; the engine copies it when a statement needs it."""
