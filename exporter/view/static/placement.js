// The placement card: the heat map, each table's replicas per data node, a table's fragments on
// demand; filtered and paged.
import { api, fill, fmt, getJson, h } from "./dom.js";
import { nodes } from "./topology.js";

// Above this many data nodes the placement shows primaries per node only (details in a tooltip).
const WIDE_PLACEMENT_NODES = 8;
const filter = { db: "", table: "", node: "", page: 1, pageSize: 50 };
// Tables whose fragments are open: table_id -> {key, detail, error} (fetched when opened).
const opened = new Map();
let lastPlacement = null;

// Column groups of the placement table and the heat map: the topology's node groups, and any
// data node the placement names that the topology does not (in a group of unknown node group).
function placementGroups(view) {
  const groups = nodes.layout.map((g) => ({ ...g, nodes: [...g.nodes] }));
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
    "data-testid": `fragment-${f.fragment_id}`, style: `background:${nodes.colour[f.primary] || "#eee"}`,
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
export async function loadPlacement() {
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

function onFilter() {
  filter.db = document.getElementById("filter-db").value;
  filter.table = document.getElementById("filter-table").value.trim();
  filter.node = document.getElementById("filter-node").value;
  filter.pageSize = Number(document.getElementById("filter-page-size").value);
  filter.page = 1;
  loadPlacement();
}

// The filter's fields load the placement again when they change.
export function watchFilter() {
  document.getElementById("placement-filter").addEventListener("submit", (e) => e.preventDefault());
  for (const id of ["filter-db", "filter-node", "filter-page-size"]) document.getElementById(id).addEventListener("change", onFilter);
  let typing = null;
  document.getElementById("filter-table").addEventListener("input", () => { clearTimeout(typing); typing = setTimeout(onFilter, 250); });
}
