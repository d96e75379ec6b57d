// The replication card: the replica's channels and conflicts, the binlog server's injector.
import { code, fill, fmt, h } from "./dom.js";

const THREAD_CLASS = { yes: "ok", connecting: "warn", no: "bad" };
const THREAD_TEXT = { yes: "running", connecting: "connecting", no: "stopped" };

function threadCell(state, testid) {
  return h("td", { class: `state ${THREAD_CLASS[state] || ""}`, "data-testid": testid, "data-value": state },
    THREAD_TEXT[state] || "n/a");
}


function errorCell(number, testid) {
  return h("td", { class: `num${number ? " bad" : ""}`, "data-testid": testid, "data-value": number }, code(number));
}

// A chip per applier worker (worker 0: the SQL thread applying without workers), dim when
// it is not on or stopped on an error.
function workersCell(workers, id) {
  if (!workers.length) return h("td", { class: "note" }, "n/a");
  return h("td", { "data-testid": `workers-${id}` }, workers.map((w) =>
    h("span", { class: `chip${w.state === "on" && !w.last_error_number ? "" : " off"}`, "data-testid": `worker-${id}-${w.worker}`, "data-value": w.state },
      `${w.worker ? `worker ${w.worker}` : "SQL thread"} · ${w.state || "n/a"}` +
      (w.last_error_number ? ` · error ${code(w.last_error_number)}` : ""))));
}

function replicaChannels(r) {
  const head = h("tr", {}, ["Channel", "I/O thread", "SQL thread", "Last I/O error", "Last SQL error", "Behind source", "Source server_id",
    "Relay log", "Retried transactions", "Applier workers"].map((t) => h("th", {}, t)));
  const rows = r.channels.map((c) => {
    const id = c.channel || "default";
    return h("tr", { "data-testid": `channel-${id}` },
      h("td", {}, c.channel ? c.channel : h("span", { class: "note" }, "default")),
      threadCell(c.io_thread, `io-thread-${id}`),
      threadCell(c.sql_thread, `sql-thread-${id}`),
      errorCell(c.last_io_error_number, `io-error-${id}`),
      errorCell(c.last_sql_error_number, `sql-error-${id}`),
      h("td", { class: "num", "data-testid": `behind-${id}`, "data-value": c.seconds_behind_source },
        c.seconds_behind_source === null ? "n/a (applier stopped)" : fmt.seconds(c.seconds_behind_source)),
      h("td", { class: "num", "data-testid": `source-server-id-${id}` }, code(c.source_server_id)),
      h("td", { class: "num", "data-testid": `relay-log-${id}`, "data-value": c.relay_log_space_bytes }, fmt.bytes(c.relay_log_space_bytes)),
      h("td", { class: "num", "data-testid": `retries-${id}`, "data-value": c.transaction_retries }, fmt.int(c.transaction_retries)),
      workersCell(c.workers, id));
  });
  const k = r.conflicts;
  const applied = r.applied.map((a) => [`Applied GCI from server_id ${a.server_id}`, fmt.int(a.applied_gci), `applied-${a.server_id}`, a.applied_gci]).concat(k ? [
    ["Last conflict GCI", fmt.int(k.last_conflict_gci), "conflict-last", k.last_conflict_gci], ["Last stable GCI", fmt.int(k.last_stable_gci), "conflict-stable", k.last_stable_gci],
    ["Pair converged", k.converged === null ? "n/a" : k.converged ? "yes" : "no", "conflict-converged", k.converged],
    ["Rows in conflict", Object.entries(k.rows_in_conflict).map(([f, n]) => `${f} ${fmt.int(n)}`).join(" · ") || "0", "conflict-rows", null],
    ["Rejected transactions", fmt.int(k.transactions_rejected), "conflict-rejected", k.transactions_rejected], ["Refresh operations", fmt.int(k.refresh_operations), "conflict-refresh", k.refresh_operations],
    ["Exceptions table rows", fmt.int(k.exceptions_rows), "conflict-exceptions", k.exceptions_rows]] : []);
  return [
    h("h3", {}, "Replica"),
    rows.length ? h("table", { class: "grid" }, h("thead", {}, head), h("tbody", {}, rows)) : null,
    applied.length ? h("dl", { class: "facts", "data-testid": "applied" }, applied.flatMap(([label, value, testid, raw]) => [
      h("dt", {}, label), h("dd", { "data-testid": testid, "data-value": raw === null ? null : String(raw) }, value)])) : null,
  ];
}

function binlogInjector(b) {
  const rows = [
    ["server_id", code(b.server_id), "binlog-server-id", b.server_id],
    ["Committed GCI (cluster)", fmt.int(b.committed_gci), "binlog-committed", b.committed_gci],
    ["Buffered GCI (event buffer)", fmt.int(b.buffered_gci), "binlog-buffered", b.buffered_gci],
    ["Received GCI (injector)", fmt.int(b.received_gci), "binlog-received", b.received_gci],
    ["Handled GCI", fmt.int(b.handled_gci), "binlog-handled", b.handled_gci],
    ["Written GCI (binary log)", fmt.int(b.written_gci), "binlog-written", b.written_gci],
    ["Injector lag (committed − handled)", fmt.gcis(b.injector_lag_gcis), "binlog-injector-lag", b.injector_lag_gcis],
    ["Event buffer (buffered − received)", fmt.gcis(b.event_buffer_gcis), "binlog-event-buffer", b.event_buffer_gcis],
  ];
  return [
    h("h3", {}, "Binlog server"),
    h("dl", { class: "facts", "data-testid": "binlog" }, rows.flatMap(([label, value, testid, raw]) => [
      h("dt", {}, label), h("dd", { "data-testid": testid, "data-value": raw === null ? null : String(raw) }, value)])),
  ];
}

// A SQL node that does not replicate gets a one-line card.
export function renderReplication(r) {
  const roles = [r.channels.length || r.applied.length || r.conflicts ? "replica" : null, r.binlog ? "binlog server" : null].filter(Boolean);
  fill("replication-state", r.replicating ? roles.join(" and ") : "not replicating");
  document.getElementById("replication-section").classList.toggle("quiet", !r.replicating);
  fill("replication", r.replicating ? h("div", { class: "replication" },
    roles.includes("replica") ? h("div", {}, replicaChannels(r)) : null,
    r.binlog ? h("div", {}, binlogInjector(r.binlog)) : null) : null);
}
