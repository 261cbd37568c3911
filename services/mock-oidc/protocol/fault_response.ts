/**
 * The answer of a fault that fired (`fault_queue.ts`), loaded on the first one. Every answer
 * carries `X-Mock-Oidc-Fault: <faultId>` (the captured-request log records it as `fault`).
 *
 * - `oauth_error`: the RFC 6749 body `{error, error_description}` with its status; at `authorize`
 *   with a usable `redirect_uri`, a redirect carrying `error`, `error_description`, `state` and
 *   `iss` (in the fragment for `response_mode=fragment`, else the query);
 * - `http`: the status and body as given;
 * - `delay`: `undefined` once the delay is over: the endpoint then answers as usual;
 * - `close`: the status line and headers of a 200 and the body's first byte, then the connection
 *   closes (`Deno.serve` sends no response without a status line): clients fail reading it;
 * - `malformed`: a 200 `application/json` body that does not parse, or a JWKS without keys.
 *
 * @module
 */

import type { Fault } from "./fault_queue.ts";
import type { IssuerContext } from "./deps.ts";
import { isUsableRedirect } from "./redirect_uri.ts";
import { readForm } from "./form.ts";
import { authenticateClient } from "./client_auth.ts";

/** How long a `close` answer waits after its first byte before the connection is cut, ms. */
const CUT_AFTER_MS = 5;

/** The header naming the fault an answer comes from. */
const FAULT_HEADER = "X-Mock-Oidc-Fault";

/** Waits `ms`, unless `signal` (the request's) aborts first. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/** `setTimeout`, cleared when `signal` aborts. */
export const realSleep: Sleep = (ms, signal) =>
  new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    }, { once: true });
  });

/** The answer of `fault` to `ctx`, or `undefined` when the endpoint answers after all (delay). */
export async function faultResponse(
  fault: Fault,
  ctx: IssuerContext,
  sleep: Sleep = realSleep,
): Promise<Response | undefined> {
  const headers = new Headers({ [FAULT_HEADER]: fault.faultId, "Cache-Control": "no-store" });
  switch (fault.kind) {
    case "delay":
      await sleep(fault.delayMs ?? 0, ctx.req.signal);
      return undefined;
    case "http":
      headers.set("Content-Type", fault.contentType ?? "text/plain; charset=utf-8");
      return new Response(fault.body ?? "", { status: fault.status, headers });
    case "malformed":
      headers.set("Content-Type", "application/json");
      return new Response(
        fault.malformed === "jwks_without_keys" ? '{"keys":[]}' : '{"error": "truncat',
        { status: 200, headers },
      );
    case "close":
      headers.set("Content-Type", "application/json");
      return new Response(
        // A first byte, so the status line and headers go out, then the connection is cut.
        new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(new TextEncoder().encode("{"));
          },
          // Not at once: the kit's write bound sends a body that ends (or fails) at once as one
          // answer, and would turn this into a 500; a moment later it is a cut stream.
          pull(controller) {
            return new Promise<void>((resolve) => {
              setTimeout(() => {
                controller.error(new Error(`fault ${fault.faultId}: connection closed on purpose`));
                resolve();
              }, CUT_AFTER_MS);
            });
          },
        }),
        { status: 200, headers },
      );
    case "oauth_error":
      return await oauthError(fault, ctx, headers);
  }
}

async function oauthError(fault: Fault, ctx: IssuerContext, headers: Headers): Promise<Response> {
  const values: Record<string, string> = { error: fault.error ?? "server_error" };
  if (fault.errorDescription !== undefined) values.error_description = fault.errorDescription;
  if (fault.endpoint === "authorize") {
    const params = new URL(ctx.req.url).searchParams;
    if (ctx.req.method === "POST") {
      const type = ctx.req.headers.get("content-type") ?? "";
      if (type.toLowerCase().startsWith("application/x-www-form-urlencoded")) {
        for (const [k, v] of new URLSearchParams(await ctx.req.clone().text())) {
          if (!params.has(k)) params.append(k, v);
        }
      }
    }
    const redirectUri = params.get("redirect_uri");
    if (isUsableRedirect(redirectUri)) {
      const state = params.get("state");
      const answer = new URLSearchParams(values);
      if (state !== null) answer.set("state", state);
      answer.set("iss", ctx.issuerUrl);
      const url = new URL(redirectUri);
      if (params.get("response_mode") === "fragment") url.hash = answer.toString();
      else for (const [k, v] of answer) url.searchParams.append(k, v);
      headers.set("Location", url.href);
      return new Response(null, { status: 302, headers });
    }
  }
  headers.set("Content-Type", "application/json");
  return new Response(JSON.stringify(values), { status: fault.status ?? 400, headers });
}

/** The `grant_type` and client id of a request, read from a copy of it (faults that ask). */
export async function callDetails(
  req: Request,
): Promise<{ grantType?: string; clientId?: string }> {
  const form = await readForm(req.clone()).catch(() => new URLSearchParams());
  let clientId = form.get("client_id") ?? new URL(req.url).searchParams.get("client_id");
  try {
    clientId = authenticateClient(req, form, { issuerUrl: "", endpointUrl: "" }).clientId ??
      clientId;
  } catch { /* a malformed client authentication: the endpoint will say so */ }
  return { grantType: form.get("grant_type") ?? undefined, clientId: clientId ?? undefined };
}
