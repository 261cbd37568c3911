/**
 * `run`: execute a program with predeclared host values and budgets.
 *
 * Fast path: the program runs synchronously on the calling thread. Host functions may return
 * Promises; when one does, that attempt is abandoned (a Suspend unwinds the JS stack), the
 * Promise is awaited and the program re-executed with the results of earlier host calls
 * replayed from a log (execution is deterministic, so it reaches the same call). Replays are
 * cheap for typical programs; once re-execution has cost more than REPLAY_STEP_BUDGET steps the
 * program continues in a Worker instead: re-executed there once, with every further host call
 * forwarded to this thread while the worker blocks on Atomics.wait. Host functions are never
 * called twice, total work stays bounded, and the event loop stays free while a worker computes.
 */
import type { JsonData, RunOptions, RunResult } from "./api_types.ts";
import { attempt, errorInfo, type HostOutcome, Suspend } from "./eval/attempt.ts";
import { CHANNEL_BYTES, ReplyWriter } from "./eval/worker_channel.ts";
import type { StartMessage } from "./eval/worker.ts";
import { withDefaults } from "./budgets.ts";
import { type CompiledHandle, parse, type Program } from "./program.ts";

type HostFn = (args: unknown[], kwargs: Record<string, unknown>) => unknown;

function isThenable(x: unknown): x is PromiseLike<unknown> {
  return x !== null && (typeof x === "object" || typeof x === "function") &&
    typeof (x as { then?: unknown }).then === "function";
}

function sameNames(a: readonly string[], b: string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

function describe(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** Find the host function for a dotted name ("records.lookup"). */
function lookupFn(predeclared: Record<string, unknown>, name: string): HostFn {
  let v: unknown = predeclared;
  for (const part of name.split(".")) v = (v as Record<string, unknown>)[part];
  return v as HostFn;
}

/** Copy of the predeclared values with functions removed (their paths listed apart). */
function shapeOf(v: unknown, path: string[], fnPaths: string[][]): unknown {
  if (typeof v === "function") {
    fnPaths.push(path);
    return null;
  }
  if (
    v !== null && typeof v === "object" && !Array.isArray(v) &&
    Object.getPrototypeOf(v) === Object.prototype
  ) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = shapeOf(x, [...path, k], fnPaths);
    return out;
  }
  return v;
}

/** Run a program (or source text). Never throws for program errors; see RunResult. */
export async function run(program: Program | string, options: RunOptions = {}): Promise<RunResult> {
  const predeclared = (options.predeclared ?? {}) as Record<string, unknown>;
  const names = Object.keys(predeclared).sort();
  let handle: CompiledHandle;
  try {
    if (typeof program === "string") {
      handle = parse(program, { filename: options.filename, predeclared: names }) as CompiledHandle;
    } else if (!sameNames(program.predeclared, names)) {
      handle = parse(program.source, {
        filename: program.filename,
        predeclared: names,
      }) as CompiledHandle;
    } else {
      handle = program as CompiledHandle;
    }
  } catch (e) {
    return { ok: false, error: errorInfo(e, 0) };
  }
  const budgets = withDefaults(options.budgets);
  const now = options.now ?? (() => performance.now());
  const start = now();
  const timeoutMs = budgets.timeoutMs;
  const common = {
    names,
    budgets,
    now,
    heapUsed: options.heapUsed,
    print: options.print,
    callMain: options.callMain !== false,
    requireMain: options.requireMain === true,
    topLevelHostCalls: options.topLevelHostCalls !== false,
    tagFloatArguments: options.tagFloatArguments === true,
  };
  const log: HostOutcome[] = [];
  const causes: unknown[] = [];
  let replayed = 0;
  let spare: Worker | null = null;
  for (;;) {
    let pending: Promise<HostOutcome> | null = null;
    const elapsed = now() - start;
    if (elapsed > timeoutMs) {
      spare?.terminate();
      return timeoutResult(0);
    }
    try {
      const result = attempt(handle.compiled, {
        ...common,
        predeclared,
        timeoutMs: timeoutMs - elapsed,
      }, {
        call(index, name, args, kwargs) {
          if (index < log.length) return log[index]; // replay
          let r: unknown;
          try {
            r = lookupFn(predeclared, name)(args, kwargs);
          } catch (e) {
            causes.push(e);
            const out = { ok: false, value: e };
            log.push(out);
            return out;
          }
          if (isThenable(r)) {
            // settle now so a rejection is never "unhandled" meanwhile
            pending = Promise.resolve(r).then(
              (value) => ({ ok: true, value }),
              (err) => {
                causes.push(err);
                return { ok: false, value: err };
              },
            );
            throw new Suspend();
          }
          const out = { ok: true, value: r };
          log.push(out);
          return out;
        },
      });
      spare?.terminate();
      return result;
    } catch (e) {
      if (!(e instanceof Suspend)) {
        spare?.terminate();
        throw e;
      }
      replayed += e.steps;
    }
    // Cheap programs simply re-run with the result replayed; once re-execution has cost more
    // than REPLAY_STEP_BUDGET steps, continue in a worker instead (bounded total work). The
    // worker is started early, so its module loading overlaps the last replays.
    if (spare === null && replayed > REPLAY_STEP_BUDGET / 10) spare = startWorker();
    if (replayed > REPLAY_STEP_BUDGET) {
      return await runInWorker(handle, {
        ...common,
        predeclared,
        remainingMs: timeoutMs - (now() - start),
        log,
        causes,
        pending: pending!,
        worker: spare ?? startWorker(),
      });
    }
    const out = await settle(pending!, timeoutMs - (now() - start));
    if (out === null) {
      spare?.terminate();
      return timeoutResult(replayed);
    }
    log.push(out);
  }
}

/** Steps of re-execution tolerated before a program moves to a worker. */
const REPLAY_STEP_BUDGET = 200_000;

function timeoutResult(steps: number): RunResult {
  return {
    ok: false,
    error: {
      kind: "limit",
      code: "timeout",
      message: "Starlark computation cancelled: timeout",
      steps,
    },
  };
}

/** Await a host outcome, but no longer than `ms` (null on timeout). */
async function settle(p: Promise<HostOutcome>, ms: number): Promise<HostOutcome | null> {
  if (ms === Infinity) return await p;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), Math.max(0, ms));
  });
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

