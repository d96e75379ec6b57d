// The management server card (only with --mgmd.address): every node, the backups, the forced
// stops and the cluster log's events.
import { facts, fill, fmt, h } from "./dom.js";

const MANAGED_OK = new Set(["STARTED", "CONNECTED"]);

export function renderManagement(m) {
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

