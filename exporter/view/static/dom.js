// What every card of the cluster view uses: the page's target, the API's answers, building and
// filling elements, and number formats.

const pageQuery = new URLSearchParams(window.location.search);
// The page's own ?target= and &auth_module=: they go on to every API call.
export const chosen = { target: pageQuery.get("target") || "", authModule: pageQuery.get("auth_module") || "" };

// An API path with the page's target and auth_module.
export function api(path, params) {
  const query = new URLSearchParams(params || {});
  if (chosen.target) query.set("target", chosen.target);
  if (chosen.authModule) query.set("auth_module", chosen.authModule);
  const text = query.toString();
  return text ? `${path}?${text}` : path;
}

export function h(tag, attrs, ...children) {
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
export function webLink(url) {
  if (typeof url !== "string" || !url) return null;
  try {
    const parsed = new URL(url);
    return parsed.protocol === "http:" || parsed.protocol === "https:" ? parsed.href : null;
  } catch (err) {
    return null;
  }
}

export function fill(id, ...children) {
  const el = document.getElementById(id);
  el.replaceChildren(...children.flat().filter((c) => c !== null && c !== undefined));
  return el;
}

export const fmt = {
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

export async function getJson(path, signal) {
  return (await getAnswer(path, signal)).body;
}

// The answer's body and its response (whose headers say how old the data is).
export async function getAnswer(path, signal) {
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

export function showBanner(message, kind) {
  const banner = document.getElementById("banner");
  banner.textContent = message;
  banner.hidden = !message;
  banner.className = `banner${kind ? " " + kind : ""}`;
  banner.dataset.kind = message ? kind || "error" : "";
  document.getElementById("main").classList.toggle("stale", Boolean(message) && !kind);
}

export function facts(id, rows) {
  fill(id, rows.flatMap(([label, value, testid, raw]) => [
    h("dt", {}, label),
    h("dd", { "data-testid": testid, "data-value": raw === undefined ? null : String(raw) }, value),
  ]));
}

// Error numbers and server ids are codes: no thousands separator.
export const code = (v) => (v === null || v === undefined ? "n/a" : String(v));
