"""ndbsim: a simulated SQL node of a live MySQL NDB Cluster, speaking the MySQL protocol.

Folder ``simulator/``, imported as ``ndbsim``. Layers, each importing only those below it
(tests/test_layers.py checks it): ``control`` (HTTP control API) and ``protocol`` (the MySQL
front) over ``engine`` (DuckDB with the real ndbinfo view SQL) over ``model`` (the simulated
cluster and its faults); ``versions`` and ``errors`` serve every layer. ``cli``, ``demo`` and
``testing`` start the parts. docs/architecture.md walks through them.
"""
