/**
 * One route table per service (after std's `http/route.ts`): a list of `{ method, pattern,
 * handler, openapi? }` from which come dispatch, 404 and 405 with `Allow`, the route label that
 * metrics, traces and the access log carry, and the OpenAPI `paths`.
 *
 * Dispatch is "path first, then method": the first route whose pattern matches the path owns it,
 * and the routes sharing that pattern split it by method; no other route is consulted, so a later
 * catch-all never hides a 405. Each request's URL is parsed and matched once; every layer that
 * asks {@linkcode Router.match} for the same request gets the cached result.
 *
 * @module
 */
import { createContextKey, getContext, setContext } from "./context.ts";
import type { Handler } from "./handler.ts";
import { HttpError } from "./problem.ts";
import {
  compilePathname,
  labelOfPathname,
  openapiPathOf,
  type PathMatcher,
  plainPathname,
} from "./pattern.ts";

/** What a route handler gets besides the request. */
export interface RouteContext {
  /** The connection info `Deno.serve` passed in. */
  info: Deno.ServeHandlerInfo;
  /** The request URL, parsed once. */
  url: URL;
  /** Named groups of the pattern's pathname (`/v1/todos/:id` → `{ id }`), still percent-encoded. */
  params: Record<string, string | undefined>;
  /** The route label (`/v1/todos/{id}`). */
  route: string;
}

/** A route handler. */
export type RouteHandler = (req: Request, ctx: RouteContext) => Response | Promise<Response>;

/** One row of a route table. */
export interface Route {
  /**
   * Method(s) answered, e.g. `"GET"` or `["GET", "HEAD"]`; `"*"` answers every method. A `GET`
   * row also answers `HEAD` (from the same handler) unless the pattern has a `HEAD` row of its own.
   */
  method: string | readonly string[];
  /** A `URLPattern`, or a pathname pattern string such as `"/v1/todos/:id"`. */
  pattern: URLPattern | string;
  /** Answers the request; what it throws goes to the stack's error boundary. */
  handler: RouteHandler;
  /** Label for metrics, traces and logs. @default the pathname, `:id` written `{id}` */
  label?: string;
  /** The OpenAPI operation object of this method and path; routes without one are undocumented. */
  openapi?: Record<string, unknown>;
}

/** The result of matching a request against the table. */
export interface RouteMatch {
  /** The request URL, parsed once. */
  url: URL;
  /** `url.pathname`, read once (each read of the getter makes a new string). */
  pathname?: string;
  /** The label of the owning route, or the unmatched label. */
  route: string;
  /** The route that answers, when the path and method both match. */
  handler?: RouteHandler;
  /** Named groups of the owning pattern's pathname. */
  params: Record<string, string | undefined>;
  /** Methods of the owning pattern when the method did not match (405); empty on 404. */
  allow: string[];
}

/** Context of the {@linkcode RouterOptions.notFound} and `methodNotAllowed` hooks. */
export interface FallbackContext {
  /** The connection info `Deno.serve` passed in. */
  info: Deno.ServeHandlerInfo;
  /** The request URL, parsed once. */
  url: URL;
  /** The owning route's label (405) or the unmatched label (404). */
  route: string;
  /** The owning pattern's methods (405 only). */
  allow: string[];
}

/** Options of {@linkcode createRouter}. */
export interface RouterOptions {
  /** Answers (or throws for) paths no route owns. @default throws `HttpError` 404 `not_found` */
  notFound?: (req: Request, ctx: FallbackContext) => Response | Promise<Response>;
  /**
   * Answers (or throws for) a method the owning pattern does not take.
   * @default throws `HttpError` 405 `method_not_allowed` with `Allow`
   */
  methodNotAllowed?: (req: Request, ctx: FallbackContext) => Response | Promise<Response>;
  /** Label of requests no route owns. @default {"unmatched"} */
  unmatchedLabel?: string;
}

/** A compiled route table. */
export interface Router {
  /** The table's handler: dispatch, 404, 405. */
  handler: Handler;
  /** Matches `req` (once; later calls return the cached result). */
  match(req: Request): RouteMatch;
  /** The route label of `req`, for metrics, traces and logs. */
  routeOf(req: Request): string;
  /** The table, as given. */
  routes: readonly Route[];
}

interface Group {
  matcher: PathMatcher;
  label: string;
  methods: Map<string, Route>;
  any?: Route;
  labels: Map<Route, string>;
  /** What each method (and `*`) dispatches to, resolved once: handler and label. */
  targets: Map<string, { handler: RouteHandler; route: string }>;
  anyTarget?: { handler: RouteHandler; route: string };
  /** The label of a 405 and the `Allow` list, built once. */
  firstLabel: string;
  allow: string[];
}

