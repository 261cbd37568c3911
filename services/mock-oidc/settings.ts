/**
 * The flag table of mock-oidc (spec "Configuration inputs"). Every flag has an environment
 * variable `MOCK_OIDC_<FLAG>`; a few also read upstream's unprefixed names.
 *
 * @module
 */

import type { SettingSpec } from "@svc/shared/settings";

const env = (name: string, ...aliases: string[]) => [
  `MOCK_OIDC_${name.toUpperCase().replace(/-/g, "_")}`,
  ...aliases,
];

function spec(
  name: string,
  type: SettingSpec["type"],
  value: unknown,
  help: string,
  extra: Partial<SettingSpec> & { aliases?: string[] } = {},
): SettingSpec {
  const { aliases = [], ...rest } = extra;
  return { name, type, default: value, env: env(name, ...aliases), help, ...rest };
}

/** All settings, in the spec's order. */
export const SETTINGS: SettingSpec[] = [
  spec("addr", "string", "", "API listener host:port; overrides hostname/port when set"),
  spec("server-hostname", "string", "", "host part of the listen address when --addr is empty", {
    aliases: ["SERVER_HOSTNAME"],
  }),
  spec("server-port", "int", 8080, "port of the listen address when --addr is empty", {
    aliases: ["SERVER_PORT", "PORT"],
    min: 0,
    max: 65535,
  }),
  spec("metrics-addr", "string", ":9090", "metrics listener; empty serves /metrics on the API"),
  spec("log-level", "string", "info", "log level", {
    aliases: ["LOG_LEVEL"],
    choices: ["debug", "info", "warn", "error"],
  }),
  spec("log-format", "string", "json", "log format", { choices: ["json", "text"] }),
  spec("read-timeout", "duration", 5_000, "whole-request read limit"),
  spec("read-header-timeout", "duration", 5_000, "header read limit"),
  spec("write-timeout", "duration", 10_000, "response write limit"),
  spec("idle-timeout", "duration", 120_000, "keep-alive idle limit"),
  spec("request-timeout", "duration", 15_000, "per-request handler timeout"),
  spec("shutdown-grace", "duration", 15_000, "grace for in-flight requests at shutdown"),
  spec("cors-allowed-origins", "list", [], "origin allowlist; empty reflects any Origin"),
  spec("trusted-proxy-header", "string", "", "header holding the client IP, e.g. X-Real-IP"),
  spec("tls-cert-file", "string", "", "TLS certificate (PEM); pair with --tls-key-file"),
  spec("tls-key-file", "string", "", "TLS private key (PEM); pair with --tls-cert-file"),
  spec("control-enabled", "bool", true, "mount /_mock; when false every /_mock route is 404"),
  spec("control-addr", "string", "", "dedicated control listener; empty co-locates on --addr"),
  spec("control-token", "string", "", "token required in X-Mock-Control-Token", {
    secret: true,
  }),
  spec("rate-limit-enabled", "bool", false, "enable request rate limiting"),
  spec("rate-limit-rps", "float", 10, "sustained requests per second", { min: 0 }),
  spec("rate-limit-burst", "int", 20, "burst allowance", { min: 1 }),
  spec("tracing-enabled", "bool", false, "export OTLP traces"),
  spec(
    "signer",
    "string",
    "webcrypto",
    "token signer: webcrypto (worker threads, no extra " +
      "permission) or openssl (libcrypto over FFI, needs --allow-ffi; for load tests)",
    {
      choices: ["webcrypto", "openssl"],
    },
  ),
  spec("signer-threads", "int", 0, "signing threads; 0 = one per core", { min: 0, max: 256 }),
  spec("signer-libcrypto", "string", "libcrypto.so.3", "libcrypto name or path (--signer openssl)"),
];
