/**
 * The debugger's session: the parameters of one debugger run, kept between the form and the
 * callback in the `debugger-session` cookie, encrypted and authenticated as a compact JWE
 * (`dir`, `A128GCM`, as upstream) with a key that lives only in this process. Nothing is kept on
 * the server; a cookie from another process, edited, truncated or oversized does not open.
 *
 * @module
 */

import { compactDecrypt, CompactEncrypt } from "jose";
import { type DpopPrivateJwk, isDpopPrivateJwk } from "./dpop_key.ts";

/** The cookie's name (upstream's). */
const SESSION_COOKIE = "debugger-session";

/** Longest cookie value written or read: browsers drop cookies past ~4 KB silently. */
export const SESSION_COOKIE_MAX_CHARS = 4000;

/** How the debugger authenticates at the token endpoint. */
export const CLIENT_AUTH_METHODS = ["client_secret_basic", "client_secret_post"] as const;

/** One of {@linkcode CLIENT_AUTH_METHODS}. */
export type ClientAuthMethod = typeof CLIENT_AUTH_METHODS[number];

/** What the callback needs to finish the flow. */
export interface DebuggerSession {
  issuerId: string;
  clientId: string;
  clientSecret: string;
  clientAuth: ClientAuthMethod;
  scope: string;
  responseType: string;
  responseMode: string;
  state: string;
  nonce: string;
  redirectUri: string;
  /** Set when the run uses PKCE (S256). */
  codeVerifier?: string;
  /** Set when the run binds its tokens with DPoP: the run's private key (sealed, never shown). */
  dpopKey?: DpopPrivateJwk;
  /** The latest `DPoP-Nonce` the issuer handed out (at PAR), for the token request's proof. */
  dpopNonce?: string;
  /** Set when the authorization request was pushed (PAR): what `/par` answered, attempt by attempt. */
  pushed?: PushedSummary;
}

/** What the result page shows of the pushed request (the full exchange is in the request log). */
export interface PushedSummary {
  requestUri: string;
  /** Each `/par` call: its status, and the `error` of a refused one (`use_dpop_nonce`). */
  attempts: { status: number; error?: string }[];
}

const STRING_FIELDS = [
  "issuerId",
  "clientId",
  "clientSecret",
  "scope",
  "responseType",
  "responseMode",
  "state",
  "nonce",
  "redirectUri",
] as const;

/** Encrypt `session` into a cookie value. */
export async function sealSession(session: DebuggerSession, key: Uint8Array): Promise<string> {
  return await new CompactEncrypt(new TextEncoder().encode(JSON.stringify(session)))
    .setProtectedHeader({ alg: "dir", enc: "A128GCM" })
    .encrypt(key);
}

/**
 * The session in a cookie value, or undefined when it does not open with `key` (tampered,
 * forged, from another process, too long) or does not hold a session.
 */
export async function openSession(
  value: string,
  key: Uint8Array,
): Promise<DebuggerSession | undefined> {
  if (value.length > SESSION_COOKIE_MAX_CHARS) return undefined;
  let plaintext: Uint8Array;
  try {
    ({ plaintext } = await compactDecrypt(value, key, {
      keyManagementAlgorithms: ["dir"],
      contentEncryptionAlgorithms: ["A128GCM"],
    }));
  } catch {
    return undefined;
  }
  try {
    const parsed = JSON.parse(new TextDecoder().decode(plaintext));
    return isSession(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

function isSession(value: unknown): value is DebuggerSession {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  return STRING_FIELDS.every((f) => typeof v[f] === "string") &&
    (CLIENT_AUTH_METHODS as readonly unknown[]).includes(v.clientAuth) &&
    (v.codeVerifier === undefined || typeof v.codeVerifier === "string") &&
    (v.dpopKey === undefined || isDpopPrivateJwk(v.dpopKey)) &&
    (v.dpopNonce === undefined || typeof v.dpopNonce === "string") &&
    (v.pushed === undefined || isPushedSummary(v.pushed));
}

function isPushedSummary(value: unknown): value is PushedSummary {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.requestUri === "string" && Array.isArray(v.attempts) &&
    v.attempts.every((a) =>
      typeof a === "object" && a !== null && typeof a.status === "number" &&
      (a.error === undefined || typeof a.error === "string")
    );
}

/** The `debugger-session` value of a request's Cookie header (the first one), if any. */
export function sessionCookieOf(req: Request): string | undefined {
  for (const part of (req.headers.get("cookie") ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === SESSION_COOKIE) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** `Set-Cookie` for `value` under `path`: HttpOnly, SameSite=Lax, Secure on https. */
export function setSessionCookie(
  value: string,
  options: { path: string; secure: boolean; maxAgeSeconds?: number },
): string {
  const attributes = [
    `${SESSION_COOKIE}=${value}`,
    `Path=${options.path}`,
    `Max-Age=${options.maxAgeSeconds ?? 600}`,
    "HttpOnly",
    "SameSite=Lax",
  ];
  if (options.secure) attributes.push("Secure");
  return attributes.join("; ");
}
