"""The cluster view served at "/" and its JSON API (``ndbinfo_exporter.view``, folder
``exporter/view/``). It shows what ``health`` judges of the scrape core's results and never
runs a collector itself: ``routes`` (HTTP), ``view_targets`` (which targets may be shown),
``source`` (where its data comes from, refreshed and cached), ``reader`` (its own
connections), ``view_model`` (the answers of one model, serialized once), ``alerts`` (the
alerts from Prometheus or Alertmanager), ``models`` (the response models only the page
serves), ``static/`` and ``templates/`` (the page)."""
