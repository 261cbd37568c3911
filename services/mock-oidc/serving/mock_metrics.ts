/**
 * mock-oidc's own metrics next to the shared HTTP request counts and latencies: tokens issued
 * per grant (minted tokens count as grant `mint`), scenario queue depth and captured-log size.
 *
 * `serving/` holds what serves the process rather than the protocol: listeners, operational
 * routes, static files, mock-oidc's own metrics.
 * @module
 */
import { Counter, Gauge, type Registry } from "@svc/shared/metrics";

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

/**
 * Counts one successful token response; the token handler reports the grant it served
 * (`ProtocolDeps.onTokenIssued`), so no request body is read twice. Unknown grants count as
 * `other`, keeping the label set bounded.
 */
export function countTokenIssued(metrics: MockMetrics, grantType: string): void {
  metrics.tokensIssued.inc({ grant: KNOWN_GRANTS.has(grantType) ? grantType : "other" });
}
