# Sourced by the image's entrypoint on the first start of each SQL node
# (/docker-entrypoint-initdb.d); "${mysql[@]}" is its root client.
# Users live in each SQL node's own grant tables, so both nodes run this.

sql_quote() { printf "'%s'" "${1//\'/\'\'}"; }

: "${NDB_EXPORTER_PASSWORD:?NDB_EXPORTER_PASSWORD must be set}"
: "${NDB_LOADGEN_PASSWORD:?NDB_LOADGEN_PASSWORD must be set}"

"${mysql[@]}" <<SQL
-- The exporter reads ndbinfo and SHOW GLOBAL STATUS (which needs no privilege).
CREATE USER IF NOT EXISTS 'ndbexporter'@'%' IDENTIFIED BY $(sql_quote "$NDB_EXPORTER_PASSWORD");
GRANT SELECT ON ndbinfo.* TO 'ndbexporter'@'%';

-- The load generator owns one database.
CREATE DATABASE IF NOT EXISTS loadgen;
CREATE USER IF NOT EXISTS 'loadgen'@'%' IDENTIFIED BY $(sql_quote "$NDB_LOADGEN_PASSWORD");
GRANT ALL PRIVILEGES ON loadgen.* TO 'loadgen'@'%';
SQL
