/**
 * The debugger's pages: the form (with an error beside each bad field), the result of a flow
 * (authorization response, raw token request and response, every token decoded and checked) and
 * the error page. Everything shown is escaped by the `html` tag; no page runs a script.
 *
 * @module
 */

import { html, pageResponse, type SafeHtml } from "../ui/mod.ts";
import {
  DEBUGGER_RESPONSE_MODES,
  type DebuggerField,
  type DebuggerValues,
  FIELD_MAX_CHARS,
} from "./form.ts";
import type { Attempts, TokenExchange } from "./exchange.ts";
import type { TokenReport } from "./inspect.ts";
import { CLIENT_AUTH_METHODS, type PushedSummary } from "./session.ts";

type FieldErrors = Partial<Record<DebuggerField, string>>;

function errorOf(errors: FieldErrors, name: DebuggerField): SafeHtml {
  const message = errors[name];
  return message
    ? html`<p class="field-error" id="${name}-error" role="alert">${name} ${message}</p>`
    : html``;
}

function textField(
  name: DebuggerField,
  label: string,
  values: DebuggerValues,
  errors: FieldErrors,
): SafeHtml {
  return html`<div><label for="${name}">${label}</label>
<input id="${name}" name="${name}" value="${values[name]}" maxlength="${FIELD_MAX_CHARS}"
${errors[name] ? html`aria-invalid="true"` : html``}>${errorOf(errors, name)}</div>`;
}

function select(
  name: DebuggerField,
  label: string,
  options: readonly string[],
  values: DebuggerValues,
  errors: FieldErrors,
): SafeHtml {
  const items = options.map((o) =>
    html`
      <option value="${o}" ${o === values[name]
        ? html`
          selected
        `
        : html``}>${o}</option>
    `
  );
  return html`<div><label for="${name}">${label}</label><select id="${name}" name="${name}">
${items}</select>${errorOf(errors, name)}</div>`;
}

function checkbox(name: "pkce" | "par" | "dpop", label: string, values: DebuggerValues): SafeHtml {
  return html`<label class="inline"><input type="checkbox" id="${name}" name="${name}" value="on"
${values[name] ? html`checked` : html``}>${label}</label>`;
}

/** The form page; 400 when `errors` holds any. */
export function formPage(
  issuerId: string,
  redirectUri: string,
  values: DebuggerValues,
  errors: FieldErrors = {},
  presets: readonly string[] = [],
): Response {
  const field = (name: DebuggerField, label: string) => textField(name, label, values, errors);
  const body = html`
    <h1>Debugger for issuer <code>${issuerId}</code></h1>
    <p class="note">Runs an authorization code flow against this issuer and shows every step.
    The code is redeemed by this server at its own token endpoint.</p>
    <form method="post" novalidate>
      <fieldset>
        <legend>Client</legend>
        <div class="grid">
    ${field("client_id", "Client id")}${field("client_secret", "Client secret")}
    ${select("client_auth", "Client authentication", CLIENT_AUTH_METHODS, values, errors)}
        </div>
      </fieldset>
      <fieldset>
        <legend>Authorization request</legend>
        <div class="grid">
    ${field("scope", "Scope")}${field("response_type", "Response type")}
    ${select("response_mode", "Response mode", DEBUGGER_RESPONSE_MODES, values, errors)}
    ${field("state", "State")}${field("nonce", "Nonce")}
    ${presets.length
      ? select("login_hint", "Log in as (a login preset)", ["", ...presets], values, errors)
      : html``}
        </div>
        ${checkbox("pkce", "Use PKCE (S256)", values)}
        ${checkbox(
          "par",
          "Push the request first (PAR, RFC 9126): authorize gets only a request_uri",
          values,
        )}
        <p class="note">Redirect URI: <code id="redirect_uri">${redirectUri}</code></p>
      </fieldset>
      <fieldset>
        <legend>Tokens</legend>
        ${checkbox(
          "dpop",
          "Bind the tokens with DPoP (RFC 9449): an ES256 key for this run, a proof on each call, then userinfo with the bound token",
          values,
        )}
        <p class="note">The key pair is made when the flow starts and kept only in the sealed
        session cookie; the result shows its public half and thumbprint.</p>
      </fieldset>
      <button type="submit">Start the flow</button>
    </form>
  `;
  const status = Object.keys(errors).length ? 400 : 200;
  return pageResponse({ title: `Debugger: ${issuerId}`, body, status });
}

