/**
 * `GET|POST /{issuer}/authorize`: the code flow with query, fragment and form_post response
 * modes, an interactive login page (config `interactiveLogin` or `prompt=login`), and protocol
 * errors redirected back (302) with correct-case codes whenever a redirect_uri is known. Every
 * redirected answer carries `iss` (RFC 9207).
 *
 * @module
 */

import type { IssuerContext } from "./deps.ts";
import { randomTokenOf } from "./deps.ts";
import { readForm } from "./form.ts";
import { OAuthError } from "./oauth_error.ts";
import { formPostPage, loginPage } from "./pages.ts";
import { htmlResponse, redirectResponse } from "./responses.ts";
import { problemResponse } from "@svc/shared/problem";
import { parseScope } from "../tokens/audience.ts";
import { parseLoginClaims } from "./login_claims.ts";
import { isUsableRedirect } from "./redirect_uri.ts";
import { parseResources } from "./resource_indicator.ts";
import { heldClient } from "./client_registry.ts";
import { lazyModuleAt } from "@svc/shared/lazy-module";
import { issuerListed } from "./dpop_rules.ts";

// Loaded by the first authorization request that carries a request_uri (RFC 9126).
const par = lazyModuleAt<typeof import("./par.ts")>(import.meta.resolve("./par.ts"));
// Loaded by the first authorization request that carries a request object (RFC 9101).
const requestObject = lazyModuleAt<typeof import("./request_object.ts")>(
  import.meta.resolve("./request_object.ts"),
);

const MODES = ["query", "fragment", "form_post"] as const;
type Mode = typeof MODES[number];
const LOGIN_PROMPTS = ["login", "consent", "select_account"];
/** The login form's own fields (never authorization parameters to post back). */
const LOGIN_FORM_FIELDS = ["username", "claims", "deny", "preset"];

