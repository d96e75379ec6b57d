// The cluster view: renders /api/v1/{cluster,findings,config,placement} and refreshes them.
"use strict";

const REFRESH_MS = 10000;
const NODE_COLOURS = [
  "#cfe3fa", "#d5f0d9", "#fbe3c6", "#e8d9f7", "#f9d4dc", "#d2f1ef", "#f3efc4", "#dfe3e8",
  "#bcd6f5", "#c2e8c9", "#f7d3a8", "#dac4f2", "#f4bccb", "#bde9e5", "#ebe4a5", "#cbd2da",
];
const filter = { db: "", table: "", node: "", page: 1, pageSize: 50 };
let nodeColour = {};
let timer = null;

function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") el.className = value;
    else if (key === "text") el.textContent = value;
    else if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else el.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
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
  time: (t) => new Date(t * 1000).toLocaleTimeString("en-GB"),
};

async function getJson(path) {
  let response;
  try {
    response = await fetch(path, { headers: { Accept: "application/json" } });
  } catch (err) {
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
  return body;
}

function showBanner(message) {
  const banner = document.getElementById("banner");
  banner.textContent = message;
  banner.hidden = !message;
  document.getElementById("main").classList.toggle("stale", Boolean(message));
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
  return h("div", { class: `node ${stateClass(node)}`, "data-testid": `data-node-${node.node_id}`, "data-state": node.state },
    h("div", { class: "id" }, `Node ${node.node_id}`),
    h("div", { class: "state" }, node.state),
    h("div", { class: "meta" }, meta.join(" · ") || (node.running ? "" : "no row in ndbinfo.nodes")));
}

function renderTopology(cluster) {
  const t = cluster.topology;
  const groups = t.node_groups.map((g) =>
    h("div", { class: `group${g.running < g.nodes.length ? " degraded" : ""}`, "data-testid": `nodegroup-${g.nodegroup}` },
      h("h3", {}, `Node group ${g.nodegroup} · ${g.running}/${g.nodes.length} running`),
      h("div", { class: "nodes" }, g.nodes.map(dataNodeTile))));
  if (t.unassigned_data_nodes.length) {
    groups.push(h("div", { class: "group degraded" }, h("h3", {}, "Node group unknown"),
      h("div", { class: "nodes" }, t.unassigned_data_nodes.map(dataNodeTile))));
  }
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
      roles.length ? h("div", {}, h("h3", {}, "Roles"), h("span", {}, roles.join(" · "))) : null));
  nodeColour = {};
  const ids = t.node_groups.flatMap((g) => g.nodes.map((n) => n.node_id))
    .concat(t.unassigned_data_nodes.map((n) => n.node_id));
  ids.forEach((id, i) => { nodeColour[id] = NODE_COLOURS[i % NODE_COLOURS.length]; });
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
      : `${fmt.int(lcp.age_gcis)} GCIs${lcp.age_seconds !== null ? ` (≈ ${fmt.seconds(lcp.age_seconds)})` : ""}`,
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

function bar(ratio) {
  const level = ratio === null ? "" : ratio > 0.9 ? " bad" : ratio > 0.7 ? " warn" : "";
  return h("span", { class: `bar${level}` }, h("span", { style: `width:${Math.min(100, (ratio || 0) * 100)}%` }));
}

function renderResources(cluster) {
  const head = h("tr", {}, ["Node", "DataMemory", "", "REDO log (all parts)", "", "Fullest REDO part", "LCP running on"].map((t) => h("th", {}, t)));
  const ongoing = cluster.lcp.replicas_lcp_ongoing_by_node || {};
  const stopped = cluster.topology.node_groups.flatMap((g) => g.nodes)
    .concat(cluster.topology.unassigned_data_nodes).filter((n) => !n.running);
  const rows = cluster.resources.map((r) => h("tr", { "data-testid": `resources-${r.node_id}` },
    h("td", {}, `Node ${r.node_id}`),
    h("td", {}, bar(r.data_memory_ratio)),
    h("td", { class: "num", "data-testid": `data-memory-${r.node_id}`, "data-value": r.data_memory_ratio },
      `${fmt.pct(r.data_memory_ratio)} of ${fmt.bytes(r.data_memory_total_bytes)}`),
    h("td", {}, bar(r.redo_ratio)),
    h("td", { class: "num", "data-testid": `redo-${r.node_id}`, "data-value": r.redo_ratio },
      `${fmt.pct(r.redo_ratio)} of ${fmt.bytes(r.redo_total_bytes)}`),
    h("td", { class: "num" }, fmt.pct(r.redo_worst_part_ratio)),
    h("td", { class: "num" }, `${fmt.int(ongoing[r.node_id] ?? null)} replicas`)))
    .concat(stopped.map((n) => h("tr", { "data-testid": `resources-${n.node_id}` },
      h("td", {}, `Node ${n.node_id}`), h("td", { colspan: 6, class: "note" }, `${n.state}: no memory or REDO figures while the node is down`))));
  rows.sort((a, b) => Number(a.dataset.testid.split("-")[1]) - Number(b.dataset.testid.split("-")[1]));
  fill("resources", h("thead", {}, head), h("tbody", {}, rows.length ? rows : h("tr", {}, h("td", { colspan: 7, class: "note" }, "No running data node reports memory."))));
}