function paramsTable(params: URLSearchParams): SafeHtml {
  const rows = [...params].map(([k, v]) =>
    html`
      <tr>
        <th>${k}</th>
        <td>${v}</td>
      </tr>
    `
  );
  return rows.length ? html`<table id="callback-params">${rows}</table>` : html`<p>none</p>`;
}

function restart(debuggerPath: string): SafeHtml {
  return html`<p><a href="${debuggerPath}">Start again</a></p>`;
}

/** A 4xx page naming what went wrong, with the callback parameters when there were any. */
export function errorPage(options: {
  status: number;
  title: string;
  detail: string;
  debuggerPath: string;
  params?: URLSearchParams;
  headers?: HeadersInit;
  /** A failed call to show raw (the pushed request): its id prefix, heading and attempts. */
  exchange?: { id: string; title: string; attempts: Attempts };
}): Response {
  const params = options.params && [...options.params].length
    ? html`<h2>Callback parameters</h2>${paramsTable(options.params)}`
    : html``;
  const exchange = options.exchange
    ? exchangeSection(options.exchange.id, options.exchange.title, options.exchange.attempts)
    : html``;
  const body = html`<h1>Debugger: ${options.title}</h1>
<p class="error" id="error-detail">${options.detail}</p>${params}${exchange}${
    restart(options.debuggerPath)
  }`;
  return pageResponse({
    title: `Debugger: ${options.title}`,
    body,
    status: options.status,
    headers: options.headers,
  });
}

function tokenCard(report: TokenReport): SafeHtml {
  const json = (value: unknown) => JSON.stringify(value, null, 2);
  const signature = report.signature;
  const badge = !signature
    ? html``
    : signature.verified
    ? html`<span class="badge ok" id="${report.field}-signature">signature verified</span>`
    : html`<span class="badge bad" id="${report.field}-signature">signature invalid</span>
<p class="error">${signature.reason}</p>`;
  return html`
    <section class="card" id="${report.field}"
      data-verified="${signature ? String(signature.verified) : "n/a"}">
    <h3>${report.field} ${badge}</h3>
    ${report.note ? html`<p class="note">${report.note}</p>` : html``}
    ${report.header
      ? html`
        <h4>Header</h4>
        <pre id="${report.field}-header">${json(report.header)}</pre>
      `
      : html``}
    ${report.claims
      ? html`
        <h4>Claims</h4>
        <pre id="${report.field}-claims">${json(report.claims)}</pre>
      `
      : html``}
    </section>
  `;
}

/** `error: error_description` of a refused call, or undefined for a success. */
export function errorLine(exchange: Pick<TokenExchange, "status" | "body">): string | undefined {
  if (exchange.status < 400) return undefined;
  const error = exchange.body?.error;
  const description = exchange.body?.error_description;
  if (typeof error !== "string") return `HTTP ${exchange.status}`;
  return typeof description === "string" ? `${error}: ${description}` : error;
}

/**
 * One call, raw: the nonce attempt first when there was one (`<id>-nonce-request`,
 * `<id>-nonce-response`), then the answered one (`<id>-request`, `<id>-response`) with its
 * error line (`<id>-error`).
 */
function exchangeSection(id: string, title: string, call: Attempts): SafeHtml {
  const last = call.attempts.at(-1)!;
  const retried = call.attempts.length > 1 ? call.attempts[0] : undefined;
  const nonce = retried?.headers.get("dpop-nonce");
  const challenge = retried
    ? html`
      <h3>Nonce challenge</h3>
      <p
        id="${id}-nonce-exchange">Answered <code>use_dpop_nonce</code> with <code>DPoP-Nonce: ${nonce}</code>;
      the debugger retried with that nonce in a new proof.</p>
      <pre id="${id}-nonce-request">${retried.requestText}</pre>
      <pre id="${id}-nonce-response">${retried.responseText}</pre>
    `
    : html``;
  const error = errorLine(last);
  return html`<h2>${title}</h2>${challenge}
<pre id="${id}-request">${last.requestText}</pre>
${error ? html`<p class="error" id="${id}-error">${error}</p>` : html``}
<pre id="${id}-response">${last.responseText}</pre>`;
}

