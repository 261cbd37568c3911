/**
 * The debugger's calls to its own issuer: the pushed authorization request (RFC 9126), the
 * authorization code redeemed at the token endpoint and, for a DPoP run, the userinfo call with
 * the bound token. Each is made in-process (no socket, no URL from the request: nothing else can
 * be reached), with the client authentication the form chose, as `User-Agent: mock-oidc-debugger`,
 * and goes through the captured-request log where received requests do
 * (`ProtocolDeps.captureInProcess`). Both sides are kept as raw HTTP text.
 *
 * With a DPoP key each call carries a proof (`ath` at userinfo); a `use_dpop_nonce` answer with a
 * `DPoP-Nonce` is retried once with that nonce (RFC 9449 §8, §9), as clients do.
 *
 * @module
 */

import { encodeBase64 } from "@svc/shared/base64";
import { errorResponse } from "@svc/shared/problem";
import type { EndpointHandler, IssuerContext } from "../protocol/deps.ts";
import { OAuthError } from "../protocol/oauth_error.ts";
import { handlePushedRequest } from "../protocol/par.ts";
import { handleToken } from "../protocol/token.ts";
import { handleUserinfo } from "../protocol/userinfo.ts";
import { authorizationParams } from "./form.ts";
import { dpopProof } from "./dpop_key.ts";
import type { DebuggerSession } from "./session.ts";

/** The `User-Agent` of the debugger's calls: how they are told apart in the request log. */
const DEBUGGER_USER_AGENT = "mock-oidc-debugger";

/** One request and its response, as seen on the wire. */
export interface TokenExchange {
  /** Request line, headers and form body. */
  requestText: string;
  /** The endpoint's status. */
  status: number;
  /** Status line, headers and body. */
  responseText: string;
  /** The parsed JSON body, when it is an object. */
  body?: Record<string, unknown>;
  /** The response's headers (`DPoP-Nonce`, `WWW-Authenticate`). */
  headers: Headers;
}

/** A call and its nonce retry: every attempt in order, and the latest `DPoP-Nonce` seen. */
export interface Attempts {
  /** One, or two when the first was answered `use_dpop_nonce`. */
  attempts: TokenExchange[];
  /** The latest server nonce: the one the retry used, or a newer one the answer handed out. */
  nonce?: string;
}

/** `application/x-www-form-urlencoded` encoding of a credential (RFC 6749 §2.3.1). */
function formEncode(value: string): string {
  return encodeURIComponent(value).replace(/%20/g, "+");
}

/** Adds the form's client authentication to a request's headers or form. */
function authenticate(
  session: DebuggerSession,
  headers: [string, string][],
  form: URLSearchParams,
): void {
  if (session.clientAuth === "client_secret_basic") {
    const credentials = `${formEncode(session.clientId)}:${formEncode(session.clientSecret)}`;
    headers.push(["Authorization", `Basic ${encodeBase64(new TextEncoder().encode(credentials))}`]);
  } else {
    form.set("client_id", session.clientId);
    form.set("client_secret", session.clientSecret);
  }
}

/** One in-process call of `handler`, captured where received requests are. */
async function call(
  ctx: IssuerContext,
  handler: EndpointHandler,
  request: { method: string; url: URL; headers: [string, string][]; body?: string },
): Promise<TokenExchange> {
  // A list rather than Headers, so the page shows the names as sent (Headers lowercases).
  const headers: [string, string][] = [...request.headers, ["User-Agent", DEBUGGER_USER_AGENT]];
  const req = new Request(request.url, { method: request.method, headers, body: request.body });
  const run = async (req: Request): Promise<Response> => {
    try {
      return await handler({ ...ctx, req });
    } catch (err) {
      // What the error boundary sends for it: its RFC 6749 body.
      if (!(err instanceof OAuthError)) throw err;
      return errorResponse(err);
    }
  };
  const res = await (ctx.deps.captureInProcess?.(req, run) ?? run(req));
  const text = await res.text();
  const { url } = request;
  const target = `${url.pathname}${url.search}`;
  return {
    requestText:
      `${request.method} ${target} HTTP/1.1\nHost: ${url.host}\n${headersText(headers)}` +
      (request.body === undefined ? "" : `\n\n${request.body}`),
    status: res.status,
    responseText: `HTTP/1.1 ${res.status}\n${headersText(res.headers)}\n\n${text}`,
    body: parseObject(text),
    headers: res.headers,
  };
}

