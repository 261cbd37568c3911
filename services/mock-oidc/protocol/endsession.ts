/**
 * `GET|POST /{issuer}/endsession`: redirect to `post_logout_redirect_uri` with `state` added as
 * a proper query parameter (upstream appended `?state=` blindly), or show a "logged out" page.
 *
 * @module
 */

import type { IssuerContext } from "./deps.ts";
import { readForm } from "./form.ts";
import { invalidRequest } from "./oauth_error.ts";
import { loggedOutPage } from "./pages.ts";
import { isUsableRedirect } from "./redirect_uri.ts";
import { htmlResponse, redirectResponse } from "./responses.ts";

/** Handle an end-session request. */
export async function handleEndSession(ctx: IssuerContext): Promise<Response> {
  const params = new URL(ctx.req.url).searchParams;
  for (const [name, value] of await readForm(ctx.req)) {
    if (!params.has(name)) params.append(name, value);
  }
  const target = params.get("post_logout_redirect_uri");
  if (!target) return htmlResponse(loggedOutPage());
  if (!isUsableRedirect(target)) {
    throw invalidRequest("post_logout_redirect_uri is not an absolute URI");
  }
  const url = new URL(target);
  const state = params.get("state");
  if (state !== null) url.searchParams.set("state", state);
  return redirectResponse(url.href);
}
