// The topology card: data nodes by node group, management and API nodes, schema changes under
// way. Its node groups and node colours are what the resources and placement cards lay out by.
import { fill, fmt, h } from "./dom.js";

const NODE_COLOURS = [
  "#cfe3fa", "#d5f0d9", "#fbe3c6", "#e8d9f7", "#f9d4dc", "#d2f1ef", "#f3efc4", "#dfe3e8",
  "#bcd6f5", "#c2e8c9", "#f7d3a8", "#dac4f2", "#f4bccb", "#bde9e5", "#ebe4a5", "#cbd2da",
];
// Above this many data nodes the topology tiles are compact.
const COMPACT_TOPOLOGY_NODES = 8;
// Node groups of the last /api/v1/cluster: [{label, nodegroup, nodes: [node_id], running,
// stopped}], and each data node's colour.
export const nodes = { layout: [], colour: {} };

// A data node the configuration has not active (RonDB's NodeActive=0) is kept out on purpose.
function stateClass(node) {
  if (!node.active) return "inactive";
  if (!node.running) return "stopped";
  return node.state === "STARTED" ? "started" : "starting";
}

function dataNodeTile(node) {
  const meta = [];
  if (node.hostname) meta.push(node.hostname);
  if (node.running && node.uptime_seconds !== null) meta.push(`up ${fmt.seconds(node.uptime_seconds)}`);
  if (node.running && node.state !== "STARTED" && node.start_phase !== null) meta.push(`phase ${node.start_phase}`);
  const idle = node.active ? "no row in ndbinfo.nodes" : "not active (NodeActive=0)";
  const text = meta.join(" · ") || (node.running ? "" : idle);
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
    running: g.running, stopped: new Set(g.nodes.filter((n) => !n.running && n.active).map((n) => n.node_id)),
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

export function renderTopology(cluster) {
  const t = cluster.topology;
  const count = t.node_groups.reduce((sum, g) => sum + g.nodes.length, 0) + t.unassigned_data_nodes.length;
  const groups = t.node_groups.map((g) => {
    const active = g.nodes.filter((n) => n.active).length;
    const inactive = g.nodes.length - active;
    return h("div", { class: `group${g.running < active ? " degraded" : ""}`, "data-testid": `nodegroup-${g.nodegroup}` },
      h("h3", {}, `Node group ${g.nodegroup}`, h("span", { class: "running" },
        ` ${g.running}/${active} running${inactive ? ` · ${inactive} not active` : ""}`)),
      h("div", { class: "nodes" }, g.nodes.map(dataNodeTile)));
  });
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
  nodes.layout = nodeLayout(t);
  nodes.colour = {};
  nodes.layout.flatMap((g) => g.nodes).forEach((id, i) => { nodes.colour[id] = NODE_COLOURS[i % NODE_COLOURS.length]; });
}
