// The cluster view: renders /api/v1/{cluster,findings,config,placement,management} and refreshes them.
// The page's own ?target= and &auth_module= go on to every API call, so a URL shows one SQL node.
"use strict";

const REFRESH_MS = 10000;
const NODE_COLOURS = [
  "#cfe3fa", "#d5f0d9", "#fbe3c6", "#e8d9f7", "#f9d4dc", "#d2f1ef", "#f3efc4", "#dfe3e8",
  "#bcd6f5", "#c2e8c9", "#f7d3a8", "#dac4f2", "#f4bccb", "#bde9e5", "#ebe4a5", "#cbd2da",
];
// Above this many data nodes the placement shows primaries per node only (details in a tooltip).
const WIDE_PLACEMENT_NODES = 8;
// Above this many data nodes the topology tiles are compact.
const COMPACT_TOPOLOGY_NODES = 8;
// Above this many data nodes DataMemory and REDO are shown in two tables side by side.
const SPLIT_RESOURCES_NODES = 16;
// Above this many data nodes a parameter's values are listed with their nodes, not a column each.
const CONFIG_COLUMN_NODES = 8;
const filter = { db: "", table: "", node: "", page: 1, pageSize: 50 };
const pageQuery = new URLSearchParams(window.location.search);
const chosen = { target: pageQuery.get("target") || "", authModule: pageQuery.get("auth_module") || "" };
let nodeColour = {};
// Node groups of the last /api/v1/cluster: [{label, nodegroup, nodes: [node_id], running}].
let layout = [];
// Tables whose fragments are open: table_id -> {key, detail, error} (fetched when opened).
const opened = new Map();
let timer = null;
let halted = false;  // no SQL node to show: no refreshes
let lastPlacement = null;

// An API path with the page's target and auth_module.
function api(path, params) {
  const query = new URLSearchParams(params || {});
  if (chosen.target) query.set("target", chosen.target);
  if (chosen.authModule) query.set("auth_module", chosen.authModule);
  const text = query.toString();
  return text ? `${path}?${text}` : path;
}

function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") el.className = value;
    else if (key === "text") el.textContent = value;
    else if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else if (key === "style") el.style.cssText = value;  // CSSOM: allowed by the page's CSP
    else if (key === "href") el.setAttribute(key, webLink(value) || "#");
    else el.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

// An absolute http(s) URL, or null: an alert's links come from whoever can post alerts.
function webLink(url) {
  if (typeof url !== "string" || !url) return null;
  try {
    const parsed = new URL(url);
    return parsed.protocol === "http:" || parsed.protocol === "https:" ? parsed.href : null;
  } catch (err) {
    return null;
  }
}

function fill(id, ...children) {
  const el = document.getElementById(id);
  el.replaceChildren(...children.flat().filter((c) => c !== null && c !== undefined));
  return el;
}

const fmt = {
  int: (v) => (v === null || v === undefined ? "n/a" : Math.round(v).toLocaleString("en-US")),
  pct: (v) => (v === null || v === undefined ? "n/a" : `${(v * 100).toFixed(1)} %`),
  num: (v, digits = 2) => (v === null || v === undefined ? "n/a" : v.toFixed(digits)),
  bytes: (v) => {
    if (v === null || v === undefined) return "n/a";
    const units = ["B", "KiB", "MiB", "GiB", "TiB"];
    let i = 0;
    while (v >= 1024 && i < units.length - 1) { v /= 1024; i++; }
    return `${v.toFixed(i ? 1 : 0)} ${units[i]}`;
  },
  seconds: (v) => {
    if (v === null || v === undefined) return "n/a";
    if (v < 120) return `${Math.round(v)} s`;
    if (v < 7200) return `${Math.round(v / 60)} min`;
    if (v < 172800) return `${(v / 3600).toFixed(1)} h`;
    return `${(v / 86400).toFixed(1)} d`;
  },
  gcis: (v) => (v === null || v === undefined ? "n/a" : `${fmt.int(v)} GCI${Math.round(v) === 1 ? "" : "s"}`),
  time: (t) => new Date(t * 1000).toLocaleTimeString("en-GB"),
};

async function getJson(path, signal) {
  return (await getAnswer(path, signal)).body;
}

// The answer's body and its response (whose headers say how old the data is).
async function getAnswer(path, signal) {
  let response;
  try {
    response = await fetch(path, { headers: { Accept: "application/json" }, signal });
  } catch (err) {
    if (err.name === "AbortError") throw err;
    throw new Error("the exporter is not reachable");
  }
  let body = null;
  try { body = await response.json(); } catch (err) { body = null; }
  if (!response.ok) {
    const message = body && body.error ? body.error : `HTTP ${response.status}`;
    const error = new Error(message);
    error.status = response.status;
    throw error;
  }
  return { body, response };
}

function showBanner(message, kind) {
  const banner = document.getElementById("banner");
  banner.textContent = message;
  banner.hidden = !message;
  banner.className = `banner${kind ? " " + kind : ""}`;
  banner.dataset.kind = message ? kind || "error" : "";
  document.getElementById("main").classList.toggle("stale", Boolean(message) && !kind);
}

// ---- target picker ----
function targetUrl(name, authModule) {
  const query = new URLSearchParams({ target: name });
  if (authModule) query.set("auth_module", authModule);
  return `/?${query}`;
}

function renderTargets(listing) {
  const current = chosen.target || listing.default || "";
  const many = listing.targets.length > 1 || !listing.default || listing.typed;
  if (!many) { fill("target-picker"); return; }
  const options = listing.targets.map((t) => h("option", {
    value: JSON.stringify([t.name, t.auth_module || ""]),
    selected: t.name === current && (t.auth_module || "") === chosen.authModule,
  }, `${t.name} · ${t.label}`));
  const known = listing.targets.some((t) => t.name === current && (t.auth_module || "") === chosen.authModule);
  if (current && !known) {
    options.unshift(h("option", { value: JSON.stringify([current, chosen.authModule]), selected: true },
      `${current}${chosen.authModule ? ` [client.${chosen.authModule}]` : ""} · typed`));
  }
  if (!current) options.unshift(h("option", { value: "", selected: true, disabled: true }, "choose an SQL node…"));
  const select = h("select", {
    "data-testid": "target-select", "aria-label": "SQL node to show",
    onchange: (e) => {
      if (!e.target.value) return;
      const [name, authModule] = JSON.parse(e.target.value);
      window.location.assign(targetUrl(name, authModule));
    },
  }, options);
  const typed = listing.typed ? h("form", {
    class: "typed", onsubmit: (e) => {
      e.preventDefault();
      const name = e.target.elements.target.value.trim();
      if (name) window.location.assign(targetUrl(name, chosen.authModule && name === current ? chosen.authModule : ""));
    },
  }, h("input", { name: "target", "data-testid": "target-input", placeholder: "host:port", size: 18, "aria-label": "SQL node host:port" }),
  h("button", { type: "submit", "data-testid": "target-go" }, "show")) : null;
  fill("target-picker", h("label", {}, "show ", select), typed);
}

