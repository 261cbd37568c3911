/**
 * Worker entry: runs a program whose host calls may be asynchronous. Each host call is sent
 * to the main thread, and the worker blocks (Atomics.wait) until the reply arrives, so the
 * interpreter stays synchronous and nothing is re-executed beyond the single replay of the
 * calls already made on the main thread.
 */
import { HostFnRef } from "../host.ts";
import { attempt, errorInfo, type HostOutcome } from "./attempt.ts";
import { compileSource } from "./exec.ts";
import { receiveReply } from "./worker_channel.ts";
import type { Budgets, RunResult } from "../api_types.ts";

export interface StartMessage {
  type: "start";
  source: string;
  filename: string;
  names: string[];
  predeclared: Record<string, unknown>;
  fnPaths: string[][];
  budgets: Budgets;
  timeoutMs: number;
  callMain: boolean;
  requireMain: boolean;
  topLevelHostCalls: boolean;
  tagFloatArguments: boolean;
  hasPrint: boolean;
  log: HostOutcome[];
  sab: SharedArrayBuffer;
}

// deno-lint-ignore no-explicit-any
const scope = globalThis as any;

function setPath(root: Record<string, unknown>, path: string[]): void {
  let o = root;
  for (let i = 0; i < path.length - 1; i++) o = o[path[i]] as Record<string, unknown>;
  o[path[path.length - 1]] = new HostFnRef(path.join("."));
}

scope.onmessage = (ev: MessageEvent<StartMessage>) => {
  const m = ev.data;
  const post = (x: unknown) => scope.postMessage(x);
  let result: RunResult;
  try {
    for (const p of m.fnPaths) setPath(m.predeclared, p);
    const prog = compileSource(m.source, { filename: m.filename, predeclared: m.names });
    result = attempt(prog, {
      names: m.names,
      predeclared: m.predeclared,
      budgets: m.budgets,
      timeoutMs: m.timeoutMs,
      now: () => performance.now(),
      print: m.hasPrint ? (line) => post({ type: "print", line }) : undefined,
      callMain: m.callMain,
      requireMain: m.requireMain,
      topLevelHostCalls: m.topLevelHostCalls,
      tagFloatArguments: m.tagFloatArguments,
      describeFailure: (v) => (v as { message: string }).message,
    }, {
      call(index, name, args, kwargs): HostOutcome {
        if (index < m.log.length) return m.log[index];
        post({ type: "call", index, name, args, kwargs });
        return receiveReply(m.sab, () => post({ type: "more" })) as HostOutcome;
      },
    });
  } catch (e) {
    result = { ok: false, error: errorInfo(e, 0) };
  }
  post({ type: "done", result });
};
