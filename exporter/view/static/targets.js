// The target picker: the SQL nodes this exporter may show.
import { chosen, fill, getJson, h } from "./dom.js";

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

export async function loadTargets() {
  try {
    const listing = await getJson("/api/v1/targets");
    renderTargets(listing);
    return listing;
  } catch (err) {
    fill("target-picker", h("span", { class: "note" }, `targets unavailable: ${err.message}`));
    return null;
  }
}
