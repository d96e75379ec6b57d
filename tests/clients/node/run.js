// Runs the client checks through mysql2 with its default settings (execute() prepares on the
// server) and prints one JSON line per check.
'use strict';
const mysql = require('mysql2/promise');

function report(check, rows, err) {
  const r = { check, ok: !err, rows };
  if (err) {
    r.error = String(err.message || err);
    if (err.errno) r.code = err.errno;
  }
  process.stdout.write(JSON.stringify(r) + '\n');
}

async function run(check, fn) {
  try {
    const [rows] = await fn();
    report(check, Array.isArray(rows) ? rows.length : 0, null);
  } catch (err) {
    report(check, 0, err);
  }
}

async function main() {
  const [host, port, user, password] = process.argv.slice(2);
  let conn;
  try {
    conn = await mysql.createConnection({ host, port: Number(port), user, password, database: 'ndbinfo' });
    report('connect', 0, null);
  } catch (err) {
    report('connect', 0, err);
    return;
  }
  await run('prepared', () =>
    conn.execute('SELECT node_id, uptime, status FROM ndbinfo.nodes WHERE node_id >= ?', [1]));
  await run('nodes', () => conn.query('SELECT * FROM ndbinfo.nodes'));
  await run('status', () => conn.query("SHOW GLOBAL STATUS LIKE 'Ndb%'"));
  await run('engine_status', () => conn.query('SHOW ENGINE NDBCLUSTER STATUS'));
  await conn.end();
}

main();
