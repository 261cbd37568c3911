/**
 * Liveness and readiness routes. Liveness never touches dependencies; readiness runs named checks
 * concurrently, each bounded in time, and answers 503 when any of them fails.
 *
 * @module
 */

/** A readiness check: resolves when healthy, throws (with a short reason) when not. */
export type ReadinessCheck = () => Promise<void> | void;

function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", "cache-control": "no-store" },
  });
}

/**
 * `GET /healthz`: 200 `{"status":"ok"}` while the process runs.
 *
 * @example Usage
 * ```ts
 * import { healthHandler } from "@svc/shared/health";
 * (await healthHandler().json()).status; // "ok"
 * ```
 */
export function healthHandler(): Response {
  return json({ status: "ok" });
}

/**
 * `GET /readyz`: runs every named check (each within `timeoutMs`) and answers
 * 200 `{status:"ready", checks:{name:{status:"ok"}}}` or
 * 503 `{status:"not_ready", checks:{name:{status:"fail", error:"…"}}}`. Once `shutdownSignal`
 * aborts (the lifecycle's shutdown-started signal) it answers
 * 503 `{status:"not_ready", reason:"draining", checks:{}}` without running the checks, since the
 * dependencies they touch are about to close. For a readiness that never waits on a dependency,
 * see `createReadinessProbe` (`@svc/shared/lifecycle`).
 *
 * @example Usage
 * ```ts
 * import { readinessHandler } from "@svc/shared/health";
 * const readyz = readinessHandler({ datastore: async () => {} });
 * (await readyz(new Request("http://x/readyz"))).status; // 200
 * ```
 */
export function readinessHandler(
  checks: Record<string, ReadinessCheck>,
  options: { timeoutMs?: number; shutdownSignal?: AbortSignal } = {},
): (req: Request) => Promise<Response> {
  const { timeoutMs = 2_000, shutdownSignal } = options;
  async function run(
    check: ReadinessCheck,
  ): Promise<{ status: "ok" } | { status: "fail"; error: string }> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      await Promise.race([
        Promise.resolve().then(check),
        new Promise((_, reject) =>
          timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs}ms`)), timeoutMs)
        ),
      ]);
      return { status: "ok" };
    } catch (err) {
      return { status: "fail", error: err instanceof Error ? err.message : String(err) };
    } finally {
      clearTimeout(timer);
    }
  }
  return async function readyz() {
    if (shutdownSignal?.aborted) {
      return json({ status: "not_ready", reason: "draining", checks: {} }, 503);
    }
    const names = Object.keys(checks);
    const results = await Promise.all(names.map((n) => run(checks[n])));
    const ready = results.every((r) => r.status === "ok");
    return json({
      status: ready ? "ready" : "not_ready",
      checks: Object.fromEntries(names.map((n, i) => [n, results[i]])),
    }, ready ? 200 : 503);
  };
}

/** OpenAPI 3.0 schema of the {@linkcode healthHandler} body. */
export const HEALTH_SCHEMA = {
  type: "object",
  required: ["status"],
  properties: { status: { type: "string", enum: ["ok"] } },
} as const;

/** OpenAPI 3.0 schema of the {@linkcode readinessHandler} body (200 and 503 alike). */
export const READINESS_SCHEMA = {
  type: "object",
  required: ["status", "checks"],
  properties: {
    status: { type: "string", enum: ["ready", "not_ready"] },
    reason: { type: "string", enum: ["draining"] },
    checks: {
      type: "object",
      additionalProperties: {
        type: "object",
        required: ["status"],
        properties: {
          status: { type: "string", enum: ["ok", "fail"] },
          error: { type: "string" },
        },
      },
    },
  },
} as const;

/**
 * Paths that probes and scrapers hit every few seconds: liveness (`/healthz`, and mock-oidc's
 * `/isalive` alias), readiness and metrics. The default HTTP stack keeps them out of the access
 * log, and tracing creates no spans for them.
 *
 * @example Usage
 * ```ts
 * import { PROBE_PATHS } from "@svc/shared/health";
 * PROBE_PATHS.has("/readyz"); // true
 * ```
 */
export const PROBE_PATHS: ReadonlySet<string> = new Set([
  "/healthz",
  "/readyz",
  "/isalive",
  "/metrics",
]);
