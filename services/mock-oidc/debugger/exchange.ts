/**
 * The debugger's token request: the authorization code redeemed at this issuer's own token
 * endpoint, called in-process (no socket, no URL from the request: nothing else can be reached),
 * with the client authentication the form chose. Both sides are kept as raw HTTP text.
 *
 * @module
 */

import { encodeBase64 } from "@svc/shared/base64";
import type { IssuerContext } from "../protocol/deps.ts";
import { errorResponse } from "@svc/shared/problem";
import { OAuthError } from "../protocol/oauth_error.ts";
import { handleToken } from "../protocol/token.ts";
import type { DebuggerSession } from "./session.ts";

/** One token request and its response, as seen on the wire. */
export interface TokenExchange {
  /** Request line, headers and form body. */
  requestText: string;
  /** The token endpoint's status. */
  status: number;
  /** Status line, headers and body. */
  responseText: string;
  /** The parsed JSON body, when it is an object. */
  body?: Record<string, unknown>;
}

/** `application/x-www-form-urlencoded` encoding of a credential (RFC 6749 §2.3.1). */
function formEncode(value: string): string {
  return encodeURIComponent(value).replace(/%20/g, "+");
}

/** Redeem `code` for `session` at the token endpoint of `ctx`'s issuer. */
export async function exchangeCode(
  ctx: IssuerContext,
  session: DebuggerSession,
  code: string,
): Promise<TokenExchange> {
  const url = new URL(`${ctx.baseUrl}/token`);
  // A list rather than Headers, so the page shows the names as sent (Headers lowercases).
  const headers: [string, string][] = [
    ["Content-Type", "application/x-www-form-urlencoded"],
    ["Accept", "application/json"],
  ];
  const form = new URLSearchParams({
    grant_type: "authorization_code",
    code,
    redirect_uri: session.redirectUri,
  });
  if (session.codeVerifier) form.set("code_verifier", session.codeVerifier);
  if (session.clientAuth === "client_secret_basic") {
    const credentials = `${formEncode(session.clientId)}:${formEncode(session.clientSecret)}`;
    headers.push(["Authorization", `Basic ${encodeBase64(new TextEncoder().encode(credentials))}`]);
  } else {
    form.set("client_id", session.clientId);
    form.set("client_secret", session.clientSecret);
  }
  const body = form.toString();
  const req = new Request(url, { method: "POST", headers, body });
  let res: Response;
  try {
    res = await handleToken({ ...ctx, req });
  } catch (err) {
    // What the error boundary sends for it: its RFC 6749 body.
    if (!(err instanceof OAuthError)) throw err;
    res = errorResponse(err);
  }
  const text = await res.text();
  return {
    requestText: `POST ${url.pathname} HTTP/1.1\nHost: ${url.host}\n${
      headersText(headers)
    }\n\n${body}`,
    status: res.status,
    responseText: `HTTP/1.1 ${res.status}\n${headersText(res.headers)}\n\n${text}`,
    body: parseObject(text),
  };
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