async function loadTargets() {
  try {
    const listing = await getJson("/api/v1/targets");
    renderTargets(listing);
    return listing;
  } catch (err) {
    fill("target-picker", h("span", { class: "note" }, `targets unavailable: ${err.message}`));
    return null;
  }
}

// ---- topology ----
function stateClass(node) {
  if (!node.running) return "stopped";
  return node.state === "STARTED" ? "started" : "starting";
}

function dataNodeTile(node) {
  const meta = [];
  if (node.hostname) meta.push(node.hostname);
  if (node.running && node.uptime_seconds !== null) meta.push(`up ${fmt.seconds(node.uptime_seconds)}`);
  if (node.running && node.state !== "STARTED" && node.start_phase !== null) meta.push(`phase ${node.start_phase}`);
  const text = meta.join(" · ") || (node.running ? "" : "no row in ndbinfo.nodes");
  const restart = node.restart ? restartText(node.restart) : null;
  return h("div", { class: `node ${stateClass(node)}`, "data-testid": `data-node-${node.node_id}`, "data-state": node.state, title: [text, restart].filter(Boolean).join("\n") || null },
    h("div", { class: "id" }, `Node ${node.node_id}`),
    h("div", { class: "state" }, node.state),
    h("div", { class: "meta" }, text),
    restart && h("div", { class: "meta restart", "data-testid": `restart-${node.node_id}` }, restart));
}

// A restart under way: its step as restart_info words it and, when the other data nodes'
// last restarts allow one, the estimate of the share done and the time left.
function restartText(restart) {
  const parts = [restart.status || "restarting"];
  if (restart.progress !== null) {
    parts.push(`${Math.round(restart.progress * 100)} % done`, `about ${fmt.seconds(restart.remaining_seconds)} left`);
  }
  return parts.join(" · ");
}

// A copying ALTER TABLE or REORGANIZE PARTITION under way: its table (a copy's #sql- table
// when the table copied cannot be told) and its share done when it can be told.
function schemaChangeText(c) {
  const done = c.progress !== null ? ` · ${fmt.pct(c.progress)} done`
    : c.rows !== null ? ` · ${fmt.int(c.rows)} rows copied` : "";
  return `${c.database}.${c.table || c.copy_table} · ${c.kind === "copy" ? "copying ALTER TABLE" : "REORGANIZE PARTITION"}${done}`;
}

// The data nodes by node group, as the topology shows them (unknown node group last).
function nodeLayout(t) {
  const groups = t.node_groups.map((g) => ({
    label: `NG ${g.nodegroup}`, nodegroup: g.nodegroup, nodes: g.nodes.map((n) => n.node_id),
    running: g.running, stopped: new Set(g.nodes.filter((n) => !n.running).map((n) => n.node_id)),
  }));
  if (t.unassigned_data_nodes.length) {
    groups.push({
      label: "NG ?", nodegroup: null, nodes: t.unassigned_data_nodes.map((n) => n.node_id),
      running: t.unassigned_data_nodes.filter((n) => n.running).length,
      stopped: new Set(t.unassigned_data_nodes.filter((n) => !n.running).map((n) => n.node_id)),
    });
  }
  return groups;
}

function renderTopology(cluster) {
  const t = cluster.topology;
  const count = t.node_groups.reduce((sum, g) => sum + g.nodes.length, 0) + t.unassigned_data_nodes.length;
  const groups = t.node_groups.map((g) =>
    h("div", { class: `group${g.running < g.nodes.length ? " degraded" : ""}`, "data-testid": `nodegroup-${g.nodegroup}` },
      h("h3", {}, `Node group ${g.nodegroup}`, h("span", { class: "running" }, ` ${g.running}/${g.nodes.length} running`)),
      h("div", { class: "nodes" }, g.nodes.map(dataNodeTile))));
  if (t.unassigned_data_nodes.length) {
    groups.push(h("div", { class: "group degraded" }, h("h3", {}, "Node group unknown"),
      h("div", { class: "nodes" }, t.unassigned_data_nodes.map(dataNodeTile))));
  }
  document.getElementById("topology").classList.toggle("compact", count > COMPACT_TOPOLOGY_NODES);
  const chip = (n) => h("span", {
    class: `chip${n.connected ? "" : " off"}`, "data-testid": `node-${n.node_id}`,
    title: [n.process_name, n.hostname, n.version].filter(Boolean).join(" · ") || "not connected",
  }, `${n.node_id}${n.process_name ? " " + n.process_name : ""}${n.connected ? "" : " (not connected)"}`);
  const roles = [];
  if (t.president_node_id) roles.push(`president: node ${t.president_node_id}`);
  if (t.arbitrator_node_id) roles.push(`arbitrator: node ${t.arbitrator_node_id}`);
  fill("topology",
    h("div", { class: "groups" }, groups.length ? groups : h("p", { class: "note", "data-testid": "no-data-nodes" },
      cluster.collectors_failed.length
        ? `No data nodes reported: ${cluster.collectors_failed.length} collectors failed (${cluster.collectors_failed[0].error}).`
        : "No data nodes reported.")),
    h("div", { class: "others" },
      h("div", {}, h("h3", {}, "Management nodes"), t.management_nodes.length ? t.management_nodes.map(chip) : h("span", { class: "note" }, "none reported")),
      h("div", {}, h("h3", {}, "SQL and API nodes"), t.api_nodes.length ? t.api_nodes.map(chip) : h("span", { class: "note" }, "none reported")),
      roles.length ? h("div", {}, h("h3", {}, "Roles"), h("span", {}, roles.join(" · "))) : null,
      cluster.schema_changes.length ? h("div", { "data-testid": "schema-changes" }, h("h3", {}, "Schema changes under way"),
        cluster.schema_changes.map((c) => h("span", { class: "chip" }, schemaChangeText(c)))) : null));
  layout = nodeLayout(t);
  nodeColour = {};
  layout.flatMap((g) => g.nodes).forEach((id, i) => { nodeColour[id] = NODE_COLOURS[i % NODE_COLOURS.length]; });
}

// ---- lcp, sql, resources ----
function facts(id, rows) {
  fill(id, rows.flatMap(([label, value, testid, raw]) => [
    h("dt", {}, label),
    h("dd", { "data-testid": testid, "data-value": raw === undefined ? null : String(raw) }, value),
  ]));
}

