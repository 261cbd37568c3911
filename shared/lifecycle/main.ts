/**
 * One way for every service's entry point to end: `main(args, env, io)` resolves to an exit
 * code, and {@linkcode runMain} turns a thrown error into one line on stderr and an exit code.
 *
 * @module
 */
import { SettingsError } from "../settings/error.ts";
import type { EnvLookup } from "../settings/types.ts";
import { flushLogs } from "../observe/log.ts";
import { installUncaughtGuard } from "./uncaught_guard.ts";
import { type ServiceIdentity, versionLine, versionRequested } from "./build_info.ts";

/** Where an entry point writes: injected so tests capture output. */
export interface MainIo {
  /** Results (help text, keys, tables): what a script would read. */
  out(line: string): void;
  /** Notices and errors for the operator. */
  err(line: string): void;
}

/** A service's entry point: resolves to the process exit code. */
export type ServiceMain = (args: string[], env: EnvLookup, io: MainIo) => Promise<number>;

/**
 * Writes lines to the process's stdout and stderr, after any log lines still buffered (so both
 * streams keep the order in which things were said).
 *
 * @example Usage
 * ```ts
 * import { processIo } from "@svc/shared/main";
 * processIo().out("listening");
 * ```
 */
export function processIo(): MainIo {
  const enc = new TextEncoder();
  return {
    out: (line) => {
      flushLogs();
      Deno.stdout.writeSync(enc.encode(line + "\n"));
    },
    err: (line) => {
      flushLogs();
      Deno.stderr.writeSync(enc.encode(line + "\n"));
    },
  };
}

/** Options of {@linkcode runMain}. */
export interface RunMainOptions {
  /** Program name that starts the error line, e.g. `mock-oidc`. */
  name: string;
  /**
   * The service's name and build: a lone `--version` argument prints {@linkcode versionLine}
   * and exits 0 without running `main`, the same in every service.
   */
  identity?: ServiceIdentity;
  /** Exit code of a {@linkcode SettingsError} (any other error exits 1). @default {2} */
  settingsExitCode?: number;
  /** Command-line arguments. @default {Deno.args} */
  args?: string[];
  /** Environment lookup. @default {(name) => Deno.env.get(name)} */
  env?: EnvLookup;
  /** Where output and the error line go. @default {processIo()} */
  io?: MainIo;
  /** Ends the process. @default {Deno.exit} */
  exit?: (code: number) => void;
}

/**
 * Runs `main` under the process guard (`installUncaughtGuard`: an unhandled rejection or uncaught
 * exception is logged and counted, and the service keeps serving instead of exiting), prints a
 * thrown error as one line (`<name>: <message>`; a settings error never
 * holds a value, so nothing secret is printed), then exits with `main`'s code, with
 * `settingsExitCode` for a {@linkcode SettingsError} or with 1 for any other error.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { runMain } from "@svc/shared/main";
 * import { SettingsError } from "@svc/shared/settings";
 *
 * const lines: string[] = [];
 * const code = await runMain(() => {
 *   throw new SettingsError("addr", 'Cannot read setting "addr" from flag --addr: bad');
 * }, { name: "svc", io: { out: () => {}, err: (l) => lines.push(l) }, exit: () => {} });
 * assert.equal(code, 2);
 * assert.deepEqual(lines, ['svc: Cannot read setting "addr" from flag --addr: bad']);
 * ```
 * @returns The exit code (after `exit` was called with it).
 */
export async function runMain(main: ServiceMain, options: RunMainOptions): Promise<number> {
  const {
    name,
    settingsExitCode = 2,
    args = Deno.args,
    env = (key) => Deno.env.get(key),
    io = processIo(),
    exit = Deno.exit,
  } = options;
  let code: number;
  const removeGuard = installUncaughtGuard();
  try {
    if (options.identity && versionRequested(args)) {
      io.out(versionLine(options.identity));
      code = 0;
    } else code = await main([...args], env, io);
  } catch (err) {
    io.err(`${name}: ${describe(err)}`);
    code = err instanceof SettingsError ? settingsExitCode : 1;
  } finally {
    removeGuard();
  }
  exit(code);
  return code;
}

function describe(err: unknown): string {
  if (!(err instanceof Error)) return "unexpected error";
  const line = err.message.split("\n")[0];
  const plain = err.name === "Error" || err.name === "SettingsError" || line.includes(err.name);
  return plain ? line : `${err.name}: ${line}`;
}