/** `params` of every match without groups (a static path): one frozen object, not one each. */
const NO_PARAMS: Record<string, string | undefined> = Object.freeze({});
const NO_METHODS: string[] = Object.freeze([]) as unknown as string[];

/**
 * One request's match, cached on the request, and the context its route handler gets (the same
 * object: one record per request, not two).
 */
class Match implements RouteMatch, RouteContext {
  url: URL;
  pathname: string;
  route: string;
  handler?: RouteHandler = undefined;
  params: Record<string, string | undefined> = NO_PARAMS;
  allow: string[] = NO_METHODS;
  info: Deno.ServeHandlerInfo = undefined as unknown as Deno.ServeHandlerInfo;
  constructor(url: URL, route: string) {
    this.url = url;
    this.pathname = url.pathname;
    this.route = route;
  }
}

function groupsOf(routes: readonly Route[]): Group[] {
  const groups = new Map<string, Group>();
  for (const route of routes) {
    // A plain pathname string needs no URLPattern (pattern.ts): same key, matcher and label.
    const plain = typeof route.pattern === "string" ? plainPathname(route.pattern) : undefined;
    const pattern = plain
      ? undefined
      : typeof route.pattern === "string"
      ? new URLPattern({ pathname: route.pattern })
      : route.pattern;
    const pathname = pattern ? pattern.pathname : route.pattern as string;
    const key = pattern ? patternKey(pattern) : pathOnlyKey(pathname);
    let group = groups.get(key);
    if (!group) {
      group = {
        // URLPattern made here from a string is case-sensitive; one given may not be
        matcher: plain ??
          compilePathname(pattern!, { caseSensitive: typeof route.pattern === "string" }),
        label: labelOfPathname(pathname),
        methods: new Map(),
        labels: new Map(),
        targets: new Map(),
        firstLabel: "",
        allow: NO_METHODS,
      };
      groups.set(key, group);
    }
    group.labels.set(route, route.label ?? group.label);
    const methods = typeof route.method === "string" ? [route.method] : route.method;
    for (const method of methods) {
      if (method === "*") group.any ??= route;
      else if (!group.methods.has(method)) group.methods.set(method, route);
    }
  }
  // RFC 9110 §9.1: every GET resource answers HEAD. A pattern with GET but no HEAD row gets
  // HEAD from its GET handler, listed right after GET in `Allow`. The handler's response keeps
  // its body: `Deno.serve` sends the head alone for HEAD, with the `Content-Length` that body
  // has, so the headers are exactly the GET's.
  for (const group of groups.values()) {
    const get = group.methods.get("GET");
    if (!get || group.methods.has("HEAD")) continue;
    const methods = [...group.methods];
    methods.splice(methods.findIndex(([m]) => m === "GET") + 1, 0, ["HEAD", get]);
    group.methods = new Map(methods);
  }
  for (const group of groups.values()) {
    for (const [method, route] of group.methods) {
      group.targets.set(method, { handler: route.handler, route: group.labels.get(route)! });
    }
    if (group.any) {
      group.anyTarget = { handler: group.any.handler, route: group.labels.get(group.any)! };
    }
    group.firstLabel = group.labels.values().next().value!;
    group.allow = Object.freeze([...group.methods.keys()]) as unknown as string[];
  }
  return [...groups.values()];
}

function patternKey(p: URLPattern): string {
  return [p.protocol, p.username, p.password, p.hostname, p.port, p.pathname, p.search, p.hash]
    .join("\u0000");
}

/** The {@linkcode patternKey} of `new URLPattern({ pathname })`: every other component `*`. */
function pathOnlyKey(pathname: string): string {
  return ["*", "*", "*", "*", "*", pathname, "*", "*"].join("\u0000");
}

/**
 * Compiles a route table.
 *
 * @example Usage
 * ```ts
 * import { createRouter, localInfo } from "@svc/shared/http";
 * import assert from "node:assert/strict";
 *
 * const router = createRouter([
 *   { method: "GET", pattern: "/v1/todos", handler: () => Response.json([]) },
 *   { method: "POST", pattern: "/v1/todos", handler: () => new Response(null, { status: 201 }) },
 *   { method: "GET", pattern: "/v1/todos/:id", handler: (_req, ctx) => Response.json(ctx.params) },
 * ]);
 * const res = await router.handler(new Request("http://x/v1/todos/7"), localInfo());
 * assert.deepEqual(await res.json(), { id: "7" });
 * assert.equal(router.routeOf(new Request("http://x/v1/todos/8")), "/v1/todos/{id}");
 * ```
 * @throws {TypeError} When a pattern string is not a valid `URLPattern` pathname.
 */
