/**
 * The todo-api HTTP handler: one route table (operational routes without a key, `/schemas/*`,
 * and the `/v1` routes behind authentication and the deny-by-default policy) inside the kit's
 * default stack. Every error leaves through one place (`errorSchemaJson`, built on the kit's
 * `problemOf`) and gets Huma's `$schema` + `Link` decoration.
 * @module
 */
import { HttpError } from "@svc/shared/problem";
import { createRouter, type Handler, type Route, withDefaultStack } from "@svc/shared/http";
import { readinessHandler } from "@svc/shared/health";
import type { Logger } from "@svc/shared/log";
import type { Metrics } from "@svc/shared/metrics";
import { operationalRoutes } from "@svc/shared/operational";
import { createApiKeyStore, type Principal } from "./auth/api_keys.ts";
import { createAuthenticator } from "./auth/authenticate.ts";
import { createKeyChanges, type KeyChanges } from "./auth/key_changes.ts";
import { createKeyRoutes } from "./auth/key_routes.ts";
import { ANONYMOUS } from "./auth/policy.ts";
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
import { errorSchemaJson, SCHEMAS_PATH } from "./http/schema_link.ts";
import { standaloneSchema } from "./http/schemas.ts";
import type { Migrator } from "./migrate/migrator.ts";
import type { Db } from "./store/db.ts";
import { databaseUnavailable, withSafeReason } from "./store/db_errors.ts";
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

function pathId(segment: string | undefined): string {
  try {
    return decodeURIComponent(segment ?? "");
  } catch {
    return segment ?? ""; // malformed escapes: no todo has such an id, so it ends as 404
  }
}

/** SQLSTATE 42P01 (undefined table): serving before `migrate up` is a 503, not a 500. */
function unmigrated(err: unknown): HttpError | undefined {
  if ((err as { code?: unknown })?.code !== "42P01") return undefined;
  return new HttpError(
    503,
    "schema_missing",
    "the database schema is not migrated yet; see /readyz",
    { headers: { "retry-after": "5" }, cause: err },
  );
}

/**
 * Builds the API handler: the route table inside the kit's default stack (request id, metrics,
 * access log, errors as `$schema`-decorated problems, request timeout).
 */
export function createApp(deps: AppDeps): Handler {
  const authzEnabled = deps.authzEnabled ?? true;
  const keys = createApiKeyStore(deps.db);
  const keyChanges = deps.keyChanges ?? createKeyChanges();
  const now = deps.now ?? Date.now;
  const authenticate = createAuthenticator({
    findByDigest: keys.findByDigest,
    cacheTtlMs: deps.keyCacheTtlMs,
    changes: keyChanges,
    now,
  });
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
  const todos = createTodoRoutes({
    todos: createTodoStore(deps.db),
    cursorCodec,
    maxBodyBytes: deps.maxBodyBytes ?? 1024 * 1024,
    bodyTimeoutMs: deps.bodyTimeoutMs ?? 5000,
  });
  const keyRoutes = createKeyRoutes({
    keys,
    changes: keyChanges,
    cursorCodec,
    logger: deps.logger,
    now,
    maxBodyBytes: deps.maxBodyBytes ?? 1024 * 1024,
    bodyTimeoutMs: deps.bodyTimeoutMs ?? 5000,
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

  async function principalOf(req: Request): Promise<Principal> {
    return authzEnabled ? await authenticate(req) : ANONYMOUS;
  }

  const routes: Route[] = [
    ...operationalRoutes({
      readiness: ready, // no-store, as every readiness answer
      openapi: {
        document: () => openapiDocument(deps.version ?? "0.0.0", routes),
        title: "todo-api",
      },
      docs: OPERATIONAL_DOCS,
    }),
    {
      method: "GET",
      pattern: "/v1/todos",
      handler: async (req, ctx) => await todos.list(req, await principalOf(req), ctx.url),
      openapi: LIST_TODOS,
    },
    {
      method: "POST",
      pattern: "/v1/todos",
      handler: async (req) => await todos.create(req, await principalOf(req)),
      openapi: CREATE_TODO,
    },
    {
      method: "GET",
      pattern: "/v1/todos/:id",
      handler: async (req, ctx) =>
        await todos.get(req, await principalOf(req), pathId(ctx.params.id)),
      openapi: GET_TODO,
    },
    {
      method: "POST",
      pattern: "/v1/todos/:id/complete",
      handler: async (req, ctx) =>
        await todos.complete(req, await principalOf(req), pathId(ctx.params.id)),
      openapi: COMPLETE_TODO,
    },
    {
      method: "GET",
      pattern: "/v1/keys",
      handler: async (req, ctx) => await keyRoutes.list(req, await principalOf(req), ctx.url),
      openapi: LIST_KEYS,
    },
    {
      method: "POST",
      pattern: "/v1/keys",
      handler: async (req) => await keyRoutes.create(req, await principalOf(req)),
      openapi: CREATE_KEY,
    },
    {
      method: "GET",
      pattern: "/v1/keys/:id",
      handler: async (req, ctx) =>
        await keyRoutes.get(req, await principalOf(req), pathId(ctx.params.id)),
      openapi: GET_KEY,
    },
    {
      method: "POST",
      pattern: "/v1/keys/:id/revoke",
      handler: async (req, ctx) =>
        await keyRoutes.revoke(req, await principalOf(req), pathId(ctx.params.id)),
      openapi: REVOKE_KEY,
    },
    {
      method: "GET",
      pattern: `${SCHEMAS_PATH}/:name.json`,
      label: `${SCHEMAS_PATH}/{name}`,
      handler: (_req, ctx) => {
        const name = ctx.params.name!;
        const schema = /^[A-Za-z]+$/.test(name) ? standaloneSchema(name) : undefined;
        if (!schema) throw new HttpError(404, "not_found", "no schema of this name");
        return Response.json(schema);
      },
    },
  ];

  return withDefaultStack(createRouter(routes), {
    logger: deps.logger,
    metrics: deps.metrics,
    requestTimeoutMs: deps.requestTimeoutMs ?? 15_000,
    renderError: (req, err) =>
      errorSchemaJson(req, unmigrated(err) ?? databaseUnavailable(err) ?? err, {
        logger: deps.logger,
      }),
  });
}
