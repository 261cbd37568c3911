/**
 * The console's request log: the list of captured requests with their details, the filter, and
 * the long-poll that keeps it current (`/_mock/requests?waitForChangeSince`).
 *
 * Browser code, inlined into the page with its siblings (see `core.js`).
 */
import { $, api, el, problemText, say, tokenEntered } from "./core.js";

/**
 * A captured request's DPoP proof, once checked: its key's thumbprint, whether it verified, and
 * the error code of a refused one.
 * @typedef {{ jkt?: string, verified: boolean, error?: string }} DpopNote
 */

/**
 * A captured request as `/_mock/requests` lists it (the fields the page shows).
 * @typedef {{
 *   id: string, receivedAt: string, method: string, path: string, issuer: string, url: string,
 *   query?: Record<string, string | string[]>, headers?: Record<string, string | string[]>,
 *   body?: string, dpop?: DpopNote,
 * }} CapturedEntry
 */

const MAX_SHOWN = 500;
const WAIT_MS = 25000;
const THROTTLE_MS = 500;
let logVersion = -1;

/** @param {Record<string, string | string[]> | undefined} map */
function table(map) {
  const rows = [];
  for (const [name, values] of Object.entries(map ?? {})) {
    for (const value of Array.isArray(values) ? values : [values]) {
      rows.push(el("tr", "", el("th", "", name), el("td", "", value)));
    }
  }
  return rows.length ? el("table", "", ...rows) : el("p", "note", "none");
}

/** @param {DpopNote} dpop */
function dpopTable(dpop) {
  const table = el("table", "dpop");
  for (const [name, value] of Object.entries(dpopRows(dpop))) {
    table.append(el("tr", "", el("th", "", name), el("td", "", value)));
  }
  return table;
}

/** @param {CapturedEntry} entry */
function bodyView(entry) {
  if (entry.body === undefined) return [el("p", "note", "no body")];
  const type = String((entry.headers ?? {})["content-type"] ?? "").toLowerCase();
  if (type.startsWith("application/x-www-form-urlencoded")) {
    /** @type {Record<string, string[]>} */
    const form = {};
    for (const [k, v] of new URLSearchParams(entry.body)) (form[k] ??= []).push(v);
    return [el("h3", "", "Body (form)"), table(form), el("pre", "", entry.body)];
  }
  if (type.includes("json")) {
    try {
      const pretty = JSON.stringify(JSON.parse(entry.body), null, 2);
      return [el("h3", "", "Body (JSON)"), el("pre", "", pretty)];
    } catch { /* shown as text below */ }
  }
  return [el("h3", "", "Body"), el("pre", "body", entry.body)];
}

/**
 * The summary's word on a checked DPoP proof: `DPoP verified`, or `DPoP ` and the error code.
 * @param {DpopNote} dpop
 */
export function dpopBadge(dpop) {
  return dpop.verified ? "DPoP verified" : "DPoP " + (dpop.error ?? "refused");
}

/**
 * The rows of the detail's DPoP table: the key's thumbprint, the outcome, the error.
 * @param {DpopNote} dpop
 * @returns {Record<string, string>}
 */
export function dpopRows(dpop) {
  /** @type {Record<string, string>} */
  const rows = { jkt: dpop.jkt ?? "none (the proof's jwk has no usable thumbprint)" };
  rows.verified = dpop.verified ? "yes" : "no";
  if (dpop.error !== undefined) rows.error = dpop.error;
  return rows;
}

/** @param {CapturedEntry} entry */
function requestDetail(entry) {
  const dpop = entry.dpop ? [el("h3", "", "DPoP proof"), dpopTable(entry.dpop)] : [];
  return [
    ...dpop,
    el("h3", "", "URL"),
    el("pre", "", entry.url),
    el("h3", "", "Query"),
    table(entry.query),
    el("h3", "", "Headers"),
    table(entry.headers),
    ...bodyView(entry),
  ];
}