// ---- findings ----
function renderFindings(view) {
  const card = (f) => h("details", { class: `finding ${f.status === "problem" ? f.severity : f.status}`, "data-testid": `finding-${f.id}`, "data-status": f.status },
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
    unknown.length ? h("details", { class: "passed", "data-testid": "unknown-checks" },
      h("summary", {}, `Checks without data: unknown (${unknown.length})`), unknown.map(card)) : null,
    h("details", { class: "passed", "data-testid": "passed-checks" },
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
      h("a", { class: "name", href: a.link, target: "_blank", rel: "noopener" }, a.name),
      h("span", { class: "sev" }, `${a.state}${a.severity ? " · " + a.severity : ""}`),
      a.summary ? h("span", { class: "summary" }, ` ${a.summary}`) : null,
      a.since ? h("span", { class: "since" }, `since ${new Date(a.since).toLocaleTimeString("en-GB")}`) : null,
      a.runbook_url ? [" · ", h("a", { href: a.runbook_url, target: "_blank", rel: "noopener" }, "runbook")] : null))
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

// ---- placement ----
function fragmentCell(f) {
  const parts = [h("b", {}, f.primary ?? "?")];
  for (const b of f.backups) parts.push("·", h("span", { class: f.lcp_ongoing.includes(b) ? "lcp" : "" }, b));
  for (const d of f.dead) parts.push("·", h("s", { "data-testid": "dead-replica", title: `dead replica on node ${d}` }, d));
  const title = `fragment ${f.fragment_id}: primary ${f.primary}` +
    (f.preferred_primary && f.preferred_primary !== f.primary ? ` (preferred ${f.preferred_primary})` : "") +
    (f.backups.length ? `, backup ${f.backups.join(", ")}` : "") + (f.dead.length ? `, dead ${f.dead.join(", ")}` : "");
  return h("td", { class: "frag" }, h("span", {
    class: `frag${f.dead.length ? " has-dead" : ""}`, title,
    style: `background:${nodeColour[f.primary] || "#eee"}`,
  }, parts));
}

function renderHeat(view) {
  const max = Math.max(1, ...view.nodes.map((n) => n.primaries));
  const cells = view.nodes.map((n) => {
    const alpha = n.primaries / max;
    return h("td", {
      class: n.running ? "" : "stopped", "data-testid": `heat-${n.node_id}`,
      "data-primaries": n.primaries, "data-replicas": n.replicas, "data-dead": n.dead_replicas,
      style: `background: rgba(36, 96, 167, ${(0.08 + 0.5 * alpha).toFixed(2)})`,
      title: `node ${n.node_id}${n.nodegroup !== null ? `, node group ${n.nodegroup}` : ""}${n.running ? "" : ", stopped"}`,
    },
    h("div", {}, h("span", { class: "n" }, `Node ${n.node_id}`), n.nodegroup !== null ? ` · ng ${n.nodegroup}` : ""),
    h("div", {}, `P ${fmt.int(n.primaries)} · R ${fmt.int(n.replicas)}`),
    n.dead_replicas ? h("div", { class: "badge dead" }, `${fmt.int(n.dead_replicas)} dead`) : null);
  });
  fill("heat", h("tr", {}, h("th", {}, "Per node (all matching tables): primaries, alive replicas"), cells));
}

function renderPlacement(view) {
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
  const nodeSelect = document.getElementById("filter-node");
  const nodeIds = view.nodes.map((n) => String(n.node_id)).join(",");
  if (nodeSelect.dataset.nodes !== nodeIds) {
    nodeSelect.dataset.nodes = nodeIds;
    nodeSelect.replaceChildren(h("option", { value: "" }, "any"),
      ...view.nodes.map((n) => h("option", { value: n.node_id, selected: String(n.node_id) === filter.node }, `node ${n.node_id}`)));
  }
  renderHeat(view);
  const maxFragments = Math.max(0, ...view.tables.map((t) => t.fragments.length));
  const rows = [];
  let db = null;
  for (const t of view.tables) {
    if (t.db !== db) {
      db = t.db;
      const count = (view.databases.find((d) => d.db === db) || {}).tables;
      rows.push(h("tr", {}, h("th", { class: "db", colspan: maxFragments + 1 }, `${db || "(no database)"} · ${fmt.int(count)} tables`)));
    }
    rows.push(h("tr", { "data-testid": `table-${t.db}.${t.table}`, "data-dead": t.dead_replicas },
      h("td", { class: "name", title: `${t.db}.${t.table} (table id ${t.table_id})` }, t.table,
        t.read_backup === false && !t.fully_replicated ? h("span", { class: "badge nrb" }, "no RB") : null,
        t.dead_replicas ? h("span", { class: "badge dead" }, `${t.dead_replicas} dead`) : null),
      t.fragments.map(fragmentCell)));
  }
  fill("placement", h("tbody", {}, rows.length ? rows : h("tr", {}, h("td", { class: "note" }, "No table matches the filter."))));
  fill("pager",
    h("button", { type: "button", disabled: view.page <= 1, onclick: () => { filter.page -= 1; loadPlacement(); } }, "‹ previous"),
    h("span", { "data-testid": "page" }, `page ${view.page} of ${view.pages}`),
    h("button", { type: "button", disabled: view.page >= view.pages, onclick: () => { filter.page += 1; loadPlacement(); } }, "next ›"));
}

async function loadPlacement() {
  const params = new URLSearchParams({ page: filter.page, page_size: filter.pageSize });
  if (filter.db) params.set("db", filter.db);
  if (filter.table) params.set("table", filter.table);
  if (filter.node) params.set("node", filter.node);
  try {
    const view = await getJson(`/api/v1/placement?${params}`);
    fill("placement-note");
    renderPlacement(view);
  } catch (err) {
    if (err.status === 400 && filter.page > 1) { filter.page = 1; return loadPlacement(); }
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

async function refresh() {
  let cluster;
  try {
    cluster = await getJson("/api/v1/cluster");
  } catch (err) {
    document.getElementById("up").className = "pill down";
    document.getElementById("up").textContent = "exporter unreachable";
    showBanner(`Cannot load the cluster view: ${err.message}. Retrying every ${REFRESH_MS / 1000} s.`);
    return;
  }
  const up = document.getElementById("up");
  const [pillClass, pillText] = pill(cluster);
  up.className = `pill ${pillClass}`;
  up.textContent = pillText;
  up.title = cluster.collectors_failed.map((f) => `${f.collector}: ${f.error}`).join("\n");
  up.dataset.value = cluster.up ? "1" : "0";
  const scraped = document.getElementById("scraped-at");
  scraped.textContent = `data from ${fmt.time(cluster.scraped_at)}`;
  scraped.dataset.value = cluster.scraped_at;
  if (!cluster.up) {
    const shown = document.body.dataset.loaded;
    showBanner(`The SQL node ${cluster.target} is unreachable (ndb_up 0): ${cluster.error || "no answer"}. ` +
      (shown ? `Below is the data from ${fmt.time(Number(shown))}` : "There is no cluster data to show yet") +
      `; retrying every ${REFRESH_MS / 1000} s.`);
    document.getElementById("main").hidden = !shown;
    return;
  }
  showBanner("");
  document.getElementById("main").hidden = false;
  fill("system-name", cluster.sql_node.system_name || "");
  fill("sql-version", cluster.sql_node.version ? `· ${cluster.sql_node.version}` : "");
  renderTopology(cluster);
  renderLcp(cluster.lcp);
  renderSql(cluster);
  renderResources(cluster);
  const [findings, config, , alerts] = await Promise.allSettled([getJson("/api/v1/findings"), getJson("/api/v1/config"), loadPlacement(), getJson("/api/v1/alerts")]);
  if (alerts.status === "fulfilled") renderAlerts(alerts.value);
  if (findings.status === "fulfilled") renderFindings(findings.value);
  else fill("findings", h("p", { class: "note" }, `Findings unavailable: ${findings.reason.message}`));
  if (config.status === "fulfilled") renderConfig(config.value, cluster);
  else fill("config", h("tr", {}, h("td", { class: "note" }, `Configuration unavailable: ${config.reason.message}`)));
  document.body.dataset.loaded = String(cluster.scraped_at);
}

function schedule() {
  clearInterval(timer);
  if (document.getElementById("auto-refresh").checked) timer = setInterval(refresh, REFRESH_MS);
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
refresh();
schedule();
