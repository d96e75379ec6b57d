"""The scrape core (``ndbinfo_exporter.scrape``, folder ``exporter/scrape/``): what a SQL node
offers (``sql_node``), a bounded connection pool (``pool``), one scrape running the collectors
(``scraper``) and the exposition text it serves (``exposition``)."""