/** Handle an authorization request or a login form submit. */
export async function handleAuthorize(ctx: IssuerContext): Promise<Response> {
  const { req, deps } = ctx;
  const form = await readForm(req);
  let params = new URL(req.url).searchParams;
  // A POSTed authorization request carries its parameters in the body; the login form must
  // post them back, since it only keeps the query string.
  const bodyParams = new URLSearchParams();
  for (const [name, value] of form) {
    if (!LOGIN_FORM_FIELDS.includes(name) && !params.has(name)) {
      params.append(name, value);
      bodyParams.append(name, value);
    }
  }
  // RFC 9126 §4: a request_uri stands for the pushed request's parameters, and only those.
  const pushed = params.has("request_uri")
    ? (await par()).pushedParameters(ctx, params)
    : undefined;
  if (pushed) params = pushed.params;
  // RFC 9101 §6.3: a request object's parameters, and only those.
  else if (params.has("request")) {
    params = await (await requestObject()).requestObjectParameters(ctx, params);
  }
  const clientId = params.get("client_id");
  // Errors that cannot be redirected back to the client: thrown, answered in the OAuth dialect.
  if (!clientId) throw badRequest("missing required parameter client_id");
  const redirectUri = params.get("redirect_uri");
  if (!isUsableRedirect(redirectUri)) {
    throw badRequest("redirect_uri is missing or not an absolute URI");
  }
  // A registered client's redirect URI must be one it registered, exactly; never redirect to
  // another (RFC 6749 §4.1.2.1).
  const registered = await heldClient(ctx, clientId);
  if (registered && !registered.metadata.redirect_uris.includes(redirectUri)) {
    throw badRequest("redirect_uri is not registered for this client");
  }
  const parRequired = issuerListed(deps.settings.parRequiredIssuers, ctx.issuerId) ||
    registered?.metadata.require_pushed_authorization_requests === true;
  if (parRequired && !pushed) {
    throw badRequest("a pushed authorization request is required: use request_uri from /par");
  }
  const requestedMode = params.get("response_mode") ?? "query";
  const mode: Mode = (MODES as readonly string[]).includes(requestedMode)
    ? requestedMode as Mode
    : "query";
  const state = params.get("state") ?? undefined;
  // RFC 9207: every authorization response, success or error, names the issuer that sent it, so
  // a client talking to several issuers can tell which one answered (the mix-up defence).
  const reply = (values: Record<string, string | undefined>) =>
    respond(redirectUri, mode, { ...values, state, iss: ctx.issuerUrl });
  const fail = (error: string, description: string) =>
    reply({ error, error_description: description });

  if (!(MODES as readonly string[]).includes(requestedMode)) {
    return fail("invalid_request", `response_mode ${requestedMode} is not supported`);
  }
  const responseType = params.get("response_type");
  if (!responseType) return fail("invalid_request", "missing required parameter response_type");
  if (responseType !== "code") {
    return fail("unsupported_response_type", "only response_type=code is supported");
  }
  if (registered && !registered.metadata.grant_types.includes("authorization_code")) {
    return fail("unauthorized_client", "client is not registered for grant authorization_code");
  }
  const challenge = params.get("code_challenge") ?? undefined;
  const method = params.get("code_challenge_method") ?? (challenge ? "plain" : undefined);
  if (method !== undefined && (method !== "plain" && method !== "S256" || !challenge)) {
    return fail("invalid_request", "code_challenge_method must be plain or S256 with a challenge");
  }

  let resource: string[];
  try {
    resource = parseResources(params);
  } catch (err) {
    if (err instanceof OAuthError) return fail(err.code, err.message);
    throw err;
  }

  // The login page's refusal: back to the client with access_denied (and state and iss).
  if (req.method === "POST" && form.has("deny")) {
    return fail("access_denied", "the user refused at the login page");
  }
  const presets = deps.settings.loginPresets ?? [];
  const presetName = req.method === "POST" ? form.get("preset") : null;
  const preset = presetName === null ? undefined : presets.find((p) => p.username === presetName);
  if (presetName !== null && !preset) {
    return fail("invalid_request", "preset is not one of the configured loginPresets");
  }
  const submitted = preset !== undefined || (req.method === "POST" && form.has("username"));
  const username = preset?.username ?? form.get("username") ?? undefined;
  if (submitted && !username) return fail("invalid_request", "missing required parameter username");
  const prompts = parseScope(params.get("prompt"));
  const needsLogin = deps.settings.interactiveLogin ||
    prompts.some((p) => LOGIN_PROMPTS.includes(p));
  if (!submitted && needsLogin) {
    if (prompts.includes("none")) return fail("login_required", "interactive login is required");
    // The operator's own page is served untouched and without our CSP: it may load /static/*.
    if (deps.settings.loginPagePath !== undefined) return await customLoginPage(deps.settings);
    return htmlResponse(loginPage(ctx.issuerId, params, bodyParams, presets));
  }
  // No login page due: a login_hint naming a preset signs in as that preset (the debugger's pick).
  const hinted = submitted
    ? undefined
    : presets.find((p) => p.username === params.get("login_hint"));

  if (pushed) deps.state.pushedRequests.delete(pushed.requestUri);
  const code = randomTokenOf(deps);
  deps.state.codes.set(code, {
    issuerId: ctx.issuerId,
    clientId,
    redirectUri,
    scope: parseScope(params.get("scope")),
    resource,
    nonce: params.get("nonce") ?? undefined,
    codeChallenge: challenge,
    codeChallengeMethod: method as "plain" | "S256" | undefined,
    subject: username ?? hinted?.username,
    loginClaims: preset?.claims ?? hinted?.claims ??
      (submitted ? parseLoginClaims(form.get("claims")) : undefined),
    authTime: Math.floor(deps.clock.now() / 1000),
    dpopJkt: params.get("dpop_jkt") ?? undefined,
  });
  return reply({ code });
}

async function customLoginPage(settings: IssuerContext["deps"]["settings"]): Promise<Response> {
  const read = settings.readTextFile ?? ((path: string) => Deno.readTextFile(path));
  try {
    return htmlResponse(await read(settings.loginPagePath!), { csp: false });
  } catch (err) {
    return problemResponse({
      status: 404,
      detail: `Cannot show the login page: loginPagePath cannot be read (${(err as Error).name})`,
    });
  }
}

function badRequest(description: string): OAuthError {
  return new OAuthError(400, "invalid_request", description);
}

function respond(
  redirectUri: string,
  mode: Mode,
  values: Record<string, string | undefined>,
): Response {
  const present = Object.entries(values).filter((e): e is [string, string] => e[1] !== undefined);
  if (mode === "form_post") return htmlResponse(formPostPage(redirectUri, values));
  const url = new URL(redirectUri);
  if (mode === "fragment") {
    url.hash = new URLSearchParams(present).toString();
  } else {
    for (const [name, value] of present) url.searchParams.append(name, value);
  }
  return redirectResponse(url.href);
}
