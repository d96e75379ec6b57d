// The findings, alerts (only with --view.alerts-url) and configuration cards.
import { fill, fmt, h, webLink } from "./dom.js";

// Above this many data nodes a parameter's values are listed with their nodes, not a column each.
const CONFIG_COLUMN_NODES = 8;

export function renderFindings(view) {
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

export function renderAlerts(view) {
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

// Every data node gets a column, a stopped one too (its values are unknown while it is down).
export function renderConfig(view, cluster) {
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