/**
 * Sends `attempt(nonce)`; when it is answered `use_dpop_nonce` with a `DPoP-Nonce`, once more
 * with that nonce. Without a DPoP key there is one attempt.
 */
async function withNonceRetry(
  attempt: (nonce?: string) => Promise<TokenExchange>,
  nonce: string | undefined,
): Promise<Attempts> {
  const first = await attempt(nonce);
  const offered = first.headers.get("dpop-nonce") ?? undefined;
  if (!offered || !askedForNonce(first)) return { attempts: [first], nonce: offered ?? nonce };
  const second = await attempt(offered);
  return { attempts: [first, second], nonce: second.headers.get("dpop-nonce") ?? offered };
}

/** Whether an answer is RFC 9449's nonce demand: the body's `error`, or userinfo's challenge. */
function askedForNonce(exchange: Pick<TokenExchange, "body" | "headers">): boolean {
  return exchange.body?.error === "use_dpop_nonce" ||
    /\berror="use_dpop_nonce"/.test(exchange.headers.get("www-authenticate") ?? "");
}

/** A form POST to `endpoint` of `ctx`'s issuer, with a proof when the run has a DPoP key. */
async function formPost(
  ctx: IssuerContext,
  session: DebuggerSession,
  endpoint: "par" | "token",
  form: URLSearchParams,
  nonce: string | undefined,
): Promise<TokenExchange> {
  const url = new URL(`${ctx.baseUrl}/${endpoint}`);
  const headers: [string, string][] = [
    ["Content-Type", "application/x-www-form-urlencoded"],
    ["Accept", "application/json"],
  ];
  const body = new URLSearchParams(form);
  authenticate(session, headers, body);
  if (session.dpopKey) {
    const proof = await dpopProof(session.dpopKey, {
      method: "POST",
      url: url.href,
      nowMs: ctx.deps.clock.now(),
      nonce,
    });
    headers.push(["DPoP", proof]);
  }
  return await call(ctx, endpoint === "par" ? handlePushedRequest : handleToken, {
    method: "POST",
    url,
    headers,
    body: body.toString(),
  });
}

/** Push `session`'s authorization request to this issuer's `/par` (RFC 9126 §2). */
export async function pushRequest(
  ctx: IssuerContext,
  session: DebuggerSession,
  loginHint?: string,
): Promise<Attempts> {
  const params = await authorizationParams(session, loginHint);
  return await withNonceRetry(
    (nonce) => formPost(ctx, session, "par", params, nonce),
    session.dpopNonce,
  );
}

/** Redeem `code` for `session` at the token endpoint of `ctx`'s issuer. */
export async function exchangeCode(
  ctx: IssuerContext,
  session: DebuggerSession,
  code: string,
): Promise<Attempts> {
  const form = new URLSearchParams({
    grant_type: "authorization_code",
    code,
    redirect_uri: session.redirectUri,
  });
  if (session.codeVerifier) form.set("code_verifier", session.codeVerifier);
  return await withNonceRetry(
    (nonce) => formPost(ctx, session, "token", form, nonce),
    session.dpopNonce,
  );
}

/**
 * `GET userinfo` with the access token: `Authorization: DPoP` and a proof with `ath` for a
 * `token_type` of DPoP (when the run has its key), `Bearer` otherwise.
 */
export async function fetchUserinfo(
  ctx: IssuerContext,
  session: DebuggerSession,
  token: { accessToken: string; tokenType: string },
  nonce: string | undefined,
): Promise<Attempts> {
  const url = new URL(`${ctx.baseUrl}/userinfo`);
  const key = token.tokenType.toLowerCase() === "dpop" ? session.dpopKey : undefined;
  return await withNonceRetry(async (nonce) => {
    const headers: [string, string][] = [["Accept", "application/json"]];
    if (key) {
      headers.push(["Authorization", `DPoP ${token.accessToken}`]);
      const proof = await dpopProof(key, {
        method: "GET",
        url: url.href,
        nowMs: ctx.deps.clock.now(),
        nonce,
        accessToken: token.accessToken,
      });
      headers.push(["DPoP", proof]);
    } else {
      headers.push(["Authorization", `Bearer ${token.accessToken}`]);
    }
    return await call(ctx, handleUserinfo, { method: "GET", url, headers });
  }, nonce);
}

function headersText(headers: Iterable<[string, string]>): string {
  return [...headers].map(([name, value]) => `${name}: ${value}`).join("\n");
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const parsed = JSON.parse(text);
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
      ? parsed
      : undefined;
  } catch {
    return undefined;
  }
}
