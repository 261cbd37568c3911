/**
 * `runner-ctl validate <baseline> [--socket PATH]`: checks a rendered JSON baseline (shape in
 * `baseline.ts`) against the embedded policy (`policy.ts`), then compares it with the effective
 * state read from the Incus socket (`live_state.ts`; GET requests only). Loads no controller
 * configuration, flags, environment variables or credentials, and runs no external tool.
 * Success: one line on stdout, exit 0. Notices go to stderr. Any failure: errors on stderr,
 * exit 1 (2 for a usage error). It confirms the effective resource ceilings but cannot re-measure
 * the host capacity or reserved headroom the baseline was generated from.
 *
 * @module
 */
import { parseArgs } from "node:util";
import type { MainIo } from "@svc/shared/main";
import { IncusTransport } from "../incus/transport.ts";
import { readBounded } from "../proof/read_bounded.ts";
import { BASELINE_LIMIT_BYTES, parseBaseline } from "./baseline.ts";
import { compareLive } from "./live_state.ts";
import { policyViolations } from "./policy.ts";

/** The instance manager's local socket (the default of `--socket`). */
const DEFAULT_SOCKET = "/var/lib/incus/unix.socket";

/** Usage of the `validate` subcommand. */
const VALIDATE_USAGE = "Usage: runner-ctl validate <baseline.json> [--socket PATH]";

/** Runs `validate <args>`; resolves to the exit code. */
export async function validateCommand(args: string[], io: MainIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      strict: true,
      allowPositionals: true,
      options: { socket: { type: "string", default: DEFAULT_SOCKET } },
    });
  } catch {
    return usage(io, "unknown or malformed flag");
  }
  if (parsed.positionals.length !== 1 || !parsed.values.socket) {
    return usage(io, "expected exactly one baseline file");
  }
  const [path] = parsed.positionals;
  const fail = (lines: string[]) => {
    for (const l of lines) io.err(`runner-ctl validate: ${l}`);
    return 1;
  };
  let text: string;
  try {
    const bytes = await readBounded(path, BASELINE_LIMIT_BYTES);
    if (!bytes) return fail([`Cannot read baseline: larger than ${BASELINE_LIMIT_BYTES} bytes`]);
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return fail(["Cannot read baseline: file missing, unreadable or not UTF-8"]);
  }
  let baseline;
  try {
    baseline = parseBaseline(text);
  } catch (err) {
    return fail([(err as Error).message]);
  }
  const violations = policyViolations(baseline);
  if (violations.length) return fail(violations.map((v) => `policy: ${v}`));
  const transports: IncusTransport[] = [];
  const open = (project: string) => {
    const t = new IncusTransport({ socket: parsed.values.socket!, project });
    transports.push(t);
    return t;
  };
  try {
    const report = await compareLive(baseline, open("default"), open);
    for (const n of report.notices) io.err(`runner-ctl validate: notice: ${n}`);
    if (report.drift.length) return fail(report.drift.map((d) => `drift: ${d}`));
  } catch (err) {
    return fail([`Cannot read live state: ${err instanceof Error ? err.message : "error"}`]);
  } finally {
    for (const t of transports) t.close();
  }
  const profiles = baseline.projects.reduce((n, p) => n + p.profiles.length, 0);
  io.out(
    `baseline ${path} passes policy and matches live state ` +
      `(${baseline.projects.length} project(s), ${profiles} profile(s))`,
  );
  return 0;
}

function usage(io: MainIo, why: string): number {
  io.err(`runner-ctl validate: ${why}\n${VALIDATE_USAGE}`);
  return 2;
}
