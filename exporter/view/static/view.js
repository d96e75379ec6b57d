// The cluster view: renders /api/v1/{cluster,findings,config,placement,management} and refreshes them.
// The page's own ?target= and &auth_module= go on to every API call, so a URL shows one SQL node.
import { api, chosen, fill, fmt, getAnswer, getJson, h, showBanner } from "./dom.js";
import { renderAlerts, renderConfig, renderFindings } from "./findings.js";
import { renderManagement } from "./management.js";
import { loadPlacement, watchFilter } from "./placement.js";
import { renderReplication } from "./replication.js";
import { renderLcp, renderResources, renderSql } from "./resources.js";
import { loadTargets } from "./targets.js";
import { renderTopology } from "./topology.js";

const REFRESH_MS = 10000;
let timer = null;
let halted = false;  // no SQL node to show: no refreshes

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

watchFilter();
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
