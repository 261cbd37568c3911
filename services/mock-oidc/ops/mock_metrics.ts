/**
 * mock-oidc's own metrics next to the shared HTTP request counts and latencies: tokens issued
 * per grant (minted tokens count as grant `mint`), scenario queue depth and captured-log size.
 * @module
 */
import { Counter, Gauge, type Registry } from "@svc/shared/metrics";
import type { Handler } from "@svc/shared/http";

export interface MockMetrics {
  tokensIssued: Counter<"grant">;
  scenarioQueueDepth: Gauge;
  capturedRequests: Gauge;
}

/** Registers the mock-specific metrics on `registry`. */
export function createMockMetrics(registry: Registry): MockMetrics {
  return {
    tokensIssued: new Counter({
      name: "mock_oidc_tokens_issued_total",
      help: "Token responses issued, by grant type (mint for /_mock/mint)",
      labelNames: ["grant"],
      registers: [registry],
    }),
    scenarioQueueDepth: new Gauge({
      name: "mock_oidc_scenario_queue_depth",
      help: "Scenarios waiting in the one-shot queue",
      registers: [registry],
    }),
    capturedRequests: new Gauge({
      name: "mock_oidc_captured_requests",
      help: "Entries in the captured-request log",
      registers: [registry],
    }),
  };
}

const KNOWN_GRANTS = new Set([
  "authorization_code",
  "client_credentials",
  "refresh_token",
  "password",
  "urn:ietf:params:oauth:grant-type:jwt-bearer",
  "urn:ietf:params:oauth:grant-type:token-exchange",
  "urn:ietf:params:oauth:grant-type:device_code",
]);

/** Counts successful token-endpoint responses by `grant_type`. */
export function withTokenCounting(handler: Handler, metrics: MockMetrics): Handler {
  return async function countTokens(req, info) {
    const isToken = req.method === "POST" && new URL(req.url).pathname.endsWith("/token");
    if (!isToken) return handler(req, info);
    const form = await req.clone().text().then((text) => new URLSearchParams(text)).catch(() =>
      new URLSearchParams()
    );
    const response = await handler(req, info);
    if (response.status === 200) {
      const grant = form.get("grant_type") ?? "";
      metrics.tokensIssued.inc({ grant: KNOWN_GRANTS.has(grant) ? grant : "other" });
    }
    return response;
  };
}
