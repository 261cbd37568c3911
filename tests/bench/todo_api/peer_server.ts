/**
 * The todo-api benchmark's peer: create and first-page list written the way a TypeScript team
 * would write them with the libraries such teams already use, on the tables todo-api migrates —
 * Hono 4.13.19 (its `requestId` and `timeout` middleware), pino 10.4.0 (one JSON access line per
 * request), prom-client 15.1.3 (a request counter and a duration histogram by method, route and
 * status, served at `/metrics`), zod 4.6.7 (the create body and the list query) and postgres.js
 * 3.4.9 (tagged-template queries). API keys are checked as todo-api checks them: the SHA-256
 * digest of `X-API-Key` or `Authorization: Bearer` looked up in `api_keys`, the answer cached in
 * memory for 5 s; the list's `nextCursor` is todo-api's signed cursor (base64url JSON, a dot,
 * base64url HMAC-SHA-256 over it and the owner scope) with the same key, read from
 * `server_secrets`. Statuses, headers and JSON shapes are todo-api's for these routes (`run.ts
 * --check` compares them). Not a product: no schema routes, no shutdown drain, no body limit.
 *
 *   deno run -A tests/bench/todo_api/peer_server.ts <database-url> <pool>
 *
 * Announces itself with pino's `server_listening` line (`listener`, `url`), so `startService`
 * can wait for it.
 */
import { Hono } from "hono";
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { requestId, type RequestIdVariables } from "hono/request-id";
import { timeout } from "hono/timeout";
import { routePath } from "hono/route";
import { pino } from "pino";
import { Counter, Histogram, Registry } from "prom-client";
import { z } from "zod";
import postgres from "postgres";
import { createHash, createHmac, timingSafeEqual } from "node:crypto";

const [databaseUrl, pool = "10"] = Deno.args;

// pino's "asynchronous logging" destination (its documentation's advice for throughput): lines
// gather up to 4 KiB per write, as todo-api's logger gathers its lines for up to 10 ms. With the
// default destination (a write per line through node:fs) this process spent about a tenth of its
// CPU in those writes under load.
const logger = pino(
  {
    base: { "service.name": "todo-api-peer" },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
  },
  pino.destination({ dest: 1, minLength: 4096, sync: false }),
);

const registry = new Registry();
const requestsTotal = new Counter({
  name: "http_requests_total",
  help: "HTTP requests answered",
  labelNames: ["method", "route", "status"],
  registers: [registry],
});
const requestDuration = new Histogram({
  name: "http_request_duration_seconds",
  help: "HTTP request duration",
  labelNames: ["method", "route", "status"],
  buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});

// The same pool settings as todo-api's (store/postgres_db.ts), so the database does the same work.
const sql = postgres(databaseUrl, {
  max: Number(pool),
  onnotice: () => {},
  connection: { plan_cache_mode: "force_generic_plan" },
});

type Principal = { subject: string; roles: string[]; expiresAt: Date | null };
type Env = {
  Bindings: Deno.ServeHandlerInfo<Deno.NetAddr>;
  Variables: RequestIdVariables & { user: Principal };
};

// --- problems (RFC 9457, todo-api's ErrorModel) -------------------------------------------------

const STATUS_TITLES: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  415: "Unsupported Media Type",
  422: "Unprocessable Content",
  500: "Internal Server Error",
  503: "Service Unavailable",
};

type ErrorDetail = { location: string; message: string; value?: unknown };

function schemaUrl(c: Context, name: string): string {
  return `${new URL(c.req.url).origin}/schemas/${name}.json`;
}

function describedBy(name: string): string {
  return `</schemas/${name}.json>; rel="describedBy"`;
}

function problem(
  c: Context,
  status: number,
  detail: string,
  errors?: ErrorDetail[],
  headers: Record<string, string> = {},
): Response {
  const body = {
    $schema: schemaUrl(c, "ErrorModel"),
    type: "about:blank",
    title: STATUS_TITLES[status] ?? "Error",
    status,
    detail,
    ...(errors ? { errors } : {}),
  };
  return c.body(JSON.stringify(body), status as 400, {
    "Content-Type": "application/problem+json",
    Link: describedBy("ErrorModel"),
    ...headers,
  });
}

class ProblemError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly errors?: ErrorDetail[],
    readonly headers?: Record<string, string>,
  ) {
    super(detail);
  }
}

const unauthorized = (detail: string) =>
  new ProblemError(401, detail, undefined, { "WWW-Authenticate": 'Bearer realm="todo-api"' });

