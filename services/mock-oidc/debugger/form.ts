/**
 * The debugger form: upstream's defaults, the fields it lets you edit, their validation, and
 * the authorization request a valid form turns into. `redirect_uri` is not a field: it is always
 * this issuer's own `/debugger/callback`, so the debugger cannot be pointed anywhere else.
 *
 * @module
 */

import { base64url } from "../tokens/jwt.ts";
import { CLIENT_AUTH_METHODS, type ClientAuthMethod, type DebuggerSession } from "./session.ts";

/** The form's field names (as posted). */
export type DebuggerField =
  | "client_id"
  | "client_secret"
  | "client_auth"
  | "scope"
  | "response_type"
  | "response_mode"
  | "state"
  | "nonce"
  | "pkce"
  | "par"
  | "dpop"
  | "login_hint";

/** Values shown in the form. */
export type DebuggerValues = Record<DebuggerField, string>;

/** Upstream's pre-filled values; PKCE off as upstream has none. */
export const DEBUGGER_DEFAULTS: Readonly<DebuggerValues> = {
  "client_id": "debugger",
  "client_secret": "someSecret",
  "client_auth": "client_secret_basic",
  scope: "openid somescope",
  "response_type": "code",
  "response_mode": "query",
  state: "1234",
  nonce: "5678",
  pkce: "",
  par: "",
  dpop: "",
  "login_hint": "",
};

/** The form's checkboxes: off unless posted (or, on the form, asked for in its query). */
const DEBUGGER_CHECKBOXES = ["pkce", "par", "dpop"] as const;

/**
 * The form's values for `GET /{issuer}/debugger?…`: upstream's defaults, with each checkbox the
 * query sets to `on` ticked (the console links to `?par=on&dpop=on&pkce=on`). Nothing else is
 * taken from the query.
 */
export function debuggerValuesOf(query: URLSearchParams): DebuggerValues {
  const values = { ...DEBUGGER_DEFAULTS };
  for (const box of DEBUGGER_CHECKBOXES) if (query.get(box) === "on") values[box] = "on";
  return values;
}

/** Response modes whose answer reaches the server (a fragment never does). */
export const DEBUGGER_RESPONSE_MODES = ["query", "form_post"] as const;

/** Longest accepted value of one field. */
export const FIELD_MAX_CHARS = 512;

/** A posted form: the session to start, or the values back with an error per bad field. */
export type FormResult =
  | {
    ok: true;
    session: DebuggerSession;
    loginHint?: string;
    /** Push the authorization request (PAR) first. */
    par: boolean;
    /** Bind the tokens with DPoP (the caller makes the key: `session.dpopKey`). */
    dpop: boolean;
  }
  | { ok: false; values: DebuggerValues; errors: Partial<Record<DebuggerField, string>> };

/** Validate a posted form for `issuerId`, whose callback is `redirectUri`. */
export function readDebuggerForm(
  form: URLSearchParams,
  issuer: { issuerId: string; redirectUri: string; presets?: readonly string[] },
): FormResult {
  const values = { ...DEBUGGER_DEFAULTS, pkce: "", par: "", dpop: "" };
  for (const name of Object.keys(values) as DebuggerField[]) {
    const posted = form.get(name);
    if (posted !== null) values[name] = posted;
  }
  const errors: Partial<Record<DebuggerField, string>> = {};
  for (const name of Object.keys(values) as DebuggerField[]) {
    if (values[name].length > FIELD_MAX_CHARS) {
      errors[name] = `must be at most ${FIELD_MAX_CHARS} characters`;
    }
  }
  if (!values.client_id && !errors.client_id) errors.client_id = "is required";
  if (!values.response_type && !errors.response_type) errors.response_type = "is required";
  if (!(CLIENT_AUTH_METHODS as readonly string[]).includes(values.client_auth)) {
    errors.client_auth = `must be one of ${CLIENT_AUTH_METHODS.join(", ")}`;
  }
  if (!(DEBUGGER_RESPONSE_MODES as readonly string[]).includes(values.response_mode)) {
    errors.response_mode = "must be query or form_post (a fragment never reaches the server)";
  }
  if (values.login_hint && !(issuer.presets ?? []).includes(values.login_hint)) {
    errors.login_hint = "must be one of the loginPresets, or empty";
  }
  if (Object.keys(errors).length) return { ok: false, values, errors };
  return {
    ok: true,
    session: {
      issuerId: issuer.issuerId,
      clientId: values.client_id,
      clientSecret: values.client_secret,
      clientAuth: values.client_auth as ClientAuthMethod,
      scope: values.scope,
      responseType: values.response_type,
      responseMode: values.response_mode,
      state: values.state,
      nonce: values.nonce,
      redirectUri: issuer.redirectUri,
      codeVerifier: values.pkce ? newCodeVerifier() : undefined,
    },
    loginHint: values.login_hint || undefined,
    par: values.par !== "",
    dpop: values.dpop !== "",
  };
}

/** 32 random bytes, base64url (43 characters, RFC 7636 §4.1). */
export function newCodeVerifier(): string {
  return base64url(crypto.getRandomValues(new Uint8Array(32)));
}

/** `BASE64URL(SHA256(verifier))` (RFC 7636 §4.2, S256). */
export async function codeChallengeOf(verifier: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier));
  return base64url(new Uint8Array(digest));
}

/** The parameters of `session`'s authorization request (sent to authorize, or pushed). */
export async function authorizationParams(
  session: DebuggerSession,
  loginHint?: string,
): Promise<URLSearchParams> {
  const query = new URLSearchParams({
    "client_id": session.clientId,
    "response_type": session.responseType,
    redirect_uri: session.redirectUri,
    "response_mode": session.responseMode,
  });
  // Empty optional values are left out rather than sent as `scope=` and the like.
  if (session.scope) query.set("scope", session.scope);
  if (session.state) query.set("state", session.state);
  if (session.nonce) query.set("nonce", session.nonce);
  // A login preset to sign in as (the login page pre-fills it when one is due).
  if (loginHint) query.set("login_hint", loginHint);
  if (session.codeVerifier) {
    query.set("code_challenge", await codeChallengeOf(session.codeVerifier));
    query.set("code_challenge_method", "S256");
  }
  return query;
}

/** The authorization request of `session` at `issuerUrl`. */
export async function authorizeUrl(
  issuerUrl: string,
  session: DebuggerSession,
  loginHint?: string,
): Promise<string> {
  return `${issuerUrl}/authorize?${await authorizationParams(session, loginHint)}`;
}

/** The authorization request of a pushed request (RFC 9126 §4): `client_id` and `request_uri`. */
export function pushedAuthorizeUrl(
  issuerUrl: string,
  clientId: string,
  requestUri: string,
): string {
  const query = new URLSearchParams({ "client_id": clientId, "request_uri": requestUri });
  return `${issuerUrl}/authorize?${query}`;
}
