"""The cluster view served at "/" and its JSON API (``ndbinfo_exporter.view``, folder
``exporter/view/``). It reads the scrape core's results and never runs a collector itself:
``routes`` (HTTP), ``source`` (where its data comes from), ``samples`` (look-ups over metric
families), ``cluster``, ``parameters``, ``placement``, ``findings`` (what it shows), ``models``
(the JSON API's response models), ``static/`` and ``templates/`` (the page)."""
