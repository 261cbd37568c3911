/**
 * The console's faults panel: failures on demand (`/_mock/faults`). It lists the queued faults
 * (endpoint, issuer, match, kind, calls remaining), queues one from a small form and clears them
 * all. A protocol call a fault answers is a logged request, so `main.js` reloads the list on every
 * change of the log, after reset and when a control token is entered.
 *
 * Browser code, inlined into the page with its siblings (see `core.js`).
 */
import { $, api, bindForm, el, problemText, readForm, say } from "./core.js";

/**
 * A queued fault as `GET /_mock/faults` lists it.
 * @typedef {{
 *   faultId: string, issuer?: string, endpoint: string, grantType?: string, clientId?: string,
 *   remaining: number, kind: string, error?: string, errorDescription?: string, status?: number,
 *   body?: string, contentType?: string, delayMs?: number, malformed?: string,
 * }} QueuedFault
 */

/**
 * The response fields each kind takes (the control plane refuses the others with 422
 * `not used by kind <kind>`); the form shows them all, so the body keeps only these.
 * @type {Record<string, string[]>}
 */
const KIND_TAKES = {
  "oauth_error": ["error", "errorDescription", "status"],
  http: ["status", "body", "contentType"],
  delay: ["delayMs"],
  close: [],
  malformed: ["malformed"],
};
/** The fields that choose which calls a fault answers, and how many. */
const MATCH_FIELDS = ["endpoint", "issuer", "grantType", "clientId", "count"];

/**
 * The `POST /_mock/faults` body for the form's non-empty values: the match fields, the kind and
 * the response fields of that kind only (a `grantType` only for the token endpoint, which is
 * all it matches). An unknown kind keeps every field, for the control plane to refuse.
 * @param {Record<string, unknown>} values
 * @returns {Record<string, unknown>}
 */
export function faultRequest(values) {
  const kind = String(values.kind ?? "");
  const takes = KIND_TAKES[kind];
  /** @type {Record<string, unknown>} */
  const body = {};
  for (const [name, value] of Object.entries(values)) {
    if (name === "grantType" && values.endpoint !== "token") continue;
    if (name === "kind" || MATCH_FIELDS.includes(name) || !takes || takes.includes(name)) {
      body[name] = value;
    }
  }
  return body;
}

/**
 * One line for a queued fault's answer: `oauth_error invalid_grant (400)`, `http 503`,
 * `delay 2000 ms`, `close`, `malformed bad_json`.
 * @param {QueuedFault} fault
 */
export function faultAnswer(fault) {
  switch (fault.kind) {
    case "oauth_error":
      return "oauth_error " + fault.error + " (" + (fault.status ?? 400) + ")";
    case "http":
      return "http " + fault.status;
    case "delay":
      return "delay " + fault.delayMs + " ms";
    case "malformed":
      return "malformed " + fault.malformed;
    default:
      return fault.kind;
  }
}

/**
 * What a queued fault matches beyond its endpoint and issuer: `grant_type=…`, `client_id=…`, or
 * `any call`.
 * @param {QueuedFault} fault
 */
export function faultMatch(fault) {
  const parts = [];
  if (fault.grantType !== undefined) parts.push("grant_type=" + fault.grantType);
  if (fault.clientId !== undefined) parts.push("client_id=" + fault.clientId);
  return parts.length ? parts.join(", ") : "any call";
}

/** @param {QueuedFault} fault */
function faultItem(fault) {
  const item = el(
    "li",
    "fault",
    el("code", "", fault.endpoint),
    " · issuer ",
    el("code", "", fault.issuer ?? "any"),
    " · " + faultMatch(fault) + " · ",
    el("b", "", faultAnswer(fault)),
    " · ",
    el("span", "remaining", fault.remaining + " left"),
  );
  item.dataset.faultId = fault.faultId;
  return item;
}

export async function loadFaults() {
  const res = await api("GET", "/_mock/faults");
  if (res.status !== 200) {
    if (res.status !== 401) say(problemText(res), true);
    return;
  }
  /** @type {QueuedFault[]} */
  const faults = res.data.faults ?? [];
  $("faults-queued").textContent = "(" + res.data.count + ")";
  const items = faults.map(faultItem);
  $("faults").replaceChildren(...(items.length ? items : [el("li", "note", "No fault queued.")]));
}

bindForm("fault", "POST", "/_mock/faults", (form) => {
  const values = readForm(form);
  return values && faultRequest(values);
}, (data) => {
  say("Queued fault " + data.faultId + " for " + data.remaining + " call(s).");
  loadFaults();
});

$("faults-clear").addEventListener("click", async () => {
  const res = await api("DELETE", "/_mock/faults");
  if (res.status === 200) say("Faults cleared.");
  else if (res.status !== 401) say(problemText(res), true);
  loadFaults();
});
