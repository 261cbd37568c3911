/**
 * Helpers for the mock-oidc end-to-end tests: start the real process (control-plane and protocol
 * suites), call `/_mock`, post protocol forms.
 */
import { type ServiceProcess, startService } from "@svc/testing";
import { SERVICES } from "../../deploy/services.ts";

/**
 * The permissions mock-oidc is deployed with (`deploy/services.ts`): every end-to-end test runs
 * the service inside that sandbox, so a missing grant fails here first.
 */
export const PERMISSIONS: readonly string[] = SERVICES.find((s) => s.name === "mock-oidc")!
  .permissions;

/** Path of the service entry point. */
export const MAIN = new URL("../../services/mock-oidc/main.ts", import.meta.url).pathname;

/**
 * `args` preceded by loopback port-0 listen addresses for the flags it does not set itself
 * (the kit refuses a scalar flag given twice).
 */
export function withLoopbackAddrs(args: readonly string[] = []): string[] {
  const given = (flag: string) =>
    args.some((a) => a === `--${flag}` || a.startsWith(`--${flag}=`) || a === `-${flag}`);
  return [
    ...(given("addr") ? [] : ["--addr", "127.0.0.1:0"]),
    ...(given("metrics-addr") ? [] : ["--metrics-addr", "127.0.0.1:0"]),
    ...args,
  ];
}

/** Starts mock-oidc on free loopback ports with an empty JSON config. */
export function startMock(
  options: {
    args?: string[];
    env?: Record<string, string>;
    /** Grants on top of {@linkcode PERMISSIONS} (e.g. `--allow-ffi` for `--signer openssl`). */
    extraPermissions?: string[];
    listeners?: string[];
    /** `null` skips the health poll (e.g. TLS with a private CA). */
    healthPath?: string | null;
  } = {},
): Promise<ServiceProcess> {
  return startService({
    entry: MAIN,
    args: withLoopbackAddrs(options.args),
    env: { JSON_CONFIG: "{}", ...options.env },
    listeners: options.listeners ?? ["api", "metrics"],
    permissions: [...PERMISSIONS, ...(options.extraPermissions ?? [])],
    healthPath: options.healthPath,
    timeoutMs: 20_000,
  });
}

/** Calls a control route and returns status, headers and parsed JSON body. */
export async function control(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{
  status: number;
  headers: Headers; // deno-lint-ignore no-explicit-any
  body: any;
}> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { "content-type": "application/json", ...headers },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch { /* not JSON: keep text */ }
  return { status: res.status, headers: res.headers, body: parsed };
}

/** Posts a form to a protocol endpoint. */
export async function postForm(url: string, form: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: form,
  });
  return { status: res.status, body: await res.json().catch(() => undefined) };
}

/** Start mock-oidc on a free loopback port with `config` as JSON_CONFIG. */
export function startOidc(
  config: Record<string, unknown> = {},
  options: { args?: string[]; env?: Record<string, string> } = {},
): Promise<ServiceProcess> {
  return startService({
    entry: MAIN,
    args: withLoopbackAddrs(options.args),
    env: { JSON_CONFIG: JSON.stringify(config), ...options.env },
    listeners: ["api"],
    permissions: [...PERMISSIONS],
    timeoutMs: 20_000,
  });
}

/** Run `fn` against a started service and always stop it. */
export async function withOidc(
  config: Record<string, unknown>,
  fn: (service: ServiceProcess) => Promise<void>,
): Promise<void> {
  const service = await startOidc(config);
  try {
    await fn(service);
  } finally {
    await service.stop();
  }
}

/**
 * The ten algorithms the relying-party tests (jose, PyJWT) expect mock-oidc to sign with, written
 * out here rather than taken from the service's list, so that a dropped one fails them.
 */
export const ALGORITHMS = [
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
] as const;
