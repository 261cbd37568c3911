// TEMPORARY stand-in for @svc/shared/health (same API) until the kit lands on main.
export function healthHandler(): Response {
  return Response.json({ status: "ok" });
}
export function readinessHandler(
  checks: Record<string, () => Promise<void> | void>,
  _options: { timeoutMs?: number } = {},
): (req: Request) => Promise<Response> {
  return async () => {
    const results: Record<string, { status: string; error?: string }> = {};
    let ok = true;
    for (const [name, check] of Object.entries(checks)) {
      try {
        await check();
        results[name] = { status: "ok" };
      } catch (err) {
        ok = false;
        results[name] = { status: "fail", error: err instanceof Error ? err.message : String(err) };
      }
    }
    return Response.json({ status: ok ? "ready" : "not_ready", checks: results }, {
      status: ok ? 200 : 503,
    });
  };
}
