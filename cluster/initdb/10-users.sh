# Sourced by the image's entrypoint on the first start of each SQL node
# (/docker-entrypoint-initdb.d); "${mysql[@]}" is its root client.
# Users live in each SQL node's own grant tables, so both nodes run this.

sql_quote() { printf "'%s'" "${1//\'/\'\'}"; }

: "${NDB_EXPORTER_PASSWORD:?NDB_EXPORTER_PASSWORD must be set}"
: "${NDB_LOADGEN_PASSWORD:?NDB_LOADGEN_PASSWORD must be set}"

"${mysql[@]}" <<SQL
-- The exporter's account, with the README's grants: ndbinfo, SHOW REPLICA STATUS
-- (REPLICATION CLIENT) and SHOW ENGINE NDBCLUSTER STATUS (PROCESS); SHOW GLOBAL STATUS
-- needs no privilege.
CREATE USER IF NOT EXISTS 'ndbexporter'@'%' IDENTIFIED BY $(sql_quote "$NDB_EXPORTER_PASSWORD");
GRANT SELECT ON ndbinfo.* TO 'ndbexporter'@'%';
GRANT REPLICATION CLIENT, PROCESS ON *.* TO 'ndbexporter'@'%';

-- The load generator owns one database.
CREATE DATABASE IF NOT EXISTS loadgen;
CREATE USER IF NOT EXISTS 'loadgen'@'%' IDENTIFIED BY $(sql_quote "$NDB_LOADGEN_PASSWORD");
GRANT ALL PRIVILEGES ON loadgen.* TO 'loadgen'@'%';
SQL

# The README's grants on single tables. A grant on one table needs the table: the SQL node
# creates mysql.ndb_apply_status when it connects to the cluster, which may come after this
# first start's script, mysql.ndb_binlog_index exists only on a server built with NDB, and
# the performance_schema.ndb_sync_* tables exist from NDB 8.0.21.
for table in mysql.ndb_apply_status mysql.ndb_binlog_index \
  performance_schema.ndb_sync_pending_objects \
  performance_schema.ndb_sync_excluded_objects \
  performance_schema.replication_applier_status_by_worker \
  performance_schema.replication_applier_status; do
  "${mysql[@]}" <<SQL
SET @grant = IF(
  (SELECT COUNT(*) FROM information_schema.TABLES
    WHERE TABLE_SCHEMA = '${table%%.*}' AND TABLE_NAME = '${table#*.}') > 0,
  'GRANT SELECT ON ${table} TO ''ndbexporter''@''%''', 'DO 0');
PREPARE grant_if_present FROM @grant;
EXECUTE grant_if_present;
DEALLOCATE PREPARE grant_if_present;
SQL
done
