/**
 * The todo-api HTTP handler: operational routes (no key), `/schemas/*`, and the `/v1` routes
 * behind authentication and the deny-by-default policy. Every error leaves through one place
 * (`errorSchemaJson`, built on the kit's `problemOf`) and gets Huma's `$schema` + `Link` decoration.
 * @module
 */
import { HttpError } from "@svc/shared/problem";
import type { Handler } from "@svc/shared/http";
import { healthHandler, readinessHandler } from "@svc/shared/health";
import type { Logger } from "@svc/shared/log";
import { createApiKeyStore, type Principal } from "./auth/api_keys.ts";
import { createAuthenticator } from "./auth/authenticate.ts";
import { ANONYMOUS } from "./auth/policy.ts";
import { errorSchemaJson, SCHEMAS_PATH } from "./http/schema_link.ts";
import { standaloneSchema } from "./http/schemas.ts";
import type { Migrator } from "./migrate/migrator.ts";
import type { Db } from "./store/db.ts";
import { databaseUnavailable, withSafeReason } from "./store/db_errors.ts";
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
  /** Serves `/openapi.*` and `/docs`; returns undefined for other paths. */
  docs?: (req: Request) => Response | undefined | Promise<Response | undefined>;
}

const TODO_PATH = /^\/v1\/todos\/([^/]+)$/;
const COMPLETE_PATH = /^\/v1\/todos\/([^/]+)\/complete$/;
const SCHEMA_PATH = new RegExp(`^${SCHEMAS_PATH}/([A-Za-z]+)\\.json$`);

function pathId(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment; // malformed escapes: no todo has such an id, so it ends as 404
  }
}

function methodNotAllowed(allow: string): HttpError {
  return new HttpError(405, "method_not_allowed", "method not allowed", {
    headers: { allow },
  });
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

/** The route template of a request path, for metrics labels. */
export function routeOf(path: string): string {
  if (path === "/v1/todos") return "/v1/todos";
  if (COMPLETE_PATH.test(path)) return "/v1/todos/{id}/complete";
  if (TODO_PATH.test(path)) return "/v1/todos/{id}";
  if (SCHEMA_PATH.test(path)) return "/schemas/{name}";
  if (["/healthz", "/readyz", "/openapi.json", "/openapi.yaml"].includes(path)) return path;
  if (path === "/docs" || path.startsWith("/docs/")) return "/docs";
  return "unmatched";
}

/** Builds the API handler. */
export function createApp(deps: AppDeps): Handler {
  const authzEnabled = deps.authzEnabled ?? true;
  const keys = createApiKeyStore(deps.db);
  const authenticate = createAuthenticator({
    findByDigest: keys.findByDigest,
    cacheTtlMs: deps.keyCacheTtlMs,
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
  const ready = readinessHandler({
    datastore: () => withSafeReason(() => deps.db.ping()),
    migrations: async () => {
      let pending: { version: number }[] = [];
      await withSafeReason(async () => void (pending = await deps.migrator.pending()));
      if (pending.length > 0) {
        throw new Error(`${pending.length} pending: ${pending.map((m) => m.version).join(", ")}`);
      }
    },
  }, { timeoutMs: 2000 });

  async function principalOf(req: Request): Promise<Principal> {
    return authzEnabled ? await authenticate(req) : ANONYMOUS;
  }

  async function route(req: Request): Promise<Response> {
    const path = new URL(req.url).pathname;
    const method = req.method;
    if (path === "/healthz") return healthHandler();
    if (path === "/readyz") {
      return await ready(req); // no-store, as every readiness answer
    }
    if (path === "/v1/todos") {
      if (method === "GET") return await todos.list(req, await principalOf(req));
      if (method === "POST") return await todos.create(req, await principalOf(req));
      throw methodNotAllowed("GET, POST");
    }
    let match = COMPLETE_PATH.exec(path);
    if (match) {
      if (method !== "POST") throw methodNotAllowed("POST");
      return await todos.complete(req, await principalOf(req), pathId(match[1]));
    }
    match = TODO_PATH.exec(path);
    if (match) {
      if (method !== "GET") throw methodNotAllowed("GET");
      return await todos.get(req, await principalOf(req), pathId(match[1]));
    }
    match = SCHEMA_PATH.exec(path);
    if (match) {
      const schema = standaloneSchema(match[1]);
      if (schema) return Response.json(schema);
    }
    const docs = await deps.docs?.(req);
    if (docs) return docs;
    throw new HttpError(404, "not_found", "no route for this path");
  }

  return async (req) => {
    try {
      return await route(req);
    } catch (err) {
      return errorSchemaJson(req, unmigrated(err) ?? databaseUnavailable(err) ?? err, {
        logger: deps.logger,
      });
    }
  };
}