function renderLcp(lcp) {
  facts("lcp", [
    ["LCP id (last completed)", fmt.int(lcp.lcp_id), "lcp-id", lcp.lcp_id],
    ["Replicas with LCP running", fmt.int(lcp.replicas_lcp_ongoing), "lcp-ongoing", lcp.replicas_lcp_ongoing],
    ["Last LCP completed at GCI", fmt.int(lcp.completed_gci), "lcp-completed-gci", lcp.completed_gci],
    ["Current GCI", fmt.int(lcp.current_gci), "current-gci", lcp.current_gci],
    ["Age of last LCP", lcp.age_gcis === null ? "n/a"
      : `${fmt.gcis(lcp.age_gcis)}${lcp.age_seconds !== null ? ` (≈ ${fmt.seconds(lcp.age_seconds)})` : ""}`,
      "lcp-age", lcp.age_gcis],
  ]);
}

function renderSql(cluster) {
  const s = cluster.sql_efficiency;
  const node = cluster.sql_node;
  facts("sql", [
    ["Scans pruned to one partition", fmt.pct(s.pruned_scan_ratio), "pruned-ratio", s.pruned_scan_ratio],
    ["Round trips per committed transaction", fmt.num(s.round_trips_per_commit), "round-trips-per-commit", s.round_trips_per_commit],
    ["Key operations per round trip", fmt.num(s.key_operations_per_round_trip), "ops-per-round-trip", s.key_operations_per_round_trip],
    ["Scans / commits counted", `${fmt.int(s.scans)} / ${fmt.int(s.commits)}`, "sql-counts"],
    ["Data nodes ready / configured", `${fmt.int(node.data_nodes_ready)} / ${fmt.int(node.data_nodes_configured)}`, "data-nodes-ready", node.data_nodes_ready],
  ]);
  const basis = {
    "two scrapes": `Ratios of the counter increase between the last two scrapes, ${fmt.num(s.window_seconds, 0)} s apart.`,
    "since SQL node start": "Only one scrape so far: ratios of the counters since the SQL node started; the next refresh gives a recent window.",
    "no data": "The SQL node reported no Ndb_api counters.",
  }[s.basis];
  fill("sql-basis", basis);
}

// ---- replication ----
const THREAD_CLASS = { yes: "ok", connecting: "warn", no: "bad" };
const THREAD_TEXT = { yes: "running", connecting: "connecting", no: "stopped" };

function threadCell(state, testid) {
  return h("td", { class: `state ${THREAD_CLASS[state] || ""}`, "data-testid": testid, "data-value": state },
    THREAD_TEXT[state] || "n/a");
}

// Error numbers and server ids are codes: no thousands separator.
const code = (v) => (v === null || v === undefined ? "n/a" : String(v));

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
function renderReplication(r) {
  const roles = [r.channels.length || r.applied.length || r.conflicts ? "replica" : null, r.binlog ? "binlog server" : null].filter(Boolean);
  fill("replication-state", r.replicating ? roles.join(" and ") : "not replicating");
  document.getElementById("replication-section").classList.toggle("quiet", !r.replicating);
  fill("replication", r.replicating ? h("div", { class: "replication" },
    roles.includes("replica") ? h("div", {}, replicaChannels(r)) : null,
    r.binlog ? h("div", {}, binlogInjector(r.binlog)) : null) : null);
}

// ---- management server (only with --mgmd.address): every node, the backups, the events ----
const MANAGED_OK = new Set(["STARTED", "CONNECTED"]);

function renderManagement(m) {
  document.getElementById("management-section").hidden = !m;
  if (!m) return;
  const answered = m.servers.filter((s) => s.answered).length;
  fill("management-state", `${answered}/${m.servers.length} answering · cluster log ` +
    (m.subscription_up ? "subscribed" : "not subscribed") +
    (m.listening_since ? ` since ${fmt.time(m.listening_since)}` : ""));
  const b = m.last_backup;
  const r = m.running_backup;
  facts("backup", [
    ["Running", r ? `backup ${r.backup_id} since ${fmt.time(r.started_at)}` : "none", "backup-running", r ? r.backup_id : undefined],
    ["Progress", r ? backupProgress(r) : "n/a", "backup-progress", r && r.progress !== null ? r.progress : undefined],
    ["Last completed", b ? `backup ${b.backup_id} at ${fmt.time(b.completed_at)}` : "none seen since the exporter started listening", "backup-id", b ? b.backup_id : undefined],
    ["Size", b ? `${fmt.bytes(b.bytes)} · ${fmt.int(b.records)} records` : "n/a", "backup-size", b ? b.bytes : undefined],
    ["Aborted / failed to start", `${fmt.int(m.backups_aborted)} / ${fmt.int(m.backups_failed_to_start)}`, "backups-failed", m.backups_aborted + m.backups_failed_to_start],
  ]);
  const failed = document.querySelector('#backup [data-testid="backups-failed"]');
  failed.classList.toggle("bad", m.backups_aborted + m.backups_failed_to_start > 0);
  fill("managed-nodes", m.nodes.length ? m.nodes.map((n) =>
    h("span", { class: `chip${MANAGED_OK.has(n.status) ? "" : " off"}`, "data-testid": `managed-node-${n.node_id}`, "data-value": n.status,
      title: `${n.node_type} node ${n.node_id}${n.version ? " · " + n.version : ""} · connected ${n.connect_count} times` },
    `${n.node_type} ${n.node_id} · ${n.status}${n.start_phase ? ` (phase ${n.start_phase})` : ""}`))
    : h("span", { class: "note" }, "No get status answer yet."));
  renderForcedStops(m.forced_stops);
  fill("events", m.events.length ? [
    h("thead", {}, h("tr", {}, ["Time", "Severity", "Node", "Event"].map((t) => h("th", {}, t)))),
    h("tbody", {}, m.events.map((e, i) => h("tr", { class: `event ${e.severity}`, "data-testid": `event-${i}`, "data-value": e.type },
      h("td", {}, fmt.time(e.time)), h("td", { class: "sev" }, e.severity), h("td", { class: "num" }, String(e.source_node)),
      h("td", { title: e.type }, e.text)))),
  ] : h("tbody", {}, h("tr", {}, h("td", { class: "note" }, "No event since the exporter started listening."))));
}

// How far the running backup has got: its data bytes so far against the last completed
// backup's, and the time left at its pace (the data nodes' BackupStatus reports).
function backupProgress(r) {
  if (r.bytes === null) return "no report from the data nodes yet";
  const done = r.progress === null ? `${fmt.bytes(r.bytes)} written` : `${fmt.pct(r.progress)} of the last completed`;
  return done + (r.remaining_seconds === null ? "" : ` · about ${fmt.seconds(r.remaining_seconds)} left`);
}

