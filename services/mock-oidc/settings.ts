/**
 * The settings table of mock-oidc (docs/mock-oidc.md#settings). Every setting has a flag
 * (`--read-timeout`) and an environment variable `MOCK_OIDC_<KEY>`; a few also read upstream's
 * unprefixed names.
 *
 * @module
 */

import {
  defineSettings,
  type SettingsShape,
  type SettingsTable,
  type SettingValues,
} from "@svc/shared/settings";

const WHY_NO_HEADER_TIMEOUT = "Deno.serve (2.9) hands a request over only once its header has " +
  "arrived and has no header-read timeout, so a slow header cannot be bounded here; " +
  "put a reverse proxy in front where slow clients matter";
const WHY_NO_IDLE_TIMEOUT = "Deno.serve (2.9) has no keep-alive idle timeout and never exposes " +
  "the connection, so an idle connection cannot be closed here; put a reverse proxy in front " +
  "where idle connections matter";

/** Upstream's logback levels, as the kit's log levels. */
const LOGBACK_LEVELS: Record<string, string> = {
  trace: "debug",
  all: "debug",
  debug: "debug",
  info: "info",
  warn: "warn",
  warning: "warn",
  error: "error",
  off: "error",
};

/** Every setting, in the contract's order (docs/mock-oidc.md#settings). */
export const SETTING_ROWS = {
  "addr": {
    type: "string",
    default: "",
    help: "API listener host:port; overrides hostname/port when set",
  },
  "server_hostname": {
    type: "string",
    default: "",
    env: ["MOCK_OIDC_SERVER_HOSTNAME", "SERVER_HOSTNAME"],
    help: "host part of the listen address when --addr is empty",
  },
  "server_port": {
    type: "int",
    default: 8080,
    min: 0,
    max: 65535,
    env: ["MOCK_OIDC_SERVER_PORT", "SERVER_PORT", "PORT"],
    help: "port of the listen address when --addr is empty",
  },
  "metrics_addr": {
    type: "string",
    default: ":9090",
    help: "metrics listener; empty serves /metrics on the API",
  },
  "log_level": {
    type: "string",
    default: "info",
    choices: ["debug", "info", "warn", "error"],
    env: ["MOCK_OIDC_LOG_LEVEL", "LOG_LEVEL"],
    // Upstream's logback levels, any case: TRACE and ALL log everything we have (debug), OFF
    // the least we can (error: a service that cannot say why it fails is worse than a quiet one).
    normalize: (level: string): string => LOGBACK_LEVELS[level.toLowerCase()] ?? level,
    help: "log level (also logback's TRACE, DEBUG, INFO, WARN, ERROR, ALL, OFF, any case; " +
      "TRACE and ALL mean debug, OFF means error)",
  },
  "log_format": {
    type: "string",
    default: "json",
    choices: ["json", "text"],
    help: "log format",
  },
  "read_timeout": {
    type: "duration",
    default: 5_000,
    help: "whole-request read limit: a request body still arriving after it is answered 408",
  },
  "write_timeout": {
    type: "duration",
    default: 10_000,
    help: "response write limit: a response the client has not taken after it is cut off",
  },
  "request_timeout": { type: "duration", default: 15_000, help: "per-request handler timeout" },
  "capture_max_bytes": {
    type: "int",
    default: 64 * 1024 * 1024,
    min: 0,
    help: "memory budget of the captured-request log (estimated bytes); the oldest entries " +
      "are dropped first beyond it, as beyond 10000 entries",
  },
  "shutdown_grace": {
    type: "duration",
    default: 15_000,
    help: "grace for in-flight requests at shutdown",
  },
  "cors_allowed_origins": {
    type: "list",
    default: [],
    help: "origin allowlist; empty reflects any Origin",
  },
  "trusted_proxy_header": {
    type: "string",
    default: "",
    help: "header holding the client IP, e.g. X-Real-IP",
  },
  "tls_cert_file": {
    type: "string",
    default: "",
    help: "TLS certificate (PEM); pair with --tls-key-file",
  },
  "tls_key_file": {
    type: "string",
    default: "",
    help: "TLS private key (PEM); pair with --tls-cert-file",
  },
  "public_base_url": {
    type: "string",
    default: "",
    validate: publicBaseUrlProblem,
    help: "fixed base of every issuer URL (scheme, host, optional path), e.g. " +
      "https://idp.example/auth; empty derives it per request from Host and X-Forwarded-*",
  },
  "control_enabled": {
    type: "bool",
    default: true,
    help: "mount /_mock; when false every /_mock route is 404",
  },
  "control_addr": {
    type: "string",
    default: "",
    help: "dedicated control listener; empty co-locates on --addr",
  },
  "control_token": {
    type: "string",
    default: "",
    secret: true,
    help: "token required in X-Mock-Control-Token (or as Authorization: Bearer)",
  },
  "client_metadata_allow_http_loopback": {
    type: "bool",
    default: false,
    help: "accept plain-http client ID metadata document URLs on loopback hosts (local " +
      "development: deno task dev sets it); otherwise https only",
  },
  "client_metadata_allow_private_networks": {
    type: "bool",
    default: false,
    help: "let client ID metadata document URLs reach private, link-local and other " +
      "non-public addresses (loopback is always allowed)",
  },
  "code_redirect_uri_optional": {
    type: "bool",
    default: false,
    help: "redeem an authorization code without the redirect_uri its authorization request " +
      "carried, as upstream does (RFC 6749 requires it); a different redirect_uri is refused " +
      "either way",
  },
  "dpop_nonce_issuers": {
    type: "list",
    default: [],
    help: "issuer ids (* for every issuer) whose token endpoint and userinfo demand a DPoP " +
      "server nonce in each proof (RFC 9449 use_dpop_nonce)",
  },
  "par_required_issuers": {
    type: "list",
    default: [],
    help: "issuer ids (* for every issuer) whose authorize takes pushed authorization requests " +
      "only (RFC 9126 require_pushed_authorization_requests)",
  },
  "rate_limit_enabled": { type: "bool", default: false, help: "enable request rate limiting" },
  "rate_limit_rps": {
    type: "float",
    default: 10,
    min: 0,
    validate: (rps: number): string | undefined => rps > 0 ? undefined : "must be greater than 0",
    help: "sustained requests per second",
  },
  "rate_limit_burst": { type: "int", default: 20, min: 1, help: "burst allowance" },
  "tracing_enabled": { type: "bool", default: false, help: "export OTLP traces" },
  "signer": {
    type: "string",
    default: "webcrypto",
    choices: ["webcrypto", "openssl"],
    help: "token signer: webcrypto (worker threads, no extra permission) or openssl " +
      "(libcrypto over FFI, needs --allow-ffi; for load tests)",
  },
  "signer_threads": {
    type: "int",
    default: 0,
    min: 0,
    max: 256,
    help: "signing threads; 0 = one per core",
  },
  "signer_libcrypto": {
    type: "string",
    default: "libcrypto.so.3",
    help: "libcrypto name or path (--signer openssl)",
  },
} as const satisfies SettingsShape;

/** The settings table: resolves {@linkcode SETTING_ROWS} from flags and the environment. */
export const SETTINGS: SettingsTable<typeof SETTING_ROWS> = defineSettings({
  prefix: "MOCK_OIDC",
  settings: SETTING_ROWS,
  unsupported: {
    "read_header_timeout": WHY_NO_HEADER_TIMEOUT,
    "idle_timeout": WHY_NO_IDLE_TIMEOUT,
  },
});

/** The resolved settings: every row's value (flag > `MOCK_OIDC_*` > upstream's name > default). */
export type Settings = SettingValues<typeof SETTING_ROWS>;

/** Why `value` cannot be `--public-base-url`, or `undefined` (empty: derive from the request). */
function publicBaseUrlProblem(value: string): string | undefined {
  if (value === "") return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return "must be an absolute http or https URL";
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return "must be an absolute http or https URL";
  }
  if (url.username || url.password) return "must not carry credentials";
  if (url.search || url.hash || value.includes("?") || value.includes("#")) {
    return "must not have a query or a fragment";
  }
  return undefined;
}
