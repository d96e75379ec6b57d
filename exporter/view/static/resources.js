// The LCP, SQL efficiency and resources cards.
import { facts, fill, fmt, h } from "./dom.js";
import { nodes } from "./topology.js";

// Above this many data nodes DataMemory and REDO are shown in two tables side by side.
const SPLIT_RESOURCES_NODES = 16;

export function renderLcp(lcp) {
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

export function renderSql(cluster) {
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

// The levels of thresholds.py (warning, critical), given by the page: "data-memory", "redo".
function levels(name) {
  return document.getElementById("resources").dataset[name].split(" ").map(Number);
}

function bar(ratio, [warning, critical]) {
  const level = ratio === null ? "" : ratio >= critical ? " bad" : ratio >= warning ? " warn" : "";
  return h("span", { class: `bar${level}` }, h("span", { style: `width:${Math.min(100, (ratio || 0) * 100)}%` }));
}

export function renderResources(cluster) {
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
  const grouped = byNode.size > 2 || nodes.layout.length > 1;
  for (const g of nodes.layout) {
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