interface WorkerRun {
  names: string[];
  predeclared: Record<string, unknown>;
  budgets: RunOptions["budgets"] & object;
  print?: (line: string) => void;
  callMain: boolean;
  requireMain: boolean;
  topLevelHostCalls: boolean;
  tagFloatArguments: boolean;
  remainingMs: number;
  log: HostOutcome[];
  causes: unknown[];
  /** Outcome of the host call that was pending when the synchronous attempt stopped. */
  pending: Promise<HostOutcome>;
  /** A worker already loading eval/worker.ts. */
  worker: Worker;
}

function startWorker(): Worker {
  return new Worker(new URL("./eval/worker.ts", import.meta.url).href, { type: "module" });
}

function runInWorker(handle: CompiledHandle, w: WorkerRun): Promise<RunResult> {
  const fnPaths: string[][] = [];
  const shape = shapeOf(w.predeclared, [], fnPaths) as Record<string, unknown>;
  const sab = new SharedArrayBuffer(CHANNEL_BYTES);
  const writer = new ReplyWriter(sab);
  const causes = w.causes;
  const pendingIndex = w.log.length;
  // entries logged on this thread travel to the worker; failures by index into `causes`
  const log: HostOutcome[] = w.log.map((e) =>
    e.ok
      ? e
      : { ok: false, value: { causeIndex: causes.indexOf(e.value), message: describe(e.value) } }
  );
  const worker = w.worker;
  return new Promise<RunResult>((resolve) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let finished = false;
    const finish = (r: RunResult) => {
      if (finished) return;
      finished = true;
      if (timer !== undefined) clearTimeout(timer);
      worker.terminate();
      if (!r.ok && r.error.cause !== undefined) {
        const idx = (r.error.cause as { causeIndex?: number }).causeIndex;
        r.error.cause = idx !== undefined && idx >= 0 ? causes[idx] : undefined;
      }
      resolve(r);
    };
    if (w.remainingMs !== Infinity) {
      timer = setTimeout(() => {
        finish({
          ok: false,
          error: {
            kind: "limit",
            code: "timeout",
            message: "Starlark computation cancelled: timeout",
            steps: 0,
          },
        });
      }, Math.max(0, w.remainingMs));
    }
    const reply = (
      index: number,
      name: string,
      args: JsonData[],
      kwargs: Record<string, JsonData>,
    ) => {
      let p: PromiseLike<unknown>;
      if (index === pendingIndex) {
        p = w.pending.then((o) => (o.ok ? o.value : Promise.reject(o.value)));
      } else {
        try {
          const r = lookupFn(w.predeclared, name)(args, kwargs);
          p = isThenable(r) ? r : Promise.resolve(r);
        } catch (e) {
          p = Promise.reject(e);
        }
      }
      Promise.resolve(p).then(
        (value) => ({ ok: true, value }),
        (e) => {
          causes.push(e);
          return { ok: false, value: { causeIndex: causes.length - 1, message: describe(e) } };
        },
      ).then((out) => {
        if (finished) return;
        try {
          writer.send(out);
        } catch (e) {
          // the result cannot cross threads (e.g. it contains functions)
          causes.push(e);
          writer.send({
            ok: false,
            value: { causeIndex: causes.length - 1, message: describe(e) },
          });
        }
      });
    };
    worker.onmessage = (ev: MessageEvent) => {
      const m = ev.data;
      if (m.type === "call") reply(m.index, m.name, m.args, m.kwargs);
      else if (m.type === "more") writer.more();
      else if (m.type === "print") w.print?.(m.line);
      else if (m.type === "done") finish(m.result);
    };
    worker.onerror = (ev: ErrorEvent) => {
      ev.preventDefault();
      finish({
        ok: false,
        error: {
          kind: "runtime",
          code: "eval_error",
          message: `internal error: ${ev.message}`,
          steps: 0,
        },
      });
    };
    const start: StartMessage = {
      type: "start",
      source: handle.source,
      filename: handle.filename,
      names: w.names,
      predeclared: shape,
      fnPaths,
      budgets: w.budgets,
      timeoutMs: w.remainingMs,
      callMain: w.callMain,
      requireMain: w.requireMain,
      topLevelHostCalls: w.topLevelHostCalls,
      tagFloatArguments: w.tagFloatArguments,
      hasPrint: w.print !== undefined,
      log,
      sab,
    };
    worker.postMessage(start);
  });
}