// A card per data node that stopped by force (NDBStopForced): when, its exit code with NDB's
// message and classification, the start phase, what the code usually means.
function renderForcedStops(stops) {
  fill("forced-stops", stops.map((s) => h("div", { class: "crash", "data-testid": `forced-stop-${s.node_id}`, "data-value": String(s.error) },
    h("h3", {}, `Data node ${s.node_id} stopped by force at ${fmt.time(s.time)}`),
    h("dl", { class: "facts" }, [
      ["Cause", s.error ? `error ${s.error}: ${s.message}` : `signal ${s.signal}`],
      ["Classification", s.error ? `${s.classification_text} · ${s.status_text}` : "n/a"],
      ["Start phase", s.start_phase === null ? "had started" : String(s.start_phase)],
      ["Now", `${s.status_now || "not listed"}${s.restarting ? " · its angel restarts it" : ""}`],
    ].flatMap(([label, value]) => [h("dt", {}, label), h("dd", {}, value)])),
    h("p", { class: "meaning note", "data-testid": `forced-stop-meaning-${s.node_id}` }, s.meaning))));
}

// The levels of thresholds.py (warning, critical), given by the page: "data-memory", "redo".
function levels(name) {
  return document.getElementById("resources").dataset[name].split(" ").map(Number);
}

function bar(ratio, [warning, critical]) {
  const level = ratio === null ? "" : ratio >= critical ? " bad" : ratio >= warning ? " warn" : "";
  return h("span", { class: `bar${level}` }, h("span", { style: `width:${Math.min(100, (ratio || 0) * 100)}%` }));
}

function renderResources(cluster) {
  const head = h("tr", {}, ["Node", "DataMemory", "", "REDO log (all parts)", "", "Fullest REDO part", "LCP running on"].map((t) => h("th", {}, t)));
  const ongoing = cluster.lcp.replicas_lcp_ongoing_by_node || {};
  const stopped = cluster.topology.node_groups.flatMap((g) => g.nodes)
    .concat(cluster.topology.unassigned_data_nodes).filter((n) => !n.running);
  const byNode = new Map(cluster.resources.map((r) => [r.node_id, h("tr", { "data-testid": `resources-${r.node_id}` },
    h("td", {}, `Node ${r.node_id}`),
    h("td", {}, bar(r.data_memory_ratio, levels("dataMemory"))),
    h("td", { class: "num", "data-testid": `data-memory-${r.node_id}`, "data-value": r.data_memory_ratio },
      `${fmt.pct(r.data_memory_ratio)} of ${fmt.bytes(r.data_memory_total_bytes)}`),
    h("td", {}, bar(r.redo_ratio, levels("redo"))),
    h("td", { class: "num", "data-testid": `redo-${r.node_id}`, "data-value": r.redo_ratio },
      `${fmt.pct(r.redo_ratio)} of ${fmt.bytes(r.redo_total_bytes)}`),
    h("td", { class: "num" }, fmt.pct(r.redo_worst_part_ratio)),
    h("td", { class: "num" }, `${fmt.int(ongoing[r.node_id] ?? null)} replicas`))]));
  for (const n of stopped) {
    byNode.set(n.node_id, h("tr", { "data-testid": `resources-${n.node_id}`, class: "stopped" },
      h("td", {}, `Node ${n.node_id}`), h("td", { colspan: 6, class: "note" }, `${n.state}: no memory or REDO figures while the node is down`)));
  }
  // A header row per node group, its nodes below; nodes of no known group last.
  const blocks = [];
  const placed = new Set();
  const grouped = byNode.size > 2 || layout.length > 1;
  for (const g of layout) {
    const members = g.nodes.filter((id) => byNode.has(id));
    if (!members.length) continue;
    const block = grouped ? [h("tr", { class: `ng${g.running < g.nodes.length ? " degraded" : ""}`, "data-testid": `group-resources-${g.nodegroup ?? "unknown"}` },
      h("th", { colspan: 7 }, g.nodegroup === null ? "Node group unknown" : `Node group ${g.nodegroup}`,
        h("span", { class: "running" }, ` · ${g.running}/${g.nodes.length} running`)))] : [];
    for (const id of members) { block.push(byNode.get(id)); placed.add(id); }
    blocks.push(block);
  }
  const rest = [...byNode.keys()].filter((id) => !placed.has(id)).sort((a, b) => a - b);
  if (rest.length) blocks.push(rest.map((id) => byNode.get(id)));
  const table = (part) => h("table", { class: "grid" }, h("thead", {}, head.cloneNode(true)), h("tbody", {}, part.flat()));
  const container = document.getElementById("resources");
  if (!blocks.length) {
    container.classList.remove("split");
    fill("resources", h("table", { class: "grid" }, h("thead", {}, head), h("tbody", {}, h("tr", {}, h("td", { colspan: 7, class: "note" }, "No running data node reports memory.")))));
    return;
  }
  // Many data nodes: the node groups in two tables side by side.
  const split = byNode.size > SPLIT_RESOURCES_NODES;
  container.classList.toggle("split", split);
  if (!split) { fill("resources", table(blocks)); return; }
  const half = byNode.size / 2;
  let count = 0;
  const first = [];
  while (blocks.length && count < half) { const block = blocks.shift(); first.push(block); count += block.length - (grouped ? 1 : 0); }
  fill("resources", table(first), table(blocks));
}

// ---- findings ----
function renderFindings(view) {
  // What the user opened stays open across refreshes.
  const wasOpen = new Set([...document.querySelectorAll("#findings details[open]")].map((d) => d.dataset.testid));
  const card = (f) => h("details", { class: `finding ${f.status === "problem" ? f.severity : f.status}`, "data-testid": `finding-${f.id}`, "data-status": f.status, open: wasOpen.has(`finding-${f.id}`) },
    h("summary", {},
      h("span", { class: "sev" }, f.status === "problem" ? f.severity : f.status),
      h("span", { class: "title" }, f.title),
      h("span", { class: "summary" }, f.summary)),
    h("div", { class: "body" },
      f.evidence.length ? h("table", { class: "evidence" }, f.evidence.map((e) => h("tr", {}, h("td", {}, e.label), h("td", {}, e.value)))) : null,
      h("div", { class: "label" }, "PromQL"), h("pre", {}, f.promql),
      h("div", { class: "label" }, "SQL"), h("pre", {}, f.sql),
      h("div", { class: "label" }, "Tuning guide"), h("p", {}, f.guide),
      h("div", { class: "label" }, "What to do"), h("p", {}, f.advice)));
  const problems = view.findings.filter((f) => f.status === "problem");
  const unknown = view.findings.filter((f) => f.status === "unknown");
  const passed = view.findings.filter((f) => f.status === "ok");
  fill("findings-count", `${problems.length} problem${problems.length === 1 ? "" : "s"} · ${unknown.length} unknown · ${passed.length} passed`);
  const none = unknown.length
    ? `No problems found in the ${passed.length} checks that have data; ${unknown.length} cannot tell.`
    : "No problems found.";
  fill("findings",
    problems.length ? problems.map(card) : h("p", { class: "note", "data-testid": "no-problems" }, none),
    unknown.length ? h("details", { class: "passed", "data-testid": "unknown-checks", open: wasOpen.has("unknown-checks") },
      h("summary", {}, `Checks without data: unknown (${unknown.length})`), unknown.map(card)) : null,
    h("details", { class: "passed", "data-testid": "passed-checks", open: wasOpen.has("passed-checks") },
      h("summary", {}, `Checks without a problem (${passed.length})`), passed.map(card)));
}

