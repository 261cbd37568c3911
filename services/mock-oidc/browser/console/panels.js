/**
 * The console's panels: scenarios, the clock, mint (the request log and the registered clients
 * have their own modules, `requests.js` and `clients.js`; `main.js` loads them all and binds
 * reset, which empties every one).
 *
 * Browser code, inlined into the page with its siblings (see `core.js`).
 */
import { $, api, bindForm, el, problemText, readForm, say } from "./core.js";

export async function loadScenarios() {
  const res = await api("GET", "/_mock/scenarios");
  if (res.status !== 200) return;
  $("queue-depth").textContent = "(" + res.data.queueDepth + ")";
  /** @type {{ issuer: string, kind: string }[]} */
  const scenarios = res.data.scenarios ?? [];
  const items = scenarios.map((s, i) =>
    el("li", "", (i + 1) + ". issuer ", el("code", "", s.issuer), " · " + s.kind)
  );
  $("scenarios").replaceChildren(...(items.length ? items : [el("li", "note", "empty")]));
}

bindForm("scenario", "POST", "/_mock/scenarios", readForm, (data) => {
  say("Enqueued scenario " + data.scenarioId + " (queue depth " + data.queueDepth + ").");
  loadScenarios();
});

$("scenarios-flush").addEventListener("click", async () => {
  const res = await api("DELETE", "/_mock/scenarios");
  if (res.status === 200) say("Scenario queue flushed.");
  loadScenarios();
});

/** The clock as last read: `now` (RFC 3339) and whether it is frozen. */
/** @type {{ now: string, frozen: boolean } | undefined} */
let clock;
let clockReadAt = 0;

function clockNowMs() {
  if (!clock) return Date.now();
  const at = Date.parse(clock.now);
  return clock.frozen ? at : at + (Date.now() - clockReadAt);
}

/** @param {{ now: string, frozen: boolean }} state */
function showClock(state) {
  clock = state;
  clockReadAt = Date.now();
  renderClock();
}

function renderClock() {
  if (!clock) return;
  $("clock-now").textContent = new Date(clockNowMs()).toISOString();
  $("clock-mode").textContent = clock.frozen ? "frozen" : "running (wall clock)";
  renderExpiry();
}

export async function loadClock() {
  const res = await api("GET", "/_mock/clock");
  if (res.status === 200) showClock(res.data);
}

bindForm("freeze", "PUT", "/_mock/clock", (form) => {
  const instant = /** @type {HTMLInputElement} */ (form.elements.namedItem("instant")).value
    .trim();
  return { frozen: true, instant: instant || new Date(clockNowMs()).toISOString() };
}, (data) => {
  showClock(data);
  say("Clock frozen at " + data.now + ".");
});

bindForm("advance", "POST", "/_mock/clock/advance", readForm, (data) => {
  showClock(data);
  say("Clock advanced to " + data.now + " (frozen).");
});

$("clock-unfreeze").addEventListener("click", async () => {
  const res = await api("PUT", "/_mock/clock", { frozen: false });
  if (res.status === 200) {
    showClock(res.data);
    say("Clock unfrozen.");
  } else if (res.status !== 401) say(problemText(res), true);
});

setInterval(() => {
  if (clock && !clock.frozen) renderClock();
}, 1000);

/** @type {{ header: unknown, claims: { exp?: unknown, iat?: unknown } } | undefined} */
let minted;

/** @param {string} part */
function decodePart(part) {
  return JSON.parse(
    new TextDecoder().decode(Uint8Array.fromBase64(part, { alphabet: "base64url" })),
  );
}

function renderExpiry() {
  if (!minted || typeof minted.claims.exp !== "number") return;
  const { exp, iat } = minted.claims;
  let left = Math.floor(exp - clockNowMs() / 1000);
  // The mock's time here is its clock as last read, moved on by this browser's: it lags by that
  // read's latency, which must not show a token with more time left than it was minted with.
  if (typeof iat === "number") left = Math.min(left, exp - iat);
  $("minted-expires-in").textContent = String(left);
}

bindForm("mint", "POST", "/_mock/mint", readForm, (data) => {
  const [header, claims] = data.token.split(".").slice(0, 2).map(decodePart);
  minted = { header, claims };
  $("minted-token").textContent = data.token;
  $("minted-header").textContent = JSON.stringify(header, null, 2);
  $("minted-claims").textContent = JSON.stringify(claims, null, 2);
  $("minted").hidden = false;
  renderExpiry();
  say("Minted a token for " + data.issuer + ", expiring at " + data.expiresAt + ".");
});
