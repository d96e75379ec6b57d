"""The management server (ndb_mgmd, port 1186): every node's status read at each scrape, and
the cluster log's events from one persistent `listen event` subscription per cluster."""
