"""The scrape core (``ndbinfo_exporter.scrape``, folder ``exporter/scrape/``): what a SQL node
offers (``sql_node``), a bounded connection pool (``pool``), one scrape running the collectors
(``scraper``), what it keeps of each target between scrapes (``target_state``) and the
exposition text it serves (``exposition``)."""
