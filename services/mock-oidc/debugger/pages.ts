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
import type { TokenExchange } from "./exchange.ts";
import type { TokenReport } from "./inspect.ts";
import { CLIENT_AUTH_METHODS } from "./session.ts";

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
        <label class="inline"><input type="checkbox" id="pkce" name="pkce" value="on"
    ${values.pkce ? html`checked` : html``}>Use PKCE (S256)</label>
        <p class="note">Redirect URI: <code id="redirect_uri">${redirectUri}</code></p>
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
}): Response {
  const params = options.params && [...options.params].length
    ? html`<h2>Callback parameters</h2>${paramsTable(options.params)}`
    : html``;
  const body = html`<h1>Debugger: ${options.title}</h1>
<p class="error" id="error-detail">${options.detail}</p>${params}${restart(options.debuggerPath)}`;
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

/** The outcome of a flow: 200 when tokens came back, the token endpoint's 4xx otherwise. */
export function resultPage(options: {
  issuerId: string;
  debuggerPath: string;
  params: URLSearchParams;
  exchange: TokenExchange;
  reports: TokenReport[];
  headers?: HeadersInit;
}): Response {
  const { exchange } = options;
  const ok = exchange.status === 200;
  const body = html`<h1>Debugger: ${ok ? "tokens issued" : "token request failed"}</h1>
<p class="note">Issuer <code>${options.issuerId}</code>.</p>
<h2>Authorization response</h2>${paramsTable(options.params)}
<h2>Token request</h2><pre id="token-request">${exchange.requestText}</pre>
<h2>Token response</h2><pre id="token-response">${exchange.responseText}</pre>
${options.reports.length ? html`<h2>Tokens</h2>${options.reports.map(tokenCard)}` : html``}
${restart(options.debuggerPath)}`;
  return pageResponse({
    title: "Debugger: result",
    body,
    status: ok ? 200 : exchange.status >= 400 && exchange.status < 500 ? exchange.status : 400,
    headers: options.headers,
  });
}