export function createRouter(routes: readonly Route[], options: RouterOptions = {}): Router {
  const groups = groupsOf(routes);
  const unmatched = options.unmatchedLabel ?? "unmatched";
  // The match rides on the request's context under this table's own key (nested tables each
  // keep theirs), so `routeOf` and the handler match once.
  const MATCH = createContextKey<RouteMatch>("routeMatch");
  const notFound = options.notFound ?? defaultNotFound;
  const methodNotAllowed = options.methodNotAllowed ?? defaultMethodNotAllowed;

  function match(req: Request): RouteMatch {
    let found = getContext(req, MATCH);
    if (found) return found;
    const url = new URL(req.url);
    found = new Match(url, unmatched);
    for (const group of groups) {
      const params = group.matcher(url, found.pathname);
      if (!params) continue;
      const target = group.targets.get(req.method) ?? group.anyTarget;
      found.params = params;
      if (target) {
        found.handler = target.handler;
        found.route = target.route;
      } else {
        found.route = group.firstLabel;
        found.allow = group.allow;
      }
      break;
    }
    setContext(req, MATCH, found);
    return found;
  }

  function handler(req: Request, info: Deno.ServeHandlerInfo): Response | Promise<Response> {
    const m = match(req) as Match;
    m.info = info;
    if (m.handler) return m.handler(req, m);
    return m.allow.length > 0 ? methodNotAllowed(req, m) : notFound(req, m);
  }

  return { handler, match, routeOf: (req) => match(req).route, routes };
}

/**
 * The one 404 of the problem dialect for a path no route owns: `not_found`, detail
 * `Cannot find <path>: <why>` (default why: `no route for this path`); the error boundary adds
 * `instance` (the path). Every table's default, and what a service's own `notFound` hook throws
 * when it knows better why (a listener that serves only part of the paths, say), so every
 * service answers an unknown path with the same body.
 *
 * @example Usage
 * ```ts
 * import { notFoundError } from "@svc/shared/http";
 * import assert from "node:assert/strict";
 * const err = notFoundError("/x", "only /metrics is served here");
 * assert.equal(err.message, "Cannot find /x: only /metrics is served here");
 * ```
 */
export function notFoundError(pathname: string, why = "no route for this path"): HttpError {
  return new HttpError(404, "not_found", `Cannot find ${pathname}: ${why}`);
}

function defaultNotFound(_req: Request, ctx: FallbackContext): never {
  throw notFoundError(ctx.url.pathname);
}

function defaultMethodNotAllowed(req: Request, ctx: FallbackContext): never {
  throw new HttpError(
    405,
    "method_not_allowed",
    `Cannot ${req.method} ${ctx.url.pathname}: allowed are ${ctx.allow.join(", ")}`,
    { headers: { allow: ctx.allow.join(", ") } },
  );
}

/**
 * The OpenAPI `paths` object of a table: one path item per pattern (`/v1/todos/:id` becomes
 * `/v1/todos/{id}`), one operation per method of every route that carries `openapi`.
 *
 * @example Usage
 * ```ts
 * import { openapiPaths } from "@svc/shared/http";
 * import assert from "node:assert/strict";
 *
 * const paths = openapiPaths([
 *   { method: "GET", pattern: "/v1/todos/:id", handler: () => new Response(), openapi: {} },
 * ]);
 * assert.deepEqual(Object.keys(paths), ["/v1/todos/{id}"]);
 * ```
 */
export function openapiPaths(
  routes: readonly Route[],
): Record<string, Record<string, Record<string, unknown>>> {
  const paths: Record<string, Record<string, Record<string, unknown>>> = {};
  for (const route of routes) {
    if (!route.openapi) continue;
    const pathname = typeof route.pattern === "string" ? route.pattern : route.pattern.pathname;
    const item = paths[openapiPathOf(pathname)] ??= {};
    const methods = typeof route.method === "string" ? [route.method] : route.method;
    for (const method of methods) {
      // HEAD beside GET is the same operation; one operationId must not appear twice.
      if (method === "*" || (method === "HEAD" && methods.includes("GET"))) continue;
      item[method.toLowerCase()] = route.openapi;
    }
  }
  return paths;
}
