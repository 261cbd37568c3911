/**
 * The `/_mock` rows of the route table (one per row of docs/mock-oidc.md#control-plane), the token
 * gate, and the control plane's 404 and 405. Every response it produces carries
 * `X-Mock-Oidc: testing-only`.
 * @module
 */
import {
  createRouter,
  type FallbackContext,
  type Handler,
  localInfo,
  notFoundError,
  type Route,
} from "@svc/shared/http";
import { errorResponse, HttpError } from "@svc/shared/problem";
import type { ControlDeps } from "./control_deps.ts";
import { MAX_CHANGES_TIMEOUT_MS } from "./request_log.ts";
import { ClientRegistry } from "../protocol/client_registry.ts";
import { control, CONTROL_ERRORS, ok, ref } from "../openapi/openapi_operations.ts";
import { consoleRoutes, isConsolePage } from "../console/console_routes.ts";
import { lazyModuleAt } from "@svc/shared/lazy-module";

// The rows' handlers load on the first control request (see control_handlers.ts).
const handlers = lazyModuleAt<typeof import("./control_handlers.ts")>(
  import.meta.resolve("./control_handlers.ts"),
);
// The token check (and its SHA-256) loads with the first gated request: without
// --control-token there is nothing to check.
const tokenCheck = lazyModuleAt<typeof import("./control_token.ts")>(
  import.meta.resolve("./control_token.ts"),
);

const READ_HEADERS = ["Host", "X-Forwarded-Host", "X-Forwarded-Port", "X-Forwarded-Proto"];

/**
 * The `/_mock` rows of the route table, one per row of the contract's endpoint table, each with its
 * OpenAPI operation, then a catch-all that answers 404 for unknown control paths.
 */
export function controlRoutes(deps: ControlDeps): Route[] {
  const clients = deps.clients ?? new ClientRegistry();
  return [
    {
      method: "GET",
      pattern: "/_mock/clock",
      handler: async () => (await handlers()).getClock(deps.clock),
      openapi: control("getClock", "Read the clock", { "200": ok("ClockState") }),
    },
    {
      method: "PUT",
      pattern: "/_mock/clock",
      handler: async (req) => await (await handlers()).putClock(req, deps.clock),
      openapi: control(
        "setClock",
        "Freeze at an instant or unfreeze",
        { "200": ok("ClockState") },
        "ClockUpdate",
      ),
    },
    {
      method: "POST",
      pattern: "/_mock/clock/advance",
      handler: async (req) => await (await handlers()).advanceClock(req, deps.clock),
      openapi: control(
        "advanceClock",
        "Freeze, then move forward",
        { "200": ok("ClockState") },
        "ClockAdvance",
      ),
    },
    {
      method: "POST",
      pattern: "/_mock/mint",
      handler: async (req) => await (await handlers()).mintToken(req, deps),
      openapi: {
        ...control("mintToken", "Mint a token like the token endpoint grants", {
          "200": ok("MintResponse"),
        }, "MintRequest"),
        parameters: READ_HEADERS.map((name) => ({
          name,
          in: "header",
          required: false,
          schema: { type: "string" },
        })),
      },
    },
    {
      method: "POST",
      pattern: "/_mock/scenarios",
      handler: async (req) => await (await handlers()).enqueueScenario(req, deps.scenarios),
      openapi: control("enqueueScenario", "Enqueue a one-shot scenario", {
        "200": ok("ScenarioEnqueued"),
      }, "Scenario"),
    },
    {
      method: "GET",
      pattern: "/_mock/scenarios",
      handler: async () => (await handlers()).listScenarios(deps.scenarios),
      openapi: control("listScenarios", "List queued scenarios", { "200": ok("ScenarioList") }),
    },
    {
      method: "DELETE",
      pattern: "/_mock/scenarios",
      handler: async () => (await handlers()).flushScenarios(deps.scenarios),
      openapi: control("flushScenarios", "Flush the queue", { "200": ok("ScenariosFlushed") }),
    },
    {
      method: "GET",
      pattern: "/_mock/requests",
      handler: async (req) => (await handlers()).listRequests(req, deps.requests),
      openapi: {
        ...control("listRequests", "List captured requests", {
          "200": ok("CapturedRequestList"),
        }),
        parameters: [
          { name: "issuer", in: "query", required: false, schema: { type: "string" } },
          { name: "endpoint", in: "query", required: false, schema: ref("Endpoint") },
        ],
        responses: {
          "200": ok("CapturedRequestList"),
          ...CONTROL_ERRORS,
          "422": { $ref: "#/components/responses/ValidationFailed" },
        },
      },
    },
    {
      method: "DELETE",
      pattern: "/_mock/requests",
      handler: async () => (await handlers()).clearRequests(deps.requests),
      openapi: control("clearRequests", "Clear the request log", { "200": ok("RequestsCleared") }),
    },
    {
      method: "POST",
      pattern: "/_mock/requests/take",
      handler: async (req) => await (await handlers()).takeRequest(req, deps.requests),
      openapi: control("takeRequest", "Remove and return the oldest matching request (long-poll)", {
        "200": ok("CapturedRequest"),
      }, "TakeRequest"),
    },
    {
      method: "GET",
      pattern: "/_mock/requests/changes",
      handler: async (req) => await (await handlers()).requestChanges(req, deps.requests),
      openapi: {
        ...control("requestChanges", "Wait until the request log changes (non-destructive)", {
          "200": ok("RequestLogVersion"),
        }),
        parameters: [
          { name: "after", in: "query", required: false, schema: { type: "integer", minimum: 0 } },
          {
            name: "timeoutMs",
            in: "query",
            required: false,
            schema: { type: "integer", minimum: 0, maximum: MAX_CHANGES_TIMEOUT_MS, default: 0 },
          },
        ],
        responses: {
          "200": ok("RequestLogVersion"),
          ...CONTROL_ERRORS,
          "422": { $ref: "#/components/responses/ValidationFailed" },
        },
      },
    },
    {
      method: "GET",
      pattern: "/_mock/clients",
      handler: async () => (await handlers()).listClients(clients),
      openapi: control("listClients", "List dynamically registered clients (no secrets)", {
        "200": ok("ClientList"),
      }),
    },
    {
      method: "DELETE",
      pattern: "/_mock/clients",
      handler: async () => (await handlers()).clearClients(clients),
      openapi: control("clearClients", "Forget every registered client", {
        "200": ok("ClientsCleared"),
      }),
    },
    {
      method: "POST",
      pattern: "/_mock/reset",
      handler: async (req) => await (await handlers()).resetMock(req, deps),
      openapi: control("reset", "Flush queue and log, unfreeze the clock; keys are kept", {
        "200": ok("ResetResult"),
      }),
    },
    ...consoleRoutes(async (req) => (await handlers()).consolePage(req)),
    ...controlCatchAll((_req, ctx) => {
      throw notFoundError(ctx.url.pathname, "no control route for this path");
    }),
  ];
}

