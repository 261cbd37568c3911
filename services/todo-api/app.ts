/**
 * The todo-api HTTP handler from one route table: the operational rows without a key, the `/v1`
 * rows each naming the policy action its caller must be allowed (`auth`: the key is checked
 * once, before the handler, by `auth/route_auth.ts`), and `/schemas/*`; inside the kit's default
 * stack, whose one error boundary is `http/error_boundary.ts`.
 * @module
 */
import { HttpError } from "@svc/shared/problem";
import {
  createRouter,
  type Handler,
  type Route,
  type RouteHandler,
  withDefaultStack,
} from "@svc/shared/http";
import { readinessHandler } from "@svc/shared/health";
import type { Logger } from "@svc/shared/log";
import type { Metrics } from "@svc/shared/metrics";
import { operationalRoutes } from "@svc/shared/operational";
import { createApiKeyStore } from "./auth/api_keys.ts";
import { createAuthenticator } from "./auth/authenticate.ts";
import { createKeyChanges, type KeyChanges } from "./auth/key_changes.ts";
import { createKeyRoutes } from "./auth/key_routes.ts";
import { withRouteAuth } from "./auth/route_auth.ts";
import { errorSchemaJson } from "./http/error_boundary.ts";
import {
  COMPLETE_TODO,
  CREATE_KEY,
  CREATE_TODO,
  GET_KEY,
  GET_TODO,
  LIST_KEYS,
  LIST_TODOS,
  openapiDocument,
  OPERATIONAL_DOCS,
  REVOKE_KEY,
} from "./http/openapi_document.ts";
import { SCHEMAS_PATH } from "./http/schema_link.ts";
import { standaloneSchema } from "./http/schemas.ts";
import type { Migrator } from "./migrate/migrator.ts";
import type { Db } from "./store/db.ts";
import { withSafeReason } from "./store/db_errors.ts";
import { notOpen } from "./store/opening_db.ts";
import { createCursorCodec, type CursorCodec } from "./todos/cursor.ts";
import { loadCursorSecret } from "./todos/cursor_secret.ts";
import { createTodoRoutes } from "./todos/routes.ts";
import { createTodoStore } from "./todos/todo_store.ts";

/** What {@linkcode createApp} needs. */
export interface AppDeps {
  /** The datastore. */
  db: Db;
  /** Only `pending()` is used: readiness reports unapplied migrations. */
  migrator: Pick<Migrator, "pending">;
  /** Gets access and error lines. */
  logger: Logger;
  /** Whether API keys are required on `/v1`. @default true */
  authzEnabled?: boolean;
  /** Operator-set cursor key; when empty the key stored in the database is used. */
  cursorSecret?: string;
  /** Largest accepted request body. @default 1048576 (Huma's MaxBodyBytes) */
  maxBodyBytes?: number;
  /** How long a looked-up API key is cached. @default 5000 */
  keyCacheTtlMs?: number;
  /** A request body must arrive within this time (408 otherwise). @default 5000 */
  bodyTimeoutMs?: number;
  /** HTTP request counts and latencies by route; omitted in tests that do not look. */
  metrics?: Metrics;
  /** Bound on the time to the response head (503 `request_timeout`). @default 15000 */
  requestTimeoutMs?: number;
  /** Service version in the OpenAPI document. @default "0.0.0" */
  version?: string;
  /** The lifecycle's shutdown-started signal: once aborted, `/readyz` reports `draining`. */
  shutdownSignal?: AbortSignal;
  /**
   * The key-change generation shared by every isolate of this process (`serve --workers`): a
   * key revoked through any of them is refused by all on the next request.
   * @default a counter of this app alone
   */
  keyChanges?: KeyChanges;
  /** The clock key expiry is judged by (epoch ms). @default Date.now */
  now?: () => number;
}

/** The API handler, and the route table it was built from (for the contract test). */
export type App = Handler & {
  /** The table's rows, as the router got them (`auth` rows wrapped). */
  readonly routes: readonly Route[];
};

/** `GET /schemas/{name}.json`: one schema of the API, standalone. */
const schemaFile: RouteHandler = (_req, ctx) => {
  const name = ctx.params.name!;
  const schema = /^[A-Za-z]+$/.test(name) ? standaloneSchema(name) : undefined;
  if (!schema) throw new HttpError(404, "not_found", "no schema of this name");
  return Response.json(schema);
};