function zodErrors(error: z.ZodError, where: string, input: unknown): ErrorDetail[] {
  return error.issues.map((issue) => {
    let value: unknown = input;
    for (const key of issue.path) value = (value as Record<PropertyKey, unknown>)?.[key];
    const path = [where, ...issue.path.map(String)].join(".");
    return { location: path, message: issue.message, value };
  });
}

// --- API keys: SHA-256 digest, looked up in api_keys, cached for 5 s --------------------------

const KEY_CACHE_TTL_MS = 5000;
const keyCache = new Map<string, { principal: Principal | null; until: number }>();

async function findKey(digest: string): Promise<Principal | null> {
  const cached = keyCache.get(digest);
  if (cached && cached.until > Date.now()) return cached.principal;
  const [row] = await sql<Principal[]>`
    select subject, roles, expires_at as "expiresAt"
    from api_keys where digest = ${digest} and revoked_at is null`;
  const principal = row ?? null;
  keyCache.set(digest, { principal, until: Date.now() + KEY_CACHE_TTL_MS });
  return principal;
}

function presentedKey(c: Context): string | undefined {
  const apiKey = c.req.header("x-api-key")?.trim() || undefined;
  const authorization = c.req.header("authorization")?.trim() || undefined;
  let bearer: string | undefined;
  if (authorization) {
    const match = /^Bearer +(\S+)\s*$/i.exec(authorization);
    if (!match) throw unauthorized("Authorization header must be: Bearer <API key>");
    bearer = match[1];
  }
  if (apiKey && bearer && apiKey !== bearer) {
    throw unauthorized("X-API-Key and Authorization carry different keys");
  }
  return apiKey ?? bearer;
}

/** Whose todos the caller sees: its own (`user`), everyone's (`admin`, null). */
function ownerScope(user: Principal): string | null {
  return user.roles.includes("admin") ? null : user.subject;
}

// --- the cursor: todo-api's format and key ------------------------------------------------------

const cursorSecret = await (async () => {
  const fresh = createHash("sha256").update(crypto.randomUUID()).digest("hex");
  await sql`insert into server_secrets (name, value) values ('cursor_hmac', ${fresh})
    on conflict (name) do nothing`;
  const [row] = await sql<{ value: string }[]>`
    select value from server_secrets where name = 'cursor_hmac'`;
  return Buffer.from(row.value, "hex");
})();

const cursorSchema = z.object({
  v: z.literal(1),
  t: z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/),
  i: z.uuid(),
});
type Position = { t: string; i: string };

function signCursor(payload: string, scope: string | null): Buffer {
  return createHmac("sha256", cursorSecret)
    .update(`${payload}\n${scope === null ? "*" : `=${scope}`}`)
    .digest();
}

function encodeCursor(position: Position, scope: string | null): string {
  const payload = Buffer.from(JSON.stringify({ v: 1, ...position })).toString("base64url");
  return `${payload}.${signCursor(payload, scope).toString("base64url")}`;
}

function decodeCursor(cursor: string, scope: string | null): Position {
  const invalid = new ProblemError(400, "invalid cursor", [
    { location: "query.cursor", message: "invalid cursor" },
  ]);
  const [payload, mac, ...rest] = cursor.split(".");
  if (!payload || !mac || rest.length) throw invalid;
  const given = Buffer.from(mac, "base64url");
  const expected = signCursor(payload, scope);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid;
  try {
    return cursorSchema.parse(JSON.parse(Buffer.from(payload, "base64url").toString("utf8")));
  } catch {
    throw invalid;
  }
}

// --- todos --------------------------------------------------------------------------------------

type TodoRow = {
  id: string;
  title: string;
  status: "open" | "completed";
  createdAt: string;
  completedAt: string | null;
};

// The same columns as todo-api's store: RFC 3339 with microseconds, from the database.
const columns = sql`id::text as id, title, status,
  to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as "createdAt",
  to_char(completed_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as "completedAt"`;

function toTodo({ completedAt, ...todo }: TodoRow) {
  return completedAt === null ? todo : { ...todo, completedAt };
}

const createTodoBody = z.strictObject({
  title: z.string().min(1).max(200),
  $schema: z.string().optional(),
});

const listQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z.string().max(512).optional(),
});

// --- the app ------------------------------------------------------------------------------------

const app = new Hono<Env>();

app.use(requestId());