// ---- alerts (only with --view.alerts-url) ----
function renderAlerts(view) {
  document.getElementById("alerts-section").hidden = !view.source;
  if (!view.source) return;
  const firing = view.alerts.filter((a) => a.state === "firing").length;
  fill("alerts-count", `${firing} firing · ${view.alerts.length - firing} pending · from ${view.source}`);
  if (view.error) { fill("alerts", h("p", { class: "note" }, view.error)); return; }
  fill("alerts", view.alerts.length ? view.alerts.map((a) =>
    h("div", { class: `alert ${a.severity || ""}`, "data-testid": `alert-${a.name}`, "data-state": a.state },
      webLink(a.link) ? h("a", { class: "name", href: a.link, target: "_blank", rel: "noopener noreferrer" }, a.name) : h("span", { class: "name" }, a.name),
      h("span", { class: "sev" }, `${a.state}${a.severity ? " · " + a.severity : ""}`),
      a.summary ? h("span", { class: "summary" }, ` ${a.summary}`) : null,
      a.since ? h("span", { class: "since" }, `since ${new Date(a.since).toLocaleTimeString("en-GB")}`) : null,
      webLink(a.runbook_url) ? [" · ", h("a", { href: a.runbook_url, target: "_blank", rel: "noopener noreferrer", "data-testid": "runbook" }, "runbook")] : null))
    : h("p", { class: "note" }, "No Ndb alert is firing or pending."));
}

// ---- config ----
// Every data node gets a column, a stopped one too (its values are unknown while it is down).
function renderConfig(view, cluster) {
  const dataNodes = cluster.topology.node_groups.flatMap((g) => g.nodes).concat(cluster.topology.unassigned_data_nodes);
  const stopped = new Set(dataNodes.filter((n) => !n.running).map((n) => n.node_id));
  const nodes = [...new Set(view.params.flatMap((p) => p.values.map((v) => v.node_id)).concat(dataNodes.map((n) => n.node_id)))].sort((a, b) => a - b);
  if (view.unknown) {
    fill("config-count", "unknown");
    fill("config", h("tbody", {}, h("tr", {}, h("td", { class: "note", "data-testid": "config-unknown" }, `Parameters unknown: ${view.unknown}.`))));
    return;
  }
  fill("config-count", `${view.non_default_count} non-default · ${view.inconsistent_count} inconsistent`);
  if (nodes.length > CONFIG_COLUMN_NODES) { renderConfigValues(view, nodes, stopped); return; }
  const head = h("tr", {}, h("th", {}, "Parameter"), h("th", {}, "Default"), nodes.map((n) =>
    h("th", { class: stopped.has(n) ? "stopped" : null, "data-testid": `config-node-${n}` }, `Node ${n}${stopped.has(n) ? " (stopped)" : ""}`)));
  const rows = view.params.map((p) => {
    const byNode = Object.fromEntries(p.values.map((v) => [v.node_id, v.value]));
    return h("tr", { class: p.inconsistent ? "inconsistent" : "", "data-testid": `config-${p.param}` },
      h("td", {}, p.param),
      h("td", { class: "num" }, p.default === null ? "—" : fmt.int(p.default)),
      nodes.map((n) => h("td", { class: `num${p.non_default_nodes.includes(n) ? " non-default" : ""}` },
        byNode[n] === undefined ? (stopped.has(n) ? "?" : "—") : fmt.int(byNode[n]))));
  });
  fill("config", h("thead", {}, head), h("tbody", {}, rows.length ? rows : h("tr", {}, h("td", { colspan: 2, class: "note" }, "Every parameter has its default value on every data node."))));
}

// "1–4, 7, 9–12"
function nodeRanges(ids) {
  const sorted = [...ids].sort((a, b) => a - b);
  const parts = [];
  for (let i = 0; i < sorted.length; i++) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j] + 1) j++;
    parts.push(j > i ? `${sorted[i]}–${sorted[j]}` : String(sorted[i]));
    i = j;
  }
  return parts.join(", ");
}

// Many data nodes: per parameter, each value with the data nodes that have it.
function renderConfigValues(view, nodes, stopped) {
  const head = h("tr", {}, h("th", {}, "Parameter"), h("th", {}, "Default"), h("th", {}, `Value on the ${nodes.length} data nodes`));
  const rows = view.params.map((p) => {
    const holders = new Map();
    for (const v of p.values) {
      if (!holders.has(v.value)) holders.set(v.value, []);
      holders.get(v.value).push(v.node_id);
    }
    const known = new Set(p.values.map((v) => v.node_id));
    const missing = nodes.filter((n) => !known.has(n));
    const values = [...holders.entries()].sort((a, b) => b[1].length - a[1].length).map(([value, ids]) =>
      h("span", { class: "config-value" },
        h("span", { class: `v${ids.some((n) => p.non_default_nodes.includes(n)) ? " non-default" : ""}` }, fmt.int(value)),
        ids.length === nodes.length ? ` on all ${nodes.length}` : ` on node${ids.length === 1 ? "" : "s"} ${nodeRanges(ids)}`));
    if (missing.length) {
      const down = missing.filter((n) => stopped.has(n));
      values.push(h("span", { class: "config-value note" },
        down.length === missing.length ? `? on node${down.length === 1 ? "" : "s"} ${nodeRanges(down)} (stopped)` : `— on node${missing.length === 1 ? "" : "s"} ${nodeRanges(missing)}`));
    }
    return h("tr", { class: p.inconsistent ? "inconsistent" : "", "data-testid": `config-${p.param}` },
      h("td", {}, p.param),
      h("td", { class: "num" }, p.default === null ? "—" : fmt.int(p.default)),
      h("td", { class: "values" }, values));
  });
  fill("config", h("thead", {}, head), h("tbody", {}, rows.length ? rows : h("tr", {}, h("td", { colspan: 3, class: "note" }, "Every parameter has its default value on every data node."))));
}

