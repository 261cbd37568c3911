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
import { type Attempts, exchangeCode, fetchUserinfo, pushRequest } from "./exchange.ts";
import { newDpopKey, publicJwkOf, thumbprintOf } from "./dpop_key.ts";
import { authorizeUrl, debuggerValuesOf, pushedAuthorizeUrl, readDebuggerForm } from "./form.ts";
import { inspectTokens, type TokenReport } from "./inspect.ts";
import { type DpopSummary, errorLine, errorPage, formPage, resultPage } from "./pages.ts";
import {
  type DebuggerSession,
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

/**
 * `GET /{issuer}/debugger`: the form with upstream's defaults; `?par=on`, `?dpop=on` and
 * `?pkce=on` tick those boxes (the console's link to a DPoP + PAR flow).
 */
export function showDebugger(ctx: IssuerContext): Response {
  const values = debuggerValuesOf(new URL(ctx.req.url).searchParams);
  return formPage(ctx.issuerId, callbackUri(ctx), values, {}, presetsOf(ctx));
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
  const session = result.session;
  // A DPoP run's key pair: made here, kept only in the sealed cookie.
  if (result.dpop) session.dpopKey = await newDpopKey();
  let location: string;
  if (result.par) {
    const pushed = await pushRequest(ctx, session, result.loginHint);
    const answer = pushed.attempts.at(-1)!;
    const requestUri = answer.status === 201 ? answer.body?.request_uri : undefined;
    if (typeof requestUri !== "string") return pushFailed(ctx, pushed);
    session.pushed = {
      requestUri,
      attempts: pushed.attempts.map((a) => {
        const error = a.body?.error;
        return typeof error === "string" ? { status: a.status, error } : { status: a.status };
      }),
    };
    if (pushed.nonce) session.dpopNonce = pushed.nonce;
    location = pushedAuthorizeUrl(ctx.baseUrl, session.clientId, requestUri);
  } else {
    location = await authorizeUrl(ctx.baseUrl, session, result.loginHint);
  }
  const sealed = await sealSession(session, keyOf(ctx));
  if (sealed.length > SESSION_COOKIE_MAX_CHARS) {
    return errorPage({
      status: 400,
      title: "parameters too long",
      detail: `The parameters take ${sealed.length} characters sealed; a cookie holds at most ` +
        `${SESSION_COOKIE_MAX_CHARS}. Shorten them.`,
      debuggerPath: debuggerPath(ctx),
    });
  }
  const res = redirectResponse(location);
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
  const token = await exchangeCode(ctx, session, code);
  const exchange = token.attempts.at(-1)!;
  const jwks = JSON.parse(await ctx.deps.keys.jwksJson(ctx.issuerId));
  const reports = exchange.status === 200 && exchange.body
    ? await inspectTokens(exchange.body, jwks)
    : [];
  let dpop: DpopSummary | undefined;
  let userinfo: Attempts | undefined;
  if (session.dpopKey) {
    dpop = await dpopSummary(session, exchange.body, reports);
    const accessToken = exchange.body?.access_token;
    if (exchange.status === 200 && typeof accessToken === "string") {
      userinfo = await fetchUserinfo(ctx, session, {
        accessToken,
        tokenType: dpop.tokenType ?? "",
      }, token.nonce);
    }
  }
  return resultPage({
    issuerId: ctx.issuerId,
    debuggerPath: debuggerPath(ctx),
    params,
    token,
    reports,
    pushed: session.pushed,
    dpop,
    userinfo,
    // The code is spent: the session goes with it.
    headers: { "Set-Cookie": cookie(ctx, "", 0) },
  });
}

/** The 4xx page of a refused pushed request: its `error` and `error_description`, and the calls. */
function pushFailed(ctx: IssuerContext, pushed: Attempts): Response {
  const answer = pushed.attempts.at(-1)!;
  return errorPage({
    status: answer.status >= 400 && answer.status < 500 ? answer.status : 400,
    title: "pushed authorization request failed",
    detail: `The pushed authorization request endpoint answered ${answer.status} ` +
      `${errorLine(answer) ?? "without a request_uri"}.`,
    debuggerPath: debuggerPath(ctx),
    exchange: { id: "par", title: "Pushed authorization request", attempts: pushed },
  });
}

/** The DPoP facts of a run: its key's thumbprint, the token type and the access token's `cnf.jkt`. */
async function dpopSummary(
  session: DebuggerSession,
  body: Record<string, unknown> | undefined,
  reports: TokenReport[],
): Promise<DpopSummary> {
  const key = session.dpopKey!;
  const claims = reports.find((r) => r.field === "access_token")?.claims;
  const cnf = claims?.cnf as { jkt?: unknown } | undefined;
  return {
    jkt: await thumbprintOf(key),
    publicJwk: { ...publicJwkOf(key) },
    tokenType: typeof body?.token_type === "string" ? body.token_type : undefined,
    cnfJkt: typeof cnf?.jkt === "string" ? cnf.jkt : undefined,
  };
}
