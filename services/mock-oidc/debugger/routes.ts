/**
 * The debugger's handlers (upstream's `/{issuer}/debugger`; their rows are in endpoints.ts, which
 * loads this module on the first debugger request): `GET debugger` shows the form, `POST debugger` seals its parameters into the
 * `debugger-session` cookie and redirects to this issuer's authorize endpoint, and
 * `GET|POST debugger/callback` redeems the code at this issuer's token endpoint and shows the
 * raw exchange and every token decoded and verified. Every failure is a 4xx page.
 *
 * @module
 */

import type { IssuerContext } from "../protocol/deps.ts";
import { readForm } from "../protocol/form.ts";
import { redirectResponse } from "../protocol/responses.ts";
import { exchangeCode } from "./exchange.ts";
import { authorizeUrl, DEBUGGER_DEFAULTS, readDebuggerForm } from "./form.ts";
import { inspectTokens } from "./inspect.ts";
import { errorPage, formPage, resultPage } from "./pages.ts";
import {
  openSession,
  sealSession,
  SESSION_COOKIE_MAX_CHARS,
  sessionCookieOf,
  setSessionCookie,
} from "./session.ts";

function debuggerPath(ctx: IssuerContext): string {
  return `${new URL(ctx.baseUrl).pathname}/debugger`;
}

function callbackUri(ctx: IssuerContext): string {
  return `${ctx.baseUrl}/debugger/callback`;
}

function cookie(ctx: IssuerContext, value: string, maxAgeSeconds?: number): string {
  const path = debuggerPath(ctx);
  return setSessionCookie(value, {
    // A `;` (legal in a path segment) would end the attribute: such issuers get Path=/ (the
    // session still names its issuer, so another issuer's callback refuses it).
    path: path.includes(";") ? "/" : path,
    secure: ctx.issuerUrl.startsWith("https:"),
    maxAgeSeconds,
  });
}

function keyOf(ctx: IssuerContext): Uint8Array {
  const key = ctx.deps.debuggerKey;
  if (!key) throw new Error("Cannot run the debugger: routeTable sets no debuggerKey");
  return key;
}

/** The usernames of the configured login presets, offered as the debugger's "Log in as". */
function presetsOf(ctx: IssuerContext): string[] {
  return (ctx.deps.settings.loginPresets ?? []).map((p) => p.username);
}

/** `GET /{issuer}/debugger`: the form with upstream's defaults. */
export function showDebugger(ctx: IssuerContext): Response {
  return formPage(ctx.issuerId, callbackUri(ctx), { ...DEBUGGER_DEFAULTS }, {}, presetsOf(ctx));
}

/** `POST /{issuer}/debugger`: validate, seal the session into the cookie, go to authorize. */
export async function startDebugger(ctx: IssuerContext): Promise<Response> {
  const redirectUri = callbackUri(ctx);
  const presets = presetsOf(ctx);
  const result = readDebuggerForm(await readForm(ctx.req), {
    issuerId: ctx.issuerId,
    redirectUri,
    presets,
  });
  if (!result.ok) {
    return formPage(ctx.issuerId, redirectUri, result.values, result.errors, presets);
  }
  const sealed = await sealSession(result.session, keyOf(ctx));
  if (sealed.length > SESSION_COOKIE_MAX_CHARS) {
    return errorPage({
      status: 400,
      title: "parameters too long",
      detail: `The parameters take ${sealed.length} characters sealed; a cookie holds at most ` +
        `${SESSION_COOKIE_MAX_CHARS}. Shorten them.`,
      debuggerPath: debuggerPath(ctx),
    });
  }
  const res = redirectResponse(await authorizeUrl(ctx.baseUrl, result.session, result.loginHint));
  res.headers.set("Set-Cookie", cookie(ctx, sealed));
  res.headers.set("Cache-Control", "no-store");
  return res;
}

/** `GET|POST /{issuer}/debugger/callback`: redeem the code and show everything. */
export async function debuggerCallback(ctx: IssuerContext): Promise<Response> {
  const params = ctx.req.method === "POST"
    ? await readForm(ctx.req)
    : new URL(ctx.req.url).searchParams;
  const fail = (title: string, detail: string) =>
    errorPage({ status: 400, title, detail, debuggerPath: debuggerPath(ctx), params });
  const sealed = sessionCookieOf(ctx.req);
  if (sealed === undefined) {
    return fail("no session", "This browser sent no debugger-session cookie: start at the form.");
  }
  const session = await openSession(sealed, keyOf(ctx));
  if (!session || session.issuerId !== ctx.issuerId) {
    return fail(
      "invalid session",
      "The debugger-session cookie does not open here: it was altered, is too long, or comes " +
        "from another mock-oidc process or issuer. Start again.",
    );
  }
  // RFC 9207: the response (error or code) names its issuer; one naming another is a mix-up.
  const iss = params.get("iss");
  if (iss !== null && iss !== ctx.issuerUrl) {
    return fail(
      "issuer mismatch",
      `The callback names issuer ${iss} (iss), not this issuer ${ctx.issuerUrl}.`,
    );
  }
  const error = params.get("error");
  if (error !== null) {
    return fail("authorization error", `The authorization endpoint answered ${error}.`);
  }
  const code = params.get("code");
  if (!code) return fail("no code", "The callback carries no code parameter.");
  if (session.state && params.get("state") !== session.state) {
    return fail("state mismatch", "The callback's state differs from the one the form sent.");
  }
  const exchange = await exchangeCode(ctx, session, code);
  const jwks = JSON.parse(await ctx.deps.keys.jwksJson(ctx.issuerId));
  const reports = exchange.status === 200 && exchange.body
    ? await inspectTokens(exchange.body, jwks)
    : [];
  return resultPage({
    issuerId: ctx.issuerId,
    debuggerPath: debuggerPath(ctx),
    params,
    exchange,
    reports,
    // The code is spent: the session goes with it.
    headers: { "Set-Cookie": cookie(ctx, "", 0) },
  });
}