/**
 * Rows for every `/_mock` path no other row owns, labelled `/_mock/*`: `/_mock` itself and
 * `/_mock/*`. Two plain pathnames rather than the one `URLPattern` `/_mock{/*}?`, which the route
 * table would have to construct at start (the first `URLPattern` costs ≈ 7 ms).
 */
function controlCatchAll(handler: Route["handler"]): Route[] {
  return ["/_mock", "/_mock/*"].map((pattern) => ({
    method: "*",
    pattern,
    label: CONTROL_LABEL,
    handler,
  }));
}

/** The route label of a `/_mock` path no row owns. */
const CONTROL_LABEL = "/_mock/*";

/**
 * The rows that answer every `/_mock` path when the control plane is not on this listener
 * (`missing` is {@linkcode disabledControlPlane} or {@linkcode controlPlaneElsewhere}).
 */
export function controlMissingRoutes(missing: (req: Request) => Response): Route[] {
  return controlCatchAll(missing);
}

/** Whether a path belongs to the control plane. */
export function isControlPath(path: string): boolean {
  return path === "/_mock" || path.startsWith("/_mock/");
}

/** The control plane's 405: code `method_not_allowed`, `Allow` listing the row's methods. */
export function controlMethodNotAllowed(req: Request, ctx: FallbackContext): never {
  throw new HttpError(
    405,
    "method_not_allowed",
    `${req.method} is not allowed on ${ctx.url.pathname}`,
    { headers: { allow: ctx.allow.join(", ") } },
  );
}

/**
 * Checks the control token on every `/_mock` path before any row answers, except the console
 * page, which holds no data (the calls it makes carry the token).
 */
export function withControlGate(handler: Handler, controlToken: string | undefined): Handler {
  return async function controlGate(req, info) {
    const path = controlToken ? new URL(req.url).pathname : "";
    if (controlToken && isControlPath(path) && !isConsolePage(req.method, path)) {
      (await tokenCheck()).checkControlToken(req, controlToken);
    }
    return await handler(req, info);
  };
}

function markTestingOnly(response: Response): Response {
  response.headers.set("x-mock-oidc", "testing-only");
  return response;
}

/** 404 for every `/_mock/*` path, used when `--control-enabled=false`. */
export function disabledControlPlane(req: Request): Response {
  return markTestingOnly(unknownPath(req, "the control plane is disabled"));
}

// The kit's 404 for a path this listener does not serve, naming why.
function unknownPath(req: Request, why: string): Response {
  const path = new URL(req.url).pathname;
  return errorResponse(notFoundError(path, why), { instance: path });
}

/** 404 for every `/_mock/*` path on the API listener when `--control-addr` is set. */
export function controlPlaneElsewhere(req: Request): Response {
  return markTestingOnly(unknownPath(req, "the control plane is served on its own listener"));
}

/**
 * The `/_mock/*` handler on its own (tests, and the dedicated control listener's core): token
 * gate, the control rows, problems for errors, every response marked testing-only.
 */
export function createControlHandler(deps: ControlDeps): (req: Request) => Promise<Response> {
  const router = createRouter(controlRoutes(deps), { methodNotAllowed: controlMethodNotAllowed });
  const gated = withControlGate(router.handler, deps.controlToken);
  return async function controlPlane(req) {
    try {
      return markTestingOnly(await gated(req, localInfo()));
    } catch (err) {
      return markTestingOnly(errorResponse(err, { instance: new URL(req.url).pathname }));
    }
  };
}

/**
 * Marks every `/_mock` response, including ones produced by outer wrappers (timeouts, rate
 * limits), as testing-only.
 */
export function withTestingOnlyMarker(handler: Handler): Handler {
  return async function testingOnly(req, info) {
    const res = await handler(req, info);
    if (!URL.canParse(req.url)) return res; // an invalid Host: already a 400 from withValidTarget
    if (!isControlPath(new URL(req.url).pathname)) return res;
    try {
      return markTestingOnly(res);
    } catch {
      // Immutable headers (e.g. a fetched response): copy first.
      return markTestingOnly(new Response(res.body, res));
    }
  };
}
