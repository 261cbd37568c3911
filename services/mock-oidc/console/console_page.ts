/**
 * The console's markup: a static shell (no data is ever written into it on the server) that the
 * console script fills in through the DOM, as text. Each form field has a `data-error-for` line
 * beside it, where the 422 `errors[]` of its location appear.
 * @module
 */
import { ENDPOINTS } from "../control/request_log.ts";
import {
  FAULT_ENDPOINTS,
  FAULT_KINDS,
  MAX_FAULT_COUNT,
  MAX_FAULT_DELAY_MS,
} from "../protocol/fault_queue.ts";
import { escapeHtml, type SafeHtml, trustedHtml } from "../ui/mod.ts";

type Kind = "text" | "list" | "json" | "number";

interface Field {
  name: string;
  label: string;
  kind?: Kind;
  value?: string;
  hint?: string;
  options?: readonly string[];
  /** Shown for an option instead of its value. */
  optionLabels?: Readonly<Record<string, string>>;
}

function field(form: string, f: Field): string {
  const id = `${form}-${f.name}`;
  const common = `id="${id}" name="${f.name}" data-kind="${f.kind ?? "text"}" ` +
    `aria-describedby="${id}-error"`;
  const value = escapeHtml(f.value ?? "");
  const control = f.options
    ? `<select ${common}>${
      f.options.map((o) =>
        `<option value="${escapeHtml(o)}">${
          escapeHtml(f.optionLabels?.[o] ?? (o || "any"))
        }</option>`
      ).join("")
    }</select>`
    : f.kind === "json"
    ? `<textarea ${common} spellcheck="false">${value}</textarea>`
    : `<input ${common} value="${value}" autocomplete="off" spellcheck="false">`;
  const hint = f.hint ? ` <small>${escapeHtml(f.hint)}</small>` : "";
  return `<div class="field"><label for="${id}">${escapeHtml(f.label)}${hint}</label>${control}` +
    `<p class="field-error" id="${id}-error" data-error-for="${f.name}" aria-live="polite"></p>` +
    `</div>`;
}

function form(id: string, fields: Field[], buttons: string): string {
  return `<form id="${id}" novalidate>${fields.map((f) => field(id, f)).join("")}` +
    `<p class="form-error" aria-live="polite"></p><div class="buttons">${buttons}</div></form>`;
}

const SCENARIO_FIELDS: Field[] = [
  { name: "issuer", label: "Issuer", value: "default" },
  { name: "subject", label: "Subject" },
  { name: "audience", label: "Audience", kind: "list", hint: "comma separated" },
  { name: "claims", label: "Claims", kind: "json", hint: "JSON object" },
  { name: "typ", label: "typ" },
  { name: "expirySeconds", label: "Expiry seconds", kind: "number" },
  { name: "requestMappings", label: "Request mappings", kind: "json", hint: "JSON array" },
];

const MINT_FIELDS: Field[] = [
  { name: "issuer", label: "Issuer", value: "default" },
  { name: "subject", label: "Subject" },
  { name: "kind", label: "Kind", options: ["access_token", "id_token"] },
  { name: "audience", label: "Audience", kind: "list", hint: "comma separated" },
  { name: "scope", label: "Scope", kind: "list", hint: "space separated" },
  { name: "clientId", label: "Client id" },
  { name: "typ", label: "typ" },
  { name: "claims", label: "Claims", kind: "json", hint: "JSON object" },
  { name: "expirySeconds", label: "Expiry seconds", kind: "number" },
];

const FAULT_FIELDS: Field[] = [
  { name: "endpoint", label: "Endpoint", options: FAULT_ENDPOINTS },
  { name: "issuer", label: "Issuer", hint: "empty: any issuer" },
  {
    name: "kind",
    label: "Kind",
    options: FAULT_KINDS,
    optionLabels: {
      oauth_error: "OAuth error",
      http: "status + body",
      delay: "delay",
      close: "close the connection",
      malformed: "malformed body",
    },
  },
  { name: "count", label: "Calls", kind: "number", hint: `1 to ${MAX_FAULT_COUNT}; default 1` },
  { name: "grantType", label: "Grant type", hint: "token endpoint only; empty: any" },
  { name: "clientId", label: "Client id", hint: "empty: any" },
  { name: "error", label: "error", value: "temporarily_unavailable", hint: "OAuth error" },
  { name: "errorDescription", label: "error_description", hint: "OAuth error" },
  {
    name: "status",
    label: "Status",
    kind: "number",
    hint: "OAuth error 400 to 599 (default 400); status + body 200 to 599",
  },
  { name: "body", label: "Body", hint: "status + body" },
  { name: "contentType", label: "Content type", hint: "status + body" },
  { name: "delayMs", label: "Delay ms", kind: "number", hint: `0 to ${MAX_FAULT_DELAY_MS}` },
  { name: "malformed", label: "Malformed", options: ["bad_json", "jwks_without_keys"] },
];

