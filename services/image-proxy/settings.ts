/**
 * The proxy's settings: every key is a flag, an `IMGPROXY_*` variable and a key of the YAML file
 * given with `--config` (docs/image-proxy.md#settings). Storage credentials are not settings: they
 * come from the AWS SDK's default chain (environment, shared files with `AWS_PROFILE`, web
 * identity, container and instance metadata).
 *
 * @module
 */
import {
  defineSettings,
  type EnvLookup,
  SettingsError,
  type SettingsShape,
  type SettingsTable,
  type SettingValues,
} from "@svc/shared/settings";
import { parseAddr } from "@svc/shared/server";
import { cacheControlProblem, patternProblem } from "./object/cache_policy.ts";

const GO_ADDR = (value: string): string | undefined => {
  try {
    parseAddr(value);
    return undefined;
  } catch {
    return "expected host:port such as :8080 or 127.0.0.1:8080";
  }
};

const PATTERNS = (patterns: string[]): string | undefined => {
  for (const pattern of patterns) {
    const problem = patternProblem(pattern);
    if (problem) return problem;
  }
  return undefined;
};

/** The rows of {@linkcode SETTINGS}: key → type, default, flag, bounds, help. */
export const SETTING_ROWS = {
  "bucket": { type: "string", required: true, help: "bucket that holds the mirror" },
  "region": {
    type: "string",
    help: "bucket region (unset: the SDK's chain, e.g. AWS_REGION)",
  },
  "prefix": { type: "string", default: "", help: "key prefix of the mirror in the bucket" },
  "listen": {
    type: "string",
    default: ":8080",
    validate: GO_ADDR,
    help: "listen address (host:port)",
  },
  "s3.endpoint": {
    type: "string",
    validate: (v: string): string | undefined =>
      /^https?:\/\/[^\s/?#]+\/?$/.test(v) ? undefined : "expected http(s)://host[:port]",
    help: "S3-compatible endpoint (unset: AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL, then AWS)",
  },
  "s3.force_path_style": {
    type: "bool",
    default: false,
    help: "address the bucket in the path, not the host name (most S3-compatible stores)",
  },
  "cache.catalog_control": {
    type: "string",
    default: "public, max-age=60, must-revalidate",
    validate: cacheControlProblem,
    help: "Cache-Control of catalog paths stored without Cache-Control or Expires (empty: none)",
  },
  "cache.catalog_paths": {
    type: "list",
    default: ["streams/v1/*.json"],
    validate: PATTERNS,
    help: "patterns of catalog paths under the prefix (* one segment, ** any segments)",
  },
  "cache.artifact_control": {
    type: "string",
    default: "public, max-age=31536000, immutable",
    validate: cacheControlProblem,
    help: "Cache-Control of artifact paths stored without Cache-Control or Expires (empty: none)",
  },
  "cache.artifact_paths": {
    type: "list",
    default: ["images/**"],
    validate: PATTERNS,
    help: "patterns of artifact paths under the prefix (a catalog match wins)",
  },
  "proxy.gzip_catalog": {
    type: "bool",
    default: true,
    help: "gzip JSON catalog answers for clients that accept it and send no Range",
  },
  "secondary.bucket": {
    type: "string",
    help: "bucket of a second store, read when the primary fails (unset: no failover)",
  },
  "secondary.region": {
    type: "string",
    help: "its region (unset: the SDK's chain, e.g. AWS_REGION)",
  },
  "secondary.endpoint": {
    type: "string",
    validate: (v: string): string | undefined =>
      /^https?:\/\/[^\s/?#]+\/?$/.test(v) ? undefined : "expected http(s)://host[:port]",
    help: "its S3-compatible endpoint (unset: as s3.endpoint's fallbacks, then AWS)",
  },
  "secondary.force_path_style": {
    type: "bool",
    default: false,
    help: "address the second bucket in the path, not the host name",
  },
  "failover.failures": {
    type: "int",
    default: 3,
    min: 1,
    max: 1000,
    help: "primary failures in a row after which it is skipped until a probe succeeds",
  },
  "failover.probe_interval": {
    type: "duration",
    default: 10_000,
    min: 1,
    help: "while the primary is skipped, probe its catalog at most this often",
  },
  "proxy.readiness_interval": {
    type: "duration",
    default: 10_000,
    min: 1,
    help: "period of the background readiness probe",
  },
  "proxy.readiness_staleness": {
    type: "duration",
    default: 30_000,
    min: 1,
    help: "how long a successful probe keeps the proxy ready",
  },
  "proxy.shutdown_delay": {
    type: "duration",
    default: 5_000,
    min: 0,
    help: "keep serving (not ready, reason draining) this long after SIGTERM/SIGINT",
  },
  "proxy.shutdown_grace": {
    type: "duration",
    default: 30_000,
    min: 0,
    help: "then stop accepting and let running downloads finish for this long",
  },
  "proxy.max_streams": {
    type: "int",
    default: 64,
    min: 1,
    max: 100_000,
    help: "concurrent object downloads; more are refused with 503 stream_limit",
  },
  "proxy.upstream_idle_timeout": {
    type: "duration",
    default: 30_000,
    min: 1,
    help: "cancels a storage request that sends nothing for this long",
  },
  "proxy.write_idle_timeout": {
    type: "duration",
    default: 30_000,
    min: 1,
    help: "cancels a download whose client takes nothing for this long",
  },
  "metrics.endpoint": {
    type: "string",
    validate: GO_ADDR,
    help: "host:port (no scheme) of an OTLP/HTTP collector; unset: no metrics",
  },
  "metrics.timeout": {
    type: "duration",
    min: 1,
    help: "bound of the metrics flush at shutdown (unset: 3s)",
  },
  "metrics.insecure": {
    type: "bool",
    default: false,
    flag: "metrics-insecure",
    help: "export over cleartext HTTP; only allowed for a loopback collector",
  },
  "metrics.interval": {
    type: "duration",
    default: 60_000,
    min: 10,
    help: "time between metric exports",
  },
  "log.level": {
    type: "string",
    choices: ["debug", "info", "warn", "error"],
    default: "info",
    help: "lowest level written (request records of health and readiness are debug)",
  },
} as const satisfies SettingsShape;

/** The settings table: every key a flag, an `IMGPROXY_*` variable and a key of `--config`. */
export const SETTINGS: SettingsTable<typeof SETTING_ROWS> = defineSettings({
  prefix: "IMGPROXY",
  configFile: { flag: "config" },
  settings: SETTING_ROWS,
});

/** The resolved settings: every key with its value (flag > variable > file > default). */
export type Settings = SettingValues<typeof SETTING_ROWS>;

const LOOPBACK = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|::1|localhost)$/;

/**
 * The S3 endpoint: `s3.endpoint`, else the SDK's standard variables `AWS_ENDPOINT_URL_S3` and
 * `AWS_ENDPOINT_URL`, else none (AWS itself).
 *
 * @example Usage
 * ```ts
 * import { s3EndpointOf } from "./settings.ts";
 * s3EndpointOf(undefined, (n) => n === "AWS_ENDPOINT_URL" ? "http://127.0.0.1:9000" : undefined);
 * // "http://127.0.0.1:9000"
 * ```
 */
export function s3EndpointOf(configured: string | undefined, env: EnvLookup): string | undefined {
  return configured || env("AWS_ENDPOINT_URL_S3") || env("AWS_ENDPOINT_URL") || undefined;
}

/**
 * The collector URL of `metrics.endpoint`: `https://host:port/v1/metrics`, or `http://` with
 * `--metrics-insecure`, which only a loopback collector may use.
 *
 * @example Usage
 * ```ts
 * import { metricsUrlOf } from "./settings.ts";
 * metricsUrlOf("127.0.0.1:4318", true); // "http://127.0.0.1:4318/v1/metrics"
 * ```
 * @throws {SettingsError} for `--metrics-insecure` with a collector that is not on loopback.
 */
export function metricsUrlOf(endpoint: string | undefined, insecure: boolean): string | undefined {
  if (!endpoint) return undefined;
  const { hostname, port } = parseAddr(endpoint);
  if (insecure && !LOOPBACK.test(hostname)) {
    throw new SettingsError(
      "metrics.insecure",
      'Cannot start: setting "metrics.insecure" allows only a loopback collector',
    );
  }
  const host = hostname.includes(":") ? `[${hostname}]` : hostname;
  return `${insecure ? "http" : "https"}://${host}:${port}/v1/metrics`;
}