/**
 * Builds the API handler: the route table inside the kit's default stack (request id, metrics,
 * access log, the error boundary, request timeout).
 */
export function createApp(deps: AppDeps): App {
  const keyStore = createApiKeyStore(deps.db);
  const keyChanges = deps.keyChanges ?? createKeyChanges();
  const now = deps.now ?? Date.now;
  const authenticate = (deps.authzEnabled ?? true)
    ? createAuthenticator({
      findByDigest: keyStore.findByDigest,
      cacheTtlMs: deps.keyCacheTtlMs,
      changes: keyChanges,
      now,
    })
    : undefined; // every caller acts as an admin (`--authz-enabled=false`)
  // The stored cursor key may not exist before `migrate up`, so it is read on first use and a
  // failure is retried on the next request.
  let codec: Promise<CursorCodec> | undefined;
  function cursorCodec(): Promise<CursorCodec> {
    codec ??= loadCursorSecret(deps.db, { configured: deps.cursorSecret })
      .then(createCursorCodec)
      .catch((err) => {
        codec = undefined;
        throw err;
      });
    return codec;
  }
  const body = {
    maxBodyBytes: deps.maxBodyBytes ?? 1024 * 1024,
    bodyTimeoutMs: deps.bodyTimeoutMs ?? 5000,
  };
  const todos = createTodoRoutes({ todos: createTodoStore(deps.db), cursorCodec, ...body });
  const keys = createKeyRoutes({
    keys: keyStore,
    changes: keyChanges,
    cursorCodec,
    logger: deps.logger,
    now,
    ...body,
  });
  const ready = readinessHandler({
    datastore: () => withSafeReason(() => deps.db.ping()),
    migrations: async () => {
      let pending: { version: number }[] = [];
      await withSafeReason(async () => {
        // While `serve` opens the datastore, readiness answers at once instead of waiting.
        const opening = notOpen(deps.db);
        if (opening) throw opening;
        pending = await deps.migrator.pending();
      });
      if (pending.length > 0) {
        throw new Error(`${pending.length} pending: ${pending.map((m) => m.version).join(", ")}`);
      }
    },
  }, { timeoutMs: 2000, shutdownSignal: deps.shutdownSignal });
  const operational = operationalRoutes({
    readiness: ready, // no-store, as every readiness answer
    openapi: {
      document: () => openapiDocument(deps.version ?? "0.0.0", routes),
      title: "todo-api",
    },
    docs: OPERATIONAL_DOCS,
  });

  // deno-fmt-ignore -- one row per line, so the table reads as one
  const routes = withRouteAuth([
    ...operational,
    { method: "GET",  pattern: "/v1/todos",               auth: "todos.list",     handler: todos.list,     openapi: LIST_TODOS },
    { method: "POST", pattern: "/v1/todos",               auth: "todos.create",   handler: todos.create,   openapi: CREATE_TODO },
    { method: "GET",  pattern: "/v1/todos/:id",           auth: "todos.get",      handler: todos.get,      openapi: GET_TODO },
    { method: "POST", pattern: "/v1/todos/:id/complete",  auth: "todos.complete", handler: todos.complete, openapi: COMPLETE_TODO },
    { method: "GET",  pattern: "/v1/keys",                auth: "keys.list",      handler: keys.list,      openapi: LIST_KEYS },
    { method: "POST", pattern: "/v1/keys",                auth: "keys.create",    handler: keys.create,    openapi: CREATE_KEY },
    { method: "GET",  pattern: "/v1/keys/:id",            auth: "keys.get",       handler: keys.get,       openapi: GET_KEY },
    { method: "POST", pattern: "/v1/keys/:id/revoke",     auth: "keys.revoke",    handler: keys.revoke,    openapi: REVOKE_KEY },
    { method: "GET",  pattern: `${SCHEMAS_PATH}/:name.json`, label: `${SCHEMAS_PATH}/{name}`, handler: schemaFile },
  ], { authenticate: authenticate?.resolve });

  const handler = withDefaultStack(createRouter(routes), {
    logger: deps.logger,
    metrics: deps.metrics,
    requestTimeoutMs: deps.requestTimeoutMs ?? 15_000,
    renderError: (req, err) => errorSchemaJson(req, err, { logger: deps.logger }),
  });
  return Object.assign(handler, { routes });
}
