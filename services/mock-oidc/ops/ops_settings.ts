/**
 * The operational and control-plane rows of mock-oidc's settings table (the spec's
 * configuration table): listeners, logging, timeouts, CORS, TLS, control plane, rate limit and
 * tracing. Each flag reads `MOCK_OIDC_<FLAG>` too; precedence flag > env > default.
 * @module
 */
import type { SettingSpec } from "@svc/shared/settings";

function spec(
  name: string,
  type: SettingSpec["type"],
  defaultValue: unknown,
  help: string,
  extra: Partial<SettingSpec> = {},
): SettingSpec {
  const env = `MOCK_OIDC_${name.toUpperCase().replaceAll("-", "_")}`;
  return {
    name,
    type,
    default: defaultValue,
    help,
    ...extra,
    env: [env, ...[extra.env ?? []].flat()],
  };
}

function isAddr(value: unknown): string | undefined {
  const text = value as string;
  if (text === "") return undefined;
  return /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]*):\d{1,5}$/.test(text) &&
      Number(text.slice(text.lastIndexOf(":") + 1)) <= 65535
    ? undefined
    : "expected host:port";
}

export const OPS_SETTINGS: SettingSpec[] = [
  spec(
    "metrics-addr",
    "string",
    ":9090",
    "Metrics listener host:port; empty serves /metrics on the API listener",
    {
      validate: isAddr,
    },
  ),
  spec("log-level", "string", "info", "Log level", {
    choices: ["debug", "info", "warn", "error"],
    env: "LOG_LEVEL",
  }),
  spec("log-format", "string", "json", "Log format", { choices: ["json", "text"] }),
  spec("read-timeout", "duration", 5_000, "Whole-request read limit", { min: 1 }),
  spec("read-header-timeout", "duration", 5_000, "Header read limit", { min: 1 }),
  spec("write-timeout", "duration", 10_000, "Response write limit", { min: 1 }),
  spec("idle-timeout", "duration", 120_000, "Keep-alive idle limit", { min: 1 }),
  spec("request-timeout", "duration", 15_000, "Per-request handler timeout", { min: 1 }),
  spec("shutdown-grace", "duration", 15_000, "Grace for in-flight requests at shutdown", {
    min: 0,
  }),
  spec("cors-allowed-origins", "list", [], "Origin allowlist; empty reflects any Origin"),
  spec(
    "trusted-proxy-header",
    "string",
    "",
    "Header carrying the client IP, e.g. X-Real-IP; empty trusts the TCP peer",
  ),
  spec(
    "tls-cert-file",
    "string",
    "",
    "TLS certificate (PEM) path for the API listener; needs --tls-key-file",
  ),
  spec(
    "tls-key-file",
    "string",
    "",
    "TLS private key (PEM) path for the API listener; needs --tls-cert-file",
  ),
  spec(
    "control-enabled",
    "bool",
    true,
    "Mount /_mock; when false every /_mock/* route answers 404",
  ),
  spec(
    "control-addr",
    "string",
    "",
    "Dedicated control listener host:port; empty co-locates /_mock on --addr",
    {
      validate: isAddr,
    },
  ),
  spec(
    "control-token",
    "string",
    "",
    "Token required in X-Mock-Control-Token; empty means no gate",
    {
      secret: true,
    },
  ),
  spec("rate-limit-enabled", "bool", false, "Enable per-client-IP rate limiting"),
  spec("rate-limit-rps", "float", 10, "Sustained requests per second per client IP", {
    min: 0.001,
  }),
  spec("rate-limit-burst", "int", 20, "Burst allowance per client IP", { min: 1 }),
  spec(
    "tracing-enabled",
    "bool",
    false,
    "Export OTLP/HTTP traces (configured by OTEL_* variables)",
  ),
];