// ---- placement ----
// Column groups of the placement table and the heat map: the topology's node groups, and any
// data node the placement names that the topology does not (in a group of unknown node group).
function placementGroups(view) {
  const groups = layout.map((g) => ({ ...g, nodes: [...g.nodes] }));
  const known = new Set(groups.flatMap((g) => g.nodes));
  const extra = view.nodes.filter((n) => !known.has(n.node_id));
  for (const n of extra) {
    let group = groups.find((g) => n.nodegroup !== null && g.nodegroup === n.nodegroup)
      || groups.find((g) => g.nodegroup === null && n.nodegroup === null);
    if (!group) {
      group = { label: n.nodegroup === null ? "NG ?" : `NG ${n.nodegroup}`, nodegroup: n.nodegroup, nodes: [], running: 0, stopped: new Set() };
      groups.push(group);
    }
    group.nodes.push(n.node_id);
  }
  return groups.filter((g) => g.nodes.length);
}

function shareTitle(node, s) {
  if (!s) return `node ${node}: no replica of this table`;
  return `node ${node}: ${s.primaries} primar${s.primaries === 1 ? "y" : "ies"}, ${s.backups} backup${s.backups === 1 ? "" : "s"}` +
    (s.dead ? `, ${s.dead} dead` : "") + (s.lcp_ongoing ? `, ${s.lcp_ongoing} in an LCP` : "");
}

// One data node's replicas of one table: "P3 B3" when wide, else the primaries alone.
function shareSlot(node, s, wide, most) {
  if (!s) return h("span", { class: "slot none", title: shareTitle(node, s) }, "·");
  const parts = [];
  if (s.primaries || s.backups || !s.dead) {
    parts.push(wide ? h("span", {}, h("b", {}, `P${s.primaries}`), ` B${s.backups}`) : h("b", {}, s.primaries));
  }
  if (s.dead) parts.push(h("s", { "data-testid": "dead-replica", title: `${s.dead} dead replica${s.dead === 1 ? "" : "s"} on node ${node}` }, `✕${s.dead}`));
  const alpha = most ? s.primaries / most : 0;
  return h("span", {
    class: `slot${s.dead ? " has-dead" : ""}${s.lcp_ongoing ? " lcp" : ""}${s.primaries ? "" : " backup-only"}`,
    title: shareTitle(node, s), "data-node": node,
    style: s.primaries ? `background: rgba(36, 96, 167, ${(0.1 + 0.35 * alpha).toFixed(2)})` : null,
  }, parts);
}

function slots(nodes, make) {
  return h("div", { class: "slots", style: `grid-template-columns: repeat(${nodes.length}, minmax(var(--slot), max-content))` }, nodes.map(make));
}

function fragmentChip(f) {
  const parts = [h("b", {}, f.primary ?? "?")];
  for (const b of f.backups) parts.push("·", h("span", { class: f.lcp_ongoing.includes(b) ? "lcp" : "" }, b));
  for (const d of f.dead) parts.push("·", h("s", { "data-testid": "dead-replica", title: `dead replica on node ${d}` }, d));
  const title = `fragment ${f.fragment_id}: primary ${f.primary}` +
    (f.preferred_primary && f.preferred_primary !== f.primary ? ` (preferred ${f.preferred_primary})` : "") +
    (f.backups.length ? `, backup ${f.backups.join(", ")}` : "") + (f.dead.length ? `, dead ${f.dead.join(", ")}` : "") +
    (f.lcp_ongoing.length ? `, LCP running on ${f.lcp_ongoing.join(", ")}` : "");
  return h("span", {
    class: `frag${f.dead.length ? " has-dead" : ""}${f.lcp_ongoing.includes(f.primary) ? " lcp" : ""}`, title,
    "data-testid": `fragment-${f.fragment_id}`, style: `background:${nodeColour[f.primary] || "#eee"}`,
  }, h("i", {}, `#${f.fragment_id}`), " ", parts);
}

function detailRow(t, columns) {
  const key = `${t.db}.${t.table}`;
  const entry = opened.get(t.table_id);
  let body;
  if (entry.error) body = h("p", { class: "note" }, `Fragments unavailable: ${entry.error}`);
  else if (!entry.detail) body = h("p", { class: "note" }, "reading the fragments from the data nodes…");
  else {
    const d = entry.detail;
    body = [
      h("div", { class: "detail-head" }, `${d.db}.${d.table}: ${d.fragments.length} fragment${d.fragments.length === 1 ? "" : "s"}, `,
        h("b", {}, "primary"), "·backups, coloured by the primary's node · read from node ", String(d.source_node)),
      h("div", { class: "frags" }, d.fragments.length ? d.fragments.map(fragmentChip) : h("span", { class: "note" }, "no fragments")),
    ];
  }
  const row = h("tr", { class: "detail", "data-testid": `fragments-${key}`, "data-loaded": entry.detail ? "1" : null },
    h("td", { colspan: columns }, body));
  entry.row = row;
  return row;
}

async function openTable(t, columns) {
  const entry = { detail: null, error: null, row: null };
  opened.set(t.table_id, entry);
  if (lastPlacement) renderPlacement(lastPlacement);
  try {
    entry.detail = await getJson(api(`/api/v1/placement/${t.table_id}`));
  } catch (err) {
    entry.error = err.message;
  }
  if (opened.get(t.table_id) !== entry) return;  // closed (or opened again) meanwhile
  const old = entry.row;
  const row = detailRow(t, columns);
  if (old && old.isConnected) old.replaceWith(row);
}

function toggleTable(t, columns) {
  if (opened.has(t.table_id)) {
    opened.delete(t.table_id);
    if (lastPlacement) renderPlacement(lastPlacement);
  } else {
    openTable(t, columns);
  }
}

