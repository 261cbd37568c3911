/** Helpers for the protocol end-to-end tests: start the real mock-oidc process. */
import { type ServiceProcess, startService } from "@svc/shared/testing";

/** Path of the service entry point. */
export const MAIN = new URL("../../services/mock-oidc/main.ts", import.meta.url).pathname;

/** Start mock-oidc on a free loopback port with `config` as JSON_CONFIG. */
export function startOidc(
  config: Record<string, unknown> = {},
  options: { args?: string[]; env?: Record<string, string> } = {},
): Promise<ServiceProcess> {
  return startService({
    entry: MAIN,
    args: ["--addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0", ...(options.args ?? [])],
    env: { JSON_CONFIG: JSON.stringify(config), ...options.env },
    listeners: ["api"],
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