// One access line and the two metrics per request.
app.use(async (c, next) => {
  const start = performance.now();
  await next();
  const seconds = (performance.now() - start) / 1000;
  const labels = { method: c.req.method, route: routePath(c, -1), status: c.res.status };
  requestsTotal.inc(labels);
  requestDuration.observe(labels, seconds);
  logger.info({
    method: c.req.method,
    path: c.req.path,
    route: labels.route,
    status: c.res.status,
    durationMs: Math.round(seconds * 100_000) / 100,
    requestId: c.get("requestId"),
    remote: c.env.remoteAddr.hostname,
  }, "request");
});

app.use(
  timeout(
    15_000,
    () => new HTTPException(503, { message: "Cannot answer: the request took too long" }),
  ),
);

app.get("/metrics", async (c) => {
  return c.text(await registry.metrics(), 200, { "Content-Type": registry.contentType });
});

app.use("/v1/*", async (c, next) => {
  const key = presentedKey(c);
  if (!key) throw unauthorized("missing API key");
  const user = await findKey(createHash("sha256").update(key).digest("hex"));
  if (!user || (user.expiresAt && user.expiresAt.getTime() <= Date.now())) {
    throw unauthorized("unknown API key");
  }
  if (!user.roles.includes("user") && !user.roles.includes("admin")) {
    throw new ProblemError(403, `the key's roles do not permit todos.${c.req.method}`);
  }
  c.set("user", user);
  await next();
});

app.post("/v1/todos", async (c) => {
  const type = c.req.header("content-type") ?? "";
  if (!type.trim()) throw new ProblemError(415, "expected Content-Type: application/json");
  if (!/^application\/([\w.+-]+\+)?json\b/i.test(type)) {
    throw new ProblemError(415, "expected application/json");
  }
  const text = await c.req.text();
  if (!text) throw new ProblemError(400, "request body is required");
  let input: unknown;
  try {
    input = JSON.parse(text);
  } catch {
    throw new ProblemError(400, "malformed JSON", [
      { location: "body", message: "malformed JSON", value: text.slice(0, 100) },
    ]);
  }
  const parsed = createTodoBody.safeParse(input);
  if (!parsed.success) {
    throw new ProblemError(422, "validation failed", zodErrors(parsed.error, "body", input));
  }
  const [row] = await sql<TodoRow[]>`
    insert into todos (owner, title) values (${c.var.user.subject}, ${parsed.data.title})
    returning ${columns}`;
  return c.json({ $schema: schemaUrl(c, "Todo"), ...toTodo(row) }, 201, {
    Location: `/v1/todos/${row.id}`,
    Link: describedBy("Todo"),
  });
});

app.get("/v1/todos", async (c) => {
  const query = c.req.query();
  const parsed = listQuery.safeParse(query);
  if (!parsed.success) {
    throw new ProblemError(422, "validation failed", zodErrors(parsed.error, "query", query));
  }
  const { limit, cursor } = parsed.data;
  const scope = ownerScope(c.var.user);
  const after = cursor === undefined ? undefined : decodeCursor(cursor, scope);
  const rows = await sql<TodoRow[]>`
    select ${columns} from todos
    where true
      ${scope === null ? sql`` : sql`and owner = ${scope}`}
      ${
    after ? sql`and (created_at, id) > (${after.t}::text::timestamptz, ${after.i}::uuid)` : sql``
  }
    order by todos.created_at, todos.id
    limit ${limit + 1}`;
  const todos = rows.slice(0, limit).map(toTodo);
  const last = todos.at(-1);
  const body = {
    $schema: schemaUrl(c, "ListTodosOutputBody"),
    todos,
    ...(rows.length > limit && last
      ? { nextCursor: encodeCursor({ t: last.createdAt, i: last.id }, scope) }
      : {}),
  };
  return c.json(body, 200, { Link: describedBy("ListTodosOutputBody") });
});

app.notFound((c) => problem(c, 404, `Cannot find ${c.req.path}: no route for this path`));

app.onError((err, c) => {
  if (err instanceof ProblemError) {
    return problem(c, err.status, err.detail, err.errors, err.headers);
  }
  if (err instanceof HTTPException) return problem(c, err.status, err.message);
  logger.error({ err, requestId: c.get("requestId") }, "request failed");
  return problem(c, 500, "internal error");
});

Deno.serve({
  hostname: "127.0.0.1",
  port: 0,
  onListen: ({ port }) => {
    logger.info({ listener: "api", url: `http://127.0.0.1:${port}` }, "server_listening");
    logger.flush();
  },
}, app.fetch);
// Exit through Deno.exit, so that `--cpu-prof` writes its profile.
Deno.addSignalListener("SIGINT", () => Deno.exit(0));