const BODY = `<div class="bar">
<h1>mock-oidc control plane <span class="badge testing">testing only</span></h1>
<p id="status" role="status" aria-live="polite"></p>
<div class="reset"><button id="reset-ask" type="button" class="danger">Reset…</button>
<div id="reset-confirm" hidden><span>Flush the scenario queue, the request log, the faults and the
nonce challenges and unfreeze the clock? Registered clients are kept.</span> <button id="reset-yes" type="button" class="danger">Reset</button>
<button id="reset-no" type="button" class="secondary">Cancel</button></div></div>
</div>
<form id="token-form" hidden><p id="token-reason"></p>
<label for="token">Control token</label><input id="token" type="password" autocomplete="off">
<button type="submit">Use this token</button></form>
<div class="console">
<section id="requests-section" class="card">
<h2>Captured requests <span id="request-count"></span></h2>
<div class="filters">${field("filter", { name: "issuer", label: "Issuer" })}${
  field("filter", { name: "endpoint", label: "Endpoint", options: ["", ...ENDPOINTS] })
}<button id="requests-clear" type="button" class="secondary">Clear log</button></div>
<p id="requests-note" class="note"></p><ol id="requests" class="requests"></ol></section>
<section id="scenarios-section" class="card"><h2>Scenario queue <span id="queue-depth"></span></h2>
<ol id="scenarios" class="scenarios"></ol>${
  form(
    "scenario",
    SCENARIO_FIELDS,
    `<button type="submit">Enqueue</button>
<button id="scenarios-flush" type="button" class="secondary">Flush queue</button>`,
  )
}</section>
<section id="faults-section" class="card"><h2>Faults <span id="faults-queued"></span></h2>
<p class="note">Failures on demand: each answers the next matching protocol calls, then is gone.
Reset drops them.</p>
<ol id="faults" class="faults"></ol>${
  form(
    "fault",
    FAULT_FIELDS,
    `<button type="submit">Inject</button>
<button id="faults-clear" type="button" class="secondary">Clear all</button>`,
  )
}</section>
<section id="dpop-section" class="card">
<h2>DPoP nonce challenges <span id="challenges-waiting"></span></h2>
<p class="note">Each makes the next token request with a DPoP proof to the issuer (from the client,
when one is named) demand a server nonce: it is answered <code>use_dpop_nonce</code> with a
<code>DPoP-Nonce</code>, and a client retries with it. Reset drops them.</p>
<ol id="challenges" class="challenges"></ol>${
  form(
    "challenge",
    [
      { name: "issuer", label: "Issuer", value: "default" },
      { name: "clientId", label: "Client id", hint: "empty: any client" },
    ],
    `<button type="submit">Force a nonce challenge</button>
<button id="challenges-clear" type="button" class="secondary">Clear all</button>`,
  )
}<h3>Run a DPoP + PAR flow</h3>
<p class="note">The issuer's debugger, with PAR, DPoP and PKCE ticked: it pushes the request, binds
the tokens to a key of its own and calls userinfo with them. Its calls appear in the log with their
proofs' <code>jkt</code>. (With <code>--control-addr</code> the debugger is on the API listener.)</p>
<p><a id="debugger-link" class="button" href="/default/debugger?par=on&amp;dpop=on&amp;pkce=on"
target="_blank" rel="noopener">Open the debugger (DPoP + PAR)</a></p></section>
<section id="clock-section" class="card"><h2>Clock</h2>
<p><output id="clock-now"></output> <span id="clock-mode" class="note"></span></p>${
  form(
    "freeze",
    [{ name: "instant", label: "Instant", hint: "RFC 3339; empty freezes now" }],
    `
<button type="submit">Freeze</button>
<button id="clock-unfreeze" type="button" class="secondary">Unfreeze</button>`,
  )
}${
  form(
    "advance",
    [{ name: "duration", label: "Advance by", value: "10m", hint: "Go duration" }],
    `
<button type="submit">Advance</button>`,
  )
}</section>
<section id="mint-section" class="card"><h2>Mint a token</h2>${
  form("mint", MINT_FIELDS, `<button type="submit">Mint</button>`)
}<div id="minted" hidden>
<p>expires_in <output id="minted-expires-in"></output> s <span class="note">(exp minus the mock
clock's now)</span></p>
<h3>Token</h3><pre id="minted-token"></pre><h3>Header</h3><pre id="minted-header"></pre>
<h3>Claims</h3><pre id="minted-claims"></pre></div></section>
<section id="clients-section" class="card">
<h2>Registered clients <span id="client-count"></span></h2>
<p class="note">RFC 7591 registrations, newest first; secrets are never shown. Reset keeps them.</p>
<ol id="clients" class="clients"></ol><div class="buttons">
<button id="clients-refresh" type="button" class="secondary">Refresh</button>
<button id="clients-clear-ask" type="button" class="danger">Forget all…</button>
<div id="clients-clear-confirm" hidden><span>Forget every registered client? Their client ids
stop being enforced.</span> <button id="clients-clear-yes" type="button" class="danger">Forget</button>
<button id="clients-clear-no" type="button" class="secondary">Cancel</button></div>
</div></section>
</div>`;

/** What goes inside the page's `<main>` (constant markup: the labels above are escaped). */
export const CONSOLE_BODY: SafeHtml = trustedHtml(BODY);
