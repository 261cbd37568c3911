/**
 * The HTML pages of the protocol side: interactive login, device verification, form_post
 * auto-submit and "logged out". Self-contained (inline CSS, no fonts, no CDN): they load
 * nothing from the network (upstream's page pulled Google Fonts).
 *
 * @module
 */

import { escapeHtml } from "./responses.ts";
import type { LoginPreset } from "../config/json_config.ts";

const STYLE = `body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;
background:#f4f5f7;color:#1d2330}main{max-width:34rem;margin:3rem auto;padding:2rem;
background:#fff;border-radius:8px;box-shadow:0 1px 4px #0002}h1{font-size:1.4rem;margin-top:0}
label{display:block;font-weight:600;margin:1rem 0 .3rem}input,textarea{width:100%;
box-sizing:border-box;padding:.55rem;border:1px solid #c5cad3;border-radius:4px;font:inherit}
textarea{font-family:ui-monospace,monospace;min-height:6rem}button{margin-top:1.2rem;
padding:.6rem 1.4rem;border:0;border-radius:4px;background:#2f5bd3;color:#fff;font:inherit;
cursor:pointer}button.preset{margin:0 .6rem .6rem 0}button.secondary{margin-left:.6rem;background:#fff;color:#2f5bd3;
border:1px solid #2f5bd3}table{margin-top:1.5rem;border-collapse:collapse;font-size:.85rem;width:100%}
td{border-top:1px solid #e3e6eb;padding:.3rem;word-break:break-all}.note{color:#5b6473}`;

/** Wrap `body` in the common layout. */
export function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8">` +
    `<meta name="viewport" content="width=device-width,initial-scale=1">` +
    `<title>${escapeHtml(title)}</title><style>${STYLE}</style></head>` +
    `<body><main>${body}</main></body></html>`;
}

/**
 * Login form posting `username` (+ optional `claims` JSON) back to the same URL, or `deny` (the
 * refusal, answered with `access_denied`); `hidden`
 * are authorization parameters that came in a POST body and must be posted again.
 */
export function loginPage(
  issuerId: string,
  params: URLSearchParams,
  hidden = new URLSearchParams(),
  presets: readonly LoginPreset[] = [],
): string {
  const hint = params.get("login_hint") ?? "";
  const presetButtons = presets.map((p) =>
    `<button type="submit" name="preset" value="${escapeHtml(p.username)}" formnovalidate ` +
    `class="secondary preset">${escapeHtml(p.username)}</button>`
  ).join("\n");
  const hiddenInputs = [...hidden].map(([k, v]) =>
    `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(v)}">`
  ).join("");
  const rows = [...params].map(([k, v]) =>
    `<tr><td>${escapeHtml(k)}</td><td>${escapeHtml(v)}</td></tr>`
  )
    .join("");
  return page(
    `Mock login: ${issuerId}`,
    `<h1>Mock login for issuer <code>${escapeHtml(issuerId)}</code></h1>
<p class="note">Testing only. Any username is accepted; it becomes the token subject.</p>
<form method="post">${hiddenInputs}
${presetButtons ? `<p><strong>Sign in as</strong></p><p class="presets">${presetButtons}</p>` : ""}
<label for="username">Username</label>
<input id="username" name="username" required autofocus placeholder="Enter any user/subject"${
      hint ? ` value="${escapeHtml(hint)}"` : ""
    }>
<label for="claims">Optional claims (JSON object)</label>
<textarea id="claims" name="claims" placeholder='{"acr": "reference"}'></textarea>
<button type="submit">Sign in</button>
<button type="submit" name="deny" value="1" formnovalidate class="secondary">Refuse</button>
</form>${rows ? `<table>${rows}</table>` : ""}`,
  );
}

/** Device verification form: user code, username, optional claims. */
export function devicePage(issuerId: string, userCode: string, message = ""): string {
  return page(
    `Device login: ${issuerId}`,
    `<h1>Connect a device to <code>${escapeHtml(issuerId)}</code></h1>
${message ? `<p class="note">${escapeHtml(message)}</p>` : ""}
<form method="post">
<label for="user_code">Code shown on the device</label>
<input id="user_code" name="user_code" required value="${escapeHtml(userCode)}">
<label for="username">Username</label>
<input id="username" name="username" required placeholder="Enter any user/subject">
<label for="claims">Optional claims (JSON object)</label>
<textarea id="claims" name="claims" placeholder='{"acr": "reference"}'></textarea>
<button type="submit">Approve</button>
</form>`,
  );
}

/** Auto-submitting form for `response_mode=form_post`; absent values (e.g. state) are omitted. */
export function formPostPage(action: string, values: Record<string, string | undefined>): string {
  const inputs = Object.entries(values).filter(([, v]) => v !== undefined)
    .map(([k, v]) =>
      `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(v as string)}">`
    ).join("");
  return page(
    "Submitting",
    `<form method="post" action="${escapeHtml(action)}">${inputs}` +
      `<noscript><button type="submit">Continue</button></noscript></form>` +
      `<script>document.forms[0].submit()</script>`,
  );
}

/** Shown by endsession without a post-logout redirect. */
export function loggedOutPage(): string {
  return page("Logged out", "<h1>logged out</h1>");
}
