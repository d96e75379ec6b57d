"""The SQL engine (``ndbsim.engine``): a DuckDB database per SQL node holding the ndbinfo
catalog of its version with the real view SQL, information_schema, the MySQL-to-DuckDB
translation, and the writer that copies the model into its tables."""
