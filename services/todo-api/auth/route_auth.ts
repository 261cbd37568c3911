/**
 * Authentication as a property of a route row: a row of `app.ts`'s table that names a policy
 * action (`auth: "todos.create"`) gets its caller authenticated (401, `authenticate.ts`) and
 * authorized for that action (403, `policy.ts`), in that order, before its handler runs; the
 * handler finds the caller in its context (`ctx.principal`). Rows without `auth` are public.
 * @module
 */
import type { Route, RouteContext, RouteHandler } from "@svc/shared/http";
import type { Principal } from "./api_keys.ts";
import { type Action, ANONYMOUS, authorize } from "./policy.ts";

/** The context of a handler behind `auth`: the route's, and the caller it let through. */
export interface AuthedContext extends RouteContext {
  /** The caller, authenticated and allowed the row's action. */
  principal: Principal;
}

/** A handler behind `auth`. */
export type AuthedHandler = (req: Request, ctx: AuthedContext) => Promise<Response>;

/** A row of the app's route table: a kit route, or one behind `auth`. */
export type AppRoute =
  | Route
  | (Omit<Route, "handler"> & {
    /** The policy action the caller's key must be allowed. */
    auth: Action;
    handler: AuthedHandler;
  });

/**
 * The kit's route rows of `routes`: each row with `auth` gets its handler wrapped, once, here.
 * `authenticate` is undefined when authorization is off (`--authz-enabled=false`): every caller
 * is then {@linkcode ANONYMOUS}, an admin.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { createRouter, localInfo } from "@svc/shared/http";
 * import { type AuthedContext, withRouteAuth } from "./route_auth.ts";
 *
 * const whoAmI = (_req: Request, ctx: AuthedContext) =>
 *   Promise.resolve(Response.json({ subject: ctx.principal.subject }));
 * const routes = [{ method: "GET", pattern: "/v1/todos", auth: "todos.list", handler: whoAmI }] as const;
 * const router = createRouter(withRouteAuth(routes, { authenticate: undefined }));
 * const res = await router.handler(new Request("http://x/v1/todos"), localInfo());
 * assert.deepEqual(await res.json(), { subject: "anonymous" });
 * ```
 */
export function withRouteAuth(
  routes: readonly AppRoute[],
  options: { authenticate: ((req: Request) => Principal | Promise<Principal>) | undefined },
): Route[] {
  const { authenticate } = options;
  return routes.map((row) => {
    if (!("auth" in row)) return row;
    const { auth: action, handler, ...route } = row;
    const allowed = (req: Request, ctx: RouteContext, principal: Principal) => {
      authorize(principal, action);
      // The router made this context for this request alone: the caller joins it, no copy.
      (ctx as AuthedContext).principal = principal;
      return handler(req, ctx as AuthedContext);
    };
    // Not async: a cached key is checked without a promise (a 401 or 403 is thrown to the
    // stack's error boundary either way); only a key's first lookup waits.
    const guarded: RouteHandler = (req, ctx) => {
      const principal = authenticate ? authenticate(req) : ANONYMOUS;
      if (principal instanceof Promise) return principal.then((p) => allowed(req, ctx, p));
      return allowed(req, ctx, principal);
    };
    return { ...route, handler: guarded };
  });
}
