/**
 * Start a service as shipped: `deno run` with exactly the permission and V8 flags that
 * `deploy/services.ts` gives it (what `deno task compile` bakes into the binary; `denort` cannot
 * be downloaded here, so the tests run the entry from source with those flags), from the
 * repository root like the tasks, from an empty environment plus what the test sets.
 *
 * @module
 */
import { runCommand, type ServiceProcess, startService } from "@svc/testing";
import type { CommandResult } from "@svc/testing";

/** The repository root (every grant's relative path is relative to it). */
export const ROOT = new URL("../", import.meta.url).pathname;

/** What a test needs to run one service as shipped. */
export interface ShippedForm {
  /** Entry module, relative to {@linkcode ROOT}. */
  entry: string;
  /** The permission flags, then `--v8-flags=…` when the service has V8 flags. */
  flags: string[];
}

const forms = new Map<string, Promise<ShippedForm>>();

/**
 * The flags of `name` as `deploy/services.ts` computes them for a compile run with
 * `compileEnv` (image-proxy reads `IMGPROXY_ALLOW_NET` there). Read in a child process, as the
 * compile task does, because the list is computed once, when the module loads; for the same
 * reason one read per name and `compileEnv` serves the whole test file.
 */
export async function shippedForm(
  name: string,
  compileEnv: Record<string, string> = {},
): Promise<ShippedForm> {
  const key = JSON.stringify([name, Object.entries(compileEnv).sort()]);
  let form = forms.get(key);
  if (!form) {
    form = readShippedForm(name, compileEnv);
    forms.set(key, form);
    form.catch(() => forms.delete(key));
  }
  const { entry, flags } = await form;
  return { entry, flags: [...flags] };
}

async function readShippedForm(
  name: string,
  compileEnv: Record<string, string>,
): Promise<ShippedForm> {
  const services = new URL("../deploy/services.ts", import.meta.url).href;
  const out = await runCommand(Deno.execPath(), [
    "eval",
    "--no-config",
    `const { SERVICES } = await import(${JSON.stringify(services)});
     const svc = SERVICES.find((s) => s.name === ${JSON.stringify(name)});
     console.log(JSON.stringify(svc && { entry: svc.entry, permissions: svc.permissions,
       v8Flags: svc.v8Flags ?? [] }));`,
  ], { env: compileEnv, clearEnv: true, cwd: ROOT });
  if (out.code !== 0) throw new Error(`Cannot read deploy/services.ts: ${out.stderr}`);
  const svc = JSON.parse(out.stdout);
  if (!svc) throw new Error(`Cannot find service ${name} in deploy/services.ts`);
  const v8: string[] = svc.v8Flags.length ? [`--v8-flags=${svc.v8Flags.join(",")}`] : [];
  return { entry: svc.entry, flags: ["--no-prompt", ...svc.permissions, ...v8] };
}

/** Options of {@linkcode startShipped} and {@linkcode runShipped}. */
export interface ShippedOptions {
  /** Arguments after the entry. */
  args?: string[];
  /** The whole environment of the process (nothing of the test runner's is passed on). */
  env?: Record<string, string>;
  /** Environment of the compile run that computes the flags. */
  compileEnv?: Record<string, string>;
}

/**
 * Starts `name` as shipped and resolves once its listeners announced themselves and the health
 * path answers 200 (the kit's `startService`).
 */
export async function startShipped(
  name: string,
  options: ShippedOptions & { listeners?: string[]; healthPath?: string | null } = {},
): Promise<ServiceProcess> {
  const form = await shippedForm(name, options.compileEnv);
  return await startService({
    entry: form.entry,
    permissions: form.flags,
    args: options.args,
    env: options.env,
    clearEnv: true,
    cwd: ROOT,
    listeners: options.listeners,
    healthPath: options.healthPath,
    timeoutMs: 60_000,
  });
}

/**
 * Runs `name` as shipped to its end (a command, or a start-up that fails). A process that has
 * not ended after `limitMs` (one that starts where it should have refused to) is killed, and the
 * result says so in `stderr`, so the test fails instead of hanging.
 */
export async function runShipped(
  name: string,
  options: ShippedOptions & { limitMs?: number } = {},
): Promise<CommandResult> {
  const form = await shippedForm(name, options.compileEnv);
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...form.flags, form.entry, ...options.args ?? []],
    env: { NO_COLOR: "1", ...options.env },
    clearEnv: true,
    cwd: ROOT,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(options.limitMs ?? 60_000),
  }).output();
  const dec = new TextDecoder();
  const killed = out.signal === "SIGKILL" || out.signal === "SIGTERM"
    ? `(still running after ${options.limitMs ?? 60_000} ms: killed)\n`
    : "";
  return {
    code: out.code,
    stdout: dec.decode(out.stdout),
    stderr: dec.decode(out.stderr) + killed,
  };
}

/** A free loopback port, for grants that name an exact host:port. */
export function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

/** Holds a loopback port so a service told to listen there finds it in use. */
export function takenPort(): { addr: string; close(): void } {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  return { addr: `127.0.0.1:${(l.addr as Deno.NetAddr).port}`, close: () => l.close() };
}
