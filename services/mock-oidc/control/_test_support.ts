/**
 * In-memory stand-ins for the clock and token factory used by the control-plane unit tests, and
 * the `/_mock` rows of the route table on their own.
 */
import { createRouter, localInfo, withErrors } from "@svc/shared/http";
import {
  controlMethodNotAllowed,
  isControlPath,
  withControlGate,
  withTestingOnlyMarker,
} from "./control_plane.ts";
import type { ControlClock, ControlDeps } from "./control_deps.ts";
import { DEFAULT_CONFIG } from "../config/json_config.ts";
import { createCore } from "../provider_state.ts";
import { routeTable } from "../routes.ts";
import type { IssuedToken, TokenRequest } from "../tokens/token_factory.ts";
import { RequestLog } from "./request_log.ts";
import { ScenarioQueue } from "./scenario_queue.ts";

function fakeClock(startMs = Date.parse("2030-01-01T00:00:00Z")): ControlClock {
  let frozenAt: number | undefined;
  let wall = startMs;
  return {
    now: () => frozenAt ?? wall,
    state: () => ({ frozen: frozenAt !== undefined, now: new Date(frozenAt ?? wall) }),
    freeze: (at) => {
      frozenAt = at;
    },
    unfreeze: () => {
      frozenAt = undefined;
      wall = startMs;
    },
    advance: (ms) => {
      frozenAt = (frozenAt ?? wall) + ms;
    },
  };
}

export function fakeDeps(overrides: Partial<ControlDeps> = {}) {
  const issued: TokenRequest[] = [];
  const deps: ControlDeps = {
    clock: fakeClock(),
    scenarios: new ScenarioQueue(),
    requests: new RequestLog(),
    issuerUrlOf: (req, id) => `${new URL(req.url).origin}/${id}`,
    tokens: {
      issue(req): Promise<IssuedToken> {
        issued.push(req);
        const claims = { iss: req.issuerUrl, sub: req.subject, ...req.claims };
        return Promise.resolve({
          token: "header.payload.signature",
          kid: req.issuerId,
          algorithm: "RS256",
          issuer: req.issuerUrl,
          claims,
          expiresAt: new Date(Date.parse("2030-01-01T01:00:00Z")),
        });
      },
    },
    ...overrides,
  };
  return { deps, issued };
}

export function jsonRequest(method: string, path: string, body?: unknown, headers?: HeadersInit) {
  const all = new Headers(headers);
  if (body !== undefined && !all.has("content-type")) all.set("content-type", "application/json");
  return new Request(`http://mock.test${path}`, {
    method,
    headers: all,
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
}

/**
 * The `/_mock` rows of the route table on their own, as one handler: the token gate, the rows,
 * problems for errors (the one boundary), every response marked testing-only.
 */
export function createControlHandler(deps: ControlDeps): (req: Request) => Promise<Response> {
  const protocol = createCore(DEFAULT_CONFIG).protocol;
  const routes = routeTable({ protocol, control: deps, document: () => ({}) })
    .filter((route) => isControlPath(String(route.pattern)));
  const router = createRouter(routes, { methodNotAllowed: controlMethodNotAllowed });
  const handler = withTestingOnlyMarker(
    withErrors(withControlGate(router.handler, deps.controlToken)),
  );
  return async (req) => await handler(req, localInfo());
}
