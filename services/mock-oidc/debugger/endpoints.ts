/**
 * The debugger's rows of the issuer namespace, appended to the protocol table. The handlers
 * (routes.ts, with the JOSE library its session and token checks use) load on the first debugger
 * request: a start-up and every other protocol request do without them.
 *
 * @module
 */

import type { Endpoint, IssuerContext } from "../protocol/deps.ts";
import { html, protocol, redirect } from "../openapi/openapi_operations.ts";
import { lazyModuleAt } from "@svc/shared/lazy-module";

const handlers = lazyModuleAt<typeof import("./routes.ts")>(import.meta.resolve("./routes.ts"));

const PAGE = { description: "Debugger page", content: html };
const ERROR_PAGE = { description: "Debugger error page", content: html };

function operation(
  operationId: string,
  summary: string,
  responses: Record<string, unknown>,
  body = false,
): Record<string, unknown> {
  const op = protocol(operationId, summary, responses, body);
  return { ...op, tags: ["debugger"], responses: { ...op.responses, "400": ERROR_PAGE } };
}

async function showDebugger(ctx: IssuerContext): Promise<Response> {
  return (await handlers()).showDebugger(ctx);
}

async function startDebugger(ctx: IssuerContext): Promise<Response> {
  return await (await handlers()).startDebugger(ctx);
}

async function debuggerCallback(ctx: IssuerContext): Promise<Response> {
  return await (await handlers()).debuggerCallback(ctx);
}

/** The debugger's rows, appended to the protocol table. */
export const DEBUGGER_ENDPOINTS: readonly Endpoint[] = [
  {
    suffix: "debugger",
    method: "GET",
    handle: showDebugger,
    openapi: operation("debugger", "Debugger form (upstream defaults)", { "200": PAGE }),
  },
  {
    suffix: "debugger",
    method: "POST",
    handle: startDebugger,
    openapi: operation("debuggerStart", "Seal the parameters in a cookie, go to authorize", {
      "302": redirect,
    }, true),
  },
  {
    suffix: "debugger/callback",
    method: "GET",
    handle: debuggerCallback,
    openapi: operation("debuggerCallback", "Redeem the code here, show the exchange", {
      "200": PAGE,
      "401": ERROR_PAGE,
    }),
  },
  {
    suffix: "debugger/callback",
    method: "POST",
    handle: debuggerCallback,
    openapi: operation("debuggerCallbackPost", "Callback of response_mode=form_post", {
      "200": PAGE,
      "401": ERROR_PAGE,
    }, true),
  },
];
