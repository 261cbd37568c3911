/** Helpers for the control-plane end-to-end tests: start mock-oidc, call `/_mock`. */
import { type ServiceProcess, startService } from "@svc/shared/testing";

export const MAIN = new URL("../../services/mock-oidc/main.ts", import.meta.url).pathname;

/** Starts mock-oidc on free loopback ports with an empty JSON config. */
export function startMock(
  options: {
    args?: string[];
    env?: Record<string, string>;
    listeners?: string[];
    /** `null` skips the health poll (e.g. TLS with a private CA). */
    healthPath?: string | null;
  } = {},
): Promise<ServiceProcess> {
  return startService({
    entry: MAIN,
    args: ["--addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0", ...(options.args ?? [])],
    env: { JSON_CONFIG: "{}", ...options.env },
    listeners: options.listeners ?? ["api", "metrics"],
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