/**
 * What of an entry can change after it was first listed: its proof's outcome, noted once the
 * request is answered (an item listed before is built again).
 * @param {CapturedEntry} entry
 */
function dpopState(entry) {
  return entry.dpop ? JSON.stringify(entry.dpop) : "";
}

/** @param {CapturedEntry} entry */
function requestItem(entry) {
  const time = el("time", "", String(entry.receivedAt).replace("T", " ").replace("Z", ""));
  const summary = el(
    "summary",
    "",
    time,
    " ",
    el("b", "", entry.method),
    " ",
    el("code", "", entry.path),
    " ",
    el("span", "issuer", "issuer " + entry.issuer),
    ...(entry.dpop
      ? [" ", el("span", "dpop " + (entry.dpop.verified ? "ok" : "bad"), dpopBadge(entry.dpop))]
      : []),
  );
  const details = el("details", "", summary);
  details.addEventListener("toggle", () => {
    if (/** @type {HTMLDetailsElement} */ (details).open && details.children.length === 1) {
      details.append(...requestDetail(entry));
    }
  });
  const item = el("li", "request", details);
  item.dataset.id = entry.id;
  item.dataset.dpop = dpopState(entry);
  return item;
}

function filterQuery() {
  const query = new URLSearchParams();
  const issuer = $("filter-issuer").value.trim();
  const endpoint = $("filter-endpoint").value;
  if (issuer) query.set("issuer", issuer);
  if (endpoint) query.set("endpoint", endpoint);
  const text = query.toString();
  return text ? "?" + text : "";
}

export async function loadRequests() {
  const res = await api("GET", "/_mock/requests" + filterQuery());
  if (res.status !== 200) {
    if (res.status !== 401) say(problemText(res), true);
    return;
  }
  /** @type {CapturedEntry[]} */
  const all = res.data.requests ?? [];
  const newest = all.slice(-MAX_SHOWN).reverse();
  $("request-count").textContent = "(" + res.data.count + ")";
  $("requests-note").textContent = all.length > MAX_SHOWN
    ? "Showing the newest " + MAX_SHOWN + " of " + all.length + "."
    : all.length === 0
    ? "No captured request matches (with --control-addr nothing is captured)."
    : "";
  const list = $("requests");
  /** @type {Map<string, HTMLElement>} */
  const shown = new Map([...list.children].map((item) => [item.dataset.id, item]));
  list.replaceChildren(...newest.map((entry) => {
    const item = shown.get(entry.id);
    return item && item.dataset.dpop === dpopState(entry) ? item : requestItem(entry);
  }));
}

/** @param {number} ms */
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Waits for the log to change, then lists again, and refreshes what a logged request may have
 * changed: the queue a token uses, the clients a registration adds (`refreshOthers`, given by
 * `main.js`).
 * @param {() => Promise<unknown>} refreshOthers
 */
export async function watchRequests(refreshOthers) {
  for (;;) {
    const after = logVersion < 0 ? "" : "after=" + logVersion + "&";
    const res = await api("GET", "/_mock/requests/changes?" + after + "timeoutMs=" + WAIT_MS);
    if (res.status === 200) {
      if (res.data.version === logVersion) continue;
      logVersion = res.data.version;
      await Promise.all([loadRequests(), refreshOthers()]);
      // At most two listings a second, however fast a load test fills the log.
      await sleep(THROTTLE_MS);
    } else if (res.status === 401) await tokenEntered();
    else await sleep(2000);
  }
}

/** @type {ReturnType<typeof setTimeout> | undefined} */
let filterTimer;
for (const id of ["filter-issuer", "filter-endpoint"]) {
  $(id).addEventListener("input", () => {
    clearTimeout(filterTimer);
    filterTimer = setTimeout(() => {
      $("requests").replaceChildren();
      loadRequests();
    }, 200);
  });
}

$("requests-clear").addEventListener("click", async () => {
  const res = await api("DELETE", "/_mock/requests");
  if (res.status === 200) say("Request log cleared.");
});
