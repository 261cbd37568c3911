/**
 * The hooks through which the proxy reports what metrics count. The OTLP instruments implement
 * them when `metrics.endpoint` is set; otherwise {@linkcode NO_TELEMETRY} does nothing.
 *
 * @module
 */
import type { StoreEvent } from "./store/store.ts";
import type { RelayOutcome } from "./stream/relay.ts";

/** The route labels of the log records and metrics (docs/image-proxy.md#logs). */
export type RouteLabel = "health" | "readiness" | "object" | "unmatched";

/** One finished request. */
export interface RequestRecord {
  method: string;
  route: RouteLabel;
  status: number;
  durationS: number;
  bodyBytes: number;
}

/** What the proxy reports. */
export interface Telemetry {
  requestStarted(): void;
  requestEnded(record: RequestRecord): void;
  storeRequest(event: StoreEvent): void;
  streamRejected(): void;
  streamEnded(result: { outcome: RelayOutcome; bytes: number }): void;
  readiness(ready: boolean): void;
}

/** Telemetry that records nothing (metrics off). */
export const NO_TELEMETRY: Telemetry = {
  requestStarted() {},
  requestEnded() {},
  storeRequest() {},
  streamRejected() {},
  streamEnded() {},
  readiness() {},
};

const METHODS = new Set([
  "GET",
  "HEAD",
  "POST",
  "PUT",
  "DELETE",
  "PATCH",
  "OPTIONS",
  "TRACE",
  "CONNECT",
]);

/**
 * The request method in a bounded vocabulary: a known method, otherwise `_OTHER`.
 *
 * @example Usage
 * ```ts
 * import { methodLabel } from "./telemetry.ts";
 * methodLabel("get"); // "_OTHER" (methods are case-sensitive)
 * ```
 */
export function methodLabel(method: string): string {
  return METHODS.has(method) ? method : "_OTHER";
}