/** What the result page shows of a DPoP run. */
export interface DpopSummary {
  /** The run key's RFC 7638 thumbprint. */
  jkt: string;
  /** The run key's public half (the private one is never shown). */
  publicJwk: Record<string, unknown>;
  /** The token response's `token_type`. */
  tokenType?: string;
  /** The access token's `cnf.jkt`. */
  cnfJkt?: string;
}

function dpopCard(dpop: DpopSummary): SafeHtml {
  const bound = dpop.cnfJkt !== undefined && dpop.cnfJkt === dpop.jkt;
  const badge = bound
    ? html`<span class="badge ok" id="dpop-binding">bound to this key</span>`
    : html`<span class="badge bad" id="dpop-binding">not bound to this key</span>`;
  return html`
    <section class="card" id="dpop" data-bound="${String(bound)}">
      <h3>DPoP ${badge}</h3>
      <table>
        <tr>
          <th>Key thumbprint (jkt)</th>
          <td><code id="dpop-jkt">${dpop.jkt}</code></td>
        </tr>
        <tr>
          <th>token_type</th>
          <td><code id="dpop-token-type">${dpop.tokenType ?? "none"}</code></td>
        </tr>
        <tr>
          <th>cnf.jkt of the access token</th>
          <td><code id="dpop-cnf-jkt">${dpop.cnfJkt ?? "none"}</code></td>
        </tr>
      </table>
      <h4>Public key (ES256)</h4>
      <pre id="dpop-public-key">${JSON.stringify(dpop.publicJwk, null, 2)}</pre>
    </section>
  `;
}

function pushedLine(pushed: PushedSummary): SafeHtml {
  const answers = pushed.attempts.map((a) => `${a.status}${a.error ? ` ${a.error}` : ""}`);
  return html`<h2>Pushed authorization request</h2>
<p id="par-summary"><code>/par</code> answered ${answers.join(", then ")}; authorize got
<code>request_uri=${pushed.requestUri}</code> and <code>client_id</code> only. The raw calls are in
the captured-request log.</p>`;
}

/** The outcome of a flow: 200 when tokens came back, the token endpoint's 4xx otherwise. */
export function resultPage(options: {
  issuerId: string;
  debuggerPath: string;
  params: URLSearchParams;
  token: Attempts;
  reports: TokenReport[];
  headers?: HeadersInit;
  /** Set when the request was pushed. */
  pushed?: PushedSummary;
  /** Set for a DPoP run. */
  dpop?: DpopSummary;
  /** The userinfo call of a DPoP run whose tokens came back. */
  userinfo?: Attempts;
}): Response {
  const exchange = options.token.attempts.at(-1)!;
  const ok = exchange.status === 200;
  const body = html`<h1>Debugger: ${ok ? "tokens issued" : "token request failed"}</h1>
<p class="note">Issuer <code>${options.issuerId}</code>.</p>
${options.pushed ? pushedLine(options.pushed) : html``}
<h2>Authorization response</h2>${paramsTable(options.params)}
${exchangeSection("token", "Token request and response", options.token)}
${options.dpop ? dpopCard(options.dpop) : html``}
${options.reports.length ? html`<h2>Tokens</h2>${options.reports.map(tokenCard)}` : html``}
${options.userinfo ? exchangeSection("userinfo", "Userinfo", options.userinfo) : html``}
${restart(options.debuggerPath)}`;
  return pageResponse({
    title: "Debugger: result",
    body,
    status: ok ? 200 : exchange.status >= 400 && exchange.status < 500 ? exchange.status : 400,
    headers: options.headers,
  });
}