function renderHeat(view, groups) {
  const byNode = new Map(view.nodes.map((n) => [n.node_id, n]));
  const max = Math.max(1, ...view.nodes.map((n) => n.primaries));
  const cell = (id) => {
    const n = byNode.get(id);
    if (!n) return null;
    const alpha = n.primaries / max;
    return h("div", {
      class: `cell${n.running ? "" : " stopped"}`, "data-testid": `heat-${n.node_id}`,
      "data-primaries": n.primaries, "data-replicas": n.replicas, "data-dead": n.dead_replicas,
      style: `background: rgba(36, 96, 167, ${(0.08 + 0.5 * alpha).toFixed(2)})`,
      title: `node ${n.node_id}${n.nodegroup !== null ? `, node group ${n.nodegroup}` : ""}${n.running ? "" : ", stopped"}`,
    },
    h("div", {}, h("span", { class: "n" }, `Node ${n.node_id}`), n.running ? "" : " stopped"),
    h("div", {}, `P ${fmt.int(n.primaries)} · R ${fmt.int(n.replicas)}`),
    n.dead_replicas ? h("div", { class: "badge dead" }, `${fmt.int(n.dead_replicas)} dead`) : null);
  };
  fill("heat",
    h("div", { class: "heat-title" }, "Per data node, over all matching tables: P primaries · R alive replicas"),
    h("div", { class: "heat-groups" }, groups.map((g) => {
      const cells = g.nodes.map(cell).filter(Boolean);
      return cells.length ? h("div", { class: `heat-group${g.stopped.size ? " degraded" : ""}`, "data-testid": `heatgroup-${g.nodegroup ?? "unknown"}` },
        h("div", { class: "label" }, g.label), h("div", { class: "cells" }, cells)) : null;
    })));
}

function renderPlacement(view) {
  lastPlacement = view;
  fill("placement-count", `${fmt.int(view.matched_tables)} of ${fmt.int(view.total_tables)} tables · read from node ${view.source_node}`);
  const dbSelect = document.getElementById("filter-db");
  if (!filter.db) {
    const current = [...dbSelect.options].slice(1).map((o) => o.value).join("\n");
    const next = view.databases.map((d) => d.db).join("\n");
    if (current !== next) {
      dbSelect.replaceChildren(h("option", { value: "" }, "all"),
        ...view.databases.map((d) => h("option", { value: d.db }, `${d.db || "(none)"} (${d.tables})`)));
    }
  }
  const groups = placementGroups(view);
  const nodeSelect = document.getElementById("filter-node");
  const nodeIds = groups.map((g) => `${g.label}:${g.nodes.join(",")}`).join(";");
  if (nodeSelect.dataset.nodes !== nodeIds) {
    nodeSelect.dataset.nodes = nodeIds;
    nodeSelect.replaceChildren(h("option", { value: "" }, "any"),
      ...groups.map((g) => h("optgroup", { label: g.nodegroup === null ? "node group unknown" : `node group ${g.nodegroup}` },
        g.nodes.map((n) => h("option", { value: n, selected: String(n) === filter.node }, `node ${n}`)))));
  }
  renderHeat(view, groups);
  const nodeCount = groups.reduce((sum, g) => sum + g.nodes.length, 0);
  const wide = nodeCount <= WIDE_PLACEMENT_NODES;
  const table = document.getElementById("placement");
  table.classList.toggle("wide", wide);
  table.dataset.renders = String(Number(table.dataset.renders || 0) + 1);
  fill("placement-legend", wide
    ? "Per table and data node: P primaries · B alive backups; "
    : "Per table, a cell per node group with the primaries on each of its data nodes (darker: more primaries; hover for backups); ",
  h("s", { class: "dead-mark" }, "✕n"), " dead replicas · ", h("span", { class: "lcp-mark" }, "dotted"), " LCP running · ",
  h("span", { class: "badge nrb" }, "no RB"), " no READ_BACKUP · ▸ opens a table's fragments.");
  const columns = 2 + groups.length;
  const head = h("tr", {},
    h("th", { class: "name" }, "Table"), h("th", { class: "num", title: "fragments" }, "Frags"),
    groups.map((g) => h("th", { class: `ng${g.stopped.size ? " degraded" : ""}`, title: `${g.label}: data nodes ${g.nodes.join(", ")}` },
      h("div", { class: "ng-label" }, g.label),
      slots(g.nodes, (id) => h("span", { class: `slot head${g.stopped.has(id) ? " stopped" : ""}`, title: `node ${id}` }, id)))));
  const rows = [];
  let db = null;
  for (const t of view.tables) {
    if (t.db !== db) {
      db = t.db;
      const count = (view.databases.find((d) => d.db === db) || {}).tables;
      rows.push(h("tr", {}, h("th", { class: "db", colspan: columns }, `${db || "(no database)"} · ${fmt.int(count)} tables`)));
    }
    const key = `${t.db}.${t.table}`;
    const shares = new Map(t.nodes.map((s) => [s.node_id, s]));
    const most = Math.max(0, ...t.nodes.map((s) => s.primaries));
    const isOpen = opened.has(t.table_id);
    rows.push(h("tr", { "data-testid": `table-${key}`, "data-dead": t.dead_replicas, class: isOpen ? "open" : null },
      h("td", { class: "name", title: `${key} (table id ${t.table_id})` },
        h("button", {
          type: "button", class: "open", "data-testid": `open-${key}`, "aria-expanded": isOpen ? "true" : "false",
          title: isOpen ? "close the fragments" : "show the fragments", onclick: () => toggleTable(t, columns),
        }, isOpen ? "▾" : "▸"),
        h("span", { class: "tname" }, t.table),
        t.read_backup === false && !t.fully_replicated ? h("span", { class: "badge nrb" }, "no RB") : null,
        t.fully_replicated ? h("span", { class: "badge fr", title: "fully replicated" }, "FR") : null,
        t.dead_replicas ? h("span", { class: "badge dead" }, `${t.dead_replicas} dead`) : null),
      h("td", { class: "num" }, fmt.int(t.fragments)),
      groups.map((g) => h("td", { class: "ng" }, slots(g.nodes, (id) => shareSlot(id, shares.get(id), wide, most))))));
    if (isOpen) rows.push(detailRow(t, columns));
  }
  fill("placement", h("thead", {}, head), h("tbody", {}, rows.length ? rows : h("tr", {}, h("td", { class: "note", colspan: columns }, "No table matches the filter."))));
  fill("pager",
    h("button", { type: "button", disabled: view.page <= 1, onclick: () => { filter.page -= 1; loadPlacement(); } }, "‹ previous"),
    h("span", { "data-testid": "page" }, `page ${view.page} of ${view.pages}`),
    h("button", { type: "button", disabled: view.page >= view.pages, onclick: () => { filter.page += 1; loadPlacement(); } }, "next ›"));
}

// The timer, the filter and the pager all load the placement: only the newest request's
// answer is shown, the older ones are cancelled.
let placementRequest = null;
async function loadPlacement() {
  const params = { page: filter.page, page_size: filter.pageSize };
  if (filter.db) params.db = filter.db;
  if (filter.table) params.table = filter.table;
  if (filter.node) params.node = filter.node;
  if (placementRequest) placementRequest.abort();
  const request = placementRequest = new AbortController();
  try {
    const view = await getJson(api("/api/v1/placement", params), request.signal);
    if (request !== placementRequest) return;
    fill("placement-note");
    renderPlacement(view);
    document.getElementById("placement").dataset.query = new URLSearchParams(params).toString();
  } catch (err) {
    if (request !== placementRequest || err.name === "AbortError") return;
    if (err.status === 400 && filter.page > 1) { filter.page = 1; return loadPlacement(); }
    lastPlacement = null;
    fill("placement-note", `Placement map unavailable: ${err.message}`);
    fill("placement-count", "unavailable");
    fill("heat");
    fill("placement");
    fill("pager");
  }
}

