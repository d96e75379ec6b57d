# Sourced by the image's entrypoint on the first start of each SQL node
# (/docker-entrypoint-initdb.d); "${mysql[@]}" is its root client.
# Users live in each SQL node's own grant tables, so both nodes run this.

sql_quote() { printf "'%s'" "${1//\'/\'\'}"; }

: "${NDB_EXPORTER_PASSWORD:?NDB_EXPORTER_PASSWORD must be set}"
: "${NDB_LOADGEN_PASSWORD:?NDB_LOADGEN_PASSWORD must be set}"

"${mysql[@]}" <<SQL
-- The exporter reads ndbinfo and SHOW GLOBAL STATUS (which needs no privilege), and the
-- replication state: SHOW REPLICA STATUS (REPLICATION CLIENT), SHOW ENGINE NDBCLUSTER STATUS
-- (PROCESS) and mysql.ndb_apply_status (the README's grants).
CREATE USER IF NOT EXISTS 'ndbexporter'@'%' IDENTIFIED BY $(sql_quote "$NDB_EXPORTER_PASSWORD");
GRANT SELECT ON ndbinfo.* TO 'ndbexporter'@'%';
GRANT REPLICATION CLIENT, PROCESS ON *.* TO 'ndbexporter'@'%';
-- A grant on one table needs the table: the SQL node creates mysql.ndb_apply_status when it
-- connects to the cluster, which may come after this first start's script.
SET @apply_status = IF(
  (SELECT COUNT(*) FROM information_schema.TABLES
    WHERE TABLE_SCHEMA = 'mysql' AND TABLE_NAME = 'ndb_apply_status') > 0,
  'GRANT SELECT ON mysql.ndb_apply_status TO ''ndbexporter''@''%''', 'DO 0');
PREPARE grant_apply_status FROM @apply_status;
EXECUTE grant_apply_status;
DEALLOCATE PREPARE grant_apply_status;

-- The load generator owns one database.
CREATE DATABASE IF NOT EXISTS loadgen;
CREATE USER IF NOT EXISTS 'loadgen'@'%' IDENTIFIED BY $(sql_quote "$NDB_LOADGEN_PASSWORD");
GRANT ALL PRIVILEGES ON loadgen.* TO 'loadgen'@'%';
SQL
