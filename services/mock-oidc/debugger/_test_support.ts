/**
 * Drives the debugger in process: the form post, the authorization request it redirects to
 * (auto-approved without interactive login), and the callback with the session cookie.
 *
 * @module
 */

import assert from "node:assert/strict";
import type { Harness } from "../protocol/_test_support.ts";
import { BASE } from "../protocol/_test_support.ts";

/** The cookie pair (`name=value`) of a Set-Cookie header. */
export function cookiePair(res: Response): string {
  const header = res.headers.get("set-cookie");
  assert.ok(header, "a Set-Cookie header");
  return header.split(";")[0];
}

/** Path and query of an absolute URL on the harness's base. */
export function local(url: string): string {
  assert.ok(url.startsWith(BASE), url);
  return url.slice(BASE.length);
}

/** Post the form, follow to authorize, and return the callback URL and the session cookie. */
export async function startFlow(
  h: Harness,
  fields: Record<string, string> = {},
  issuer = "default",
): Promise<{ authorize: URL; callback: URL; cookie: string }> {
  const start = await h.form(`/${issuer}/debugger`, fields);
  assert.equal(start.status, 302, await start.text());
  const authorize = new URL(start.headers.get("location")!);
  const cookie = cookiePair(start);
  const auth = await h.call(local(authorize.href));
  assert.equal(auth.status, 302, await auth.text());
  return { authorize, callback: new URL(auth.headers.get("location")!), cookie };
}