// Green only when the SQL node answered, NDB is visible and every collector could read ndbinfo.
function pill(cluster) {
  if (!cluster.up) return ["down", "SQL node down"];
  const why = { engine_absent: "engine absent", ndbinfo_absent: "ndbinfo schema absent", privilege_missing: "no privilege on ndbinfo" };
  const visibility = cluster.sql_node.ndb_visibility;
  if (visibility && visibility !== "ok") return ["down", `SQL node up · NDB not visible (${why[visibility] || visibility})`];
  if (cluster.sql_node.data_nodes_ready === 0) return ["down", "SQL node up · no data node ready"];
  const failed = cluster.collectors_failed.length;
  if (failed) return ["partial", `SQL node up · ${failed} collector${failed === 1 ? "" : "s"} failing`];
  return ["up", "SQL node up"];
}

// One refresh at a time: a timer tick while one runs is skipped.
let refreshing = false;
async function refresh() {
  if (refreshing) return;
  refreshing = true;
  try {
    await refreshOnce();
  } finally {
    refreshing = false;
  }
}

// One refresh draws one state of the cluster: its findings, configuration and alerts are asked
// for with it and drawn with it, so that no card shows a newer state than another.
async function refreshOnce() {
  const others = Promise.allSettled([getJson(api("/api/v1/findings")), getJson(api("/api/v1/config")), getJson("/api/v1/alerts"),
    getJson(api("/api/v1/management")).catch((err) => { if (err.status === 404) return null; throw err; })]);
  let cluster;
  let response;
  try {
    ({ body: cluster, response } = await getAnswer(api("/api/v1/cluster")));
  } catch (err) {
    const up = document.getElementById("up");
    up.className = "pill down";
    if (err.status === 400 || err.status === 403) {
      // The target is refused or missing: asking again will not help; the picker will.
      halted = true;
      schedule();
      up.textContent = "no SQL node shown";
      showBanner(`Cannot show ${chosen.target || "the default SQL node"}: ${err.message}. ` +
        "Choose an SQL node with the picker above.", "refused");
      document.getElementById("main").hidden = true;
      return;
    }
    up.textContent = "exporter unreachable";
    showBanner(`Cannot load the cluster view: ${err.message}. Retrying every ${REFRESH_MS / 1000} s.`);
    return;
  }
  const [findings, config, alerts, management] = await others;
  const up = document.getElementById("up");
  const [pillClass, pillText] = pill(cluster);
  up.className = `pill ${pillClass}`;
  up.textContent = pillText;
  up.title = cluster.collectors_failed.map((f) => `${f.collector}: ${f.error}`).join("\n");
  up.dataset.value = cluster.up ? "1" : "0";
  showFreshness(cluster, response);
  if (!cluster.up) {
    const shown = document.body.dataset.loaded;
    showBanner(`The SQL node ${cluster.target} is unreachable (ndb_up 0): ${cluster.error || "no answer"}. ` +
      (shown ? `Below is the data from ${fmt.time(Number(shown))}` : "There is no cluster data to show yet") +
      `; retrying every ${REFRESH_MS / 1000} s.`);
    document.getElementById("main").hidden = !shown;
    return;
  }
  const placement = loadPlacement();
  showBanner("");
  document.getElementById("main").hidden = false;
  fill("system-name", cluster.sql_node.system_name || "");
  fill("sql-version", cluster.sql_node.version ? `· ${cluster.sql_node.version}` : "");
  renderTopology(cluster);
  renderLcp(cluster.lcp);
  renderSql(cluster);
  renderResources(cluster);
  renderReplication(cluster.replication);
  if (alerts.status === "fulfilled") renderAlerts(alerts.value);
  if (management.status === "fulfilled") renderManagement(management.value);
  else fill("management-state", `unavailable: ${management.reason.message}`);
  if (findings.status === "fulfilled") renderFindings(findings.value);
  else fill("findings", h("p", { class: "note" }, `Findings unavailable: ${findings.reason.message}`));
  if (config.status === "fulfilled") renderConfig(config.value, cluster);
  else fill("config", h("tr", {}, h("td", { class: "note" }, `Configuration unavailable: ${config.reason.message}`)));
  await placement;
  document.body.dataset.loaded = String(cluster.scraped_at);
  document.body.dataset.refreshes = String(Number(document.body.dataset.refreshes || 0) + 1);
}

// How old the data is (the Age the exporter gives) and whether the exporter refreshes it now.
function showFreshness(cluster, response) {
  const scraped = document.getElementById("scraped-at");
  const age = Number(response && response.headers.get("Age"));
  const refreshing = Boolean(response) && response.headers.get("X-View-Refreshing") === "true";
  scraped.textContent = `data from ${fmt.time(cluster.scraped_at)}` +
    (age ? ` · ${fmt.seconds(age)} old` : "") + (refreshing ? " · refreshing…" : "");
  scraped.dataset.value = cluster.scraped_at;
  scraped.dataset.age = String(age || 0);
  scraped.dataset.refreshing = refreshing ? "1" : "0";
}

function schedule() {
  clearInterval(timer);
  if (!halted && document.getElementById("auto-refresh").checked) timer = setInterval(refresh, REFRESH_MS);
}

function onFilter() {
  filter.db = document.getElementById("filter-db").value;
  filter.table = document.getElementById("filter-table").value.trim();
  filter.node = document.getElementById("filter-node").value;
  filter.pageSize = Number(document.getElementById("filter-page-size").value);
  filter.page = 1;
  loadPlacement();
}

document.getElementById("placement-filter").addEventListener("submit", (e) => e.preventDefault());
for (const id of ["filter-db", "filter-node", "filter-page-size"]) document.getElementById(id).addEventListener("change", onFilter);
let typing = null;
document.getElementById("filter-table").addEventListener("input", () => { clearTimeout(typing); typing = setTimeout(onFilter, 250); });
document.getElementById("auto-refresh").addEventListener("change", schedule);

async function start() {
  const listing = await loadTargets();
  if (listing && !listing.default && !chosen.target) {
    halted = true;
    document.getElementById("up").className = "pill";
    document.getElementById("up").textContent = "no SQL node chosen";
    showBanner("This exporter has no default SQL node: choose the SQL node to show with the picker above.", "prompt");
    document.getElementById("main").hidden = true;
    return;
  }
  await refresh();
  schedule();
}

start();
