/**
 * An execute worker (runs inside a `node:worker_threads` Worker with a V8 heap limit): runs one
 * Starlark program at a time with fresh interpreter state. Capability calls are forwarded to the
 * main thread and answered synchronously through the worker's reply channel, so the interpreter never has to
 * replay or move to a worker of its own.
 * @module
 */
import { parentPort, workerData } from "node:worker_threads";
import { getHeapStatistics } from "node:v8";
import { run } from "@svc/starlark";
import type { HostFunction, HostNamespace } from "@svc/starlark";
import { awaitReply, type ReplyReceiver } from "./channel.ts";
import type { CallReply, DoneMessage, JobMessage, ReadyMessage } from "./protocol.ts";

/** Thrown inside a host function when the main thread answered a call with an error text. */
class CallFailed extends Error {
  /** Stable code: the main thread answered the call with an error. */
  readonly code = "call_failed";
  constructor(readonly text: string) {
    super(text);
  }
}

const receiver = workerData as ReplyReceiver;
/** Id of the latest capability call of this worker. */
let calls = 0;

function hostTree(job: JobMessage, deadline: number): Record<string, HostNamespace> {
  const root: Record<string, HostNamespace> = {};
  for (const name of job.capabilities) {
    const segments = name.split(".");
    let ns: HostNamespace = root[segments[0]] ??= {};
    for (const seg of segments.slice(1, -1)) ns = (ns[seg] ??= {}) as HostNamespace;
    const fn: HostFunction = (args, kwargs) => {
      const id = ++calls;
      parentPort!.postMessage({ type: "call", id, name, args, kwargs });
      const got = awaitReply(receiver, id, deadline - performance.now());
      if (!got) throw new CallFailed("resource limit exceeded");
      const reply = got.reply as CallReply;
      if (!reply.ok) throw new CallFailed(reply.text);
      return reply.value;
    };
    ns[segments[segments.length - 1]] = fn;
  }
  return root;
}

/** Heap of a worker with its modules loaded and no program: not charged to programs. */
let heapFloor = 0;

/**
 * What the running program holds: this isolate runs one program at a time, so its heap is the
 * program's, plus garbage not yet collected (an overestimate; the floor is taken once at start).
 */
function heapUsed(): number {
  return getHeapStatistics().used_heap_size - heapFloor;
}

async function runJob(job: JobMessage): Promise<DoneMessage["result"]> {
  const deadline = performance.now() + (job.budgets.timeoutMs ?? 1e9);
  const outcome = await run(job.source, {
    filename: "<program>",
    predeclared: hostTree(job, deadline),
    budgets: job.budgets,
    callMain: true,
    requireMain: true,
    topLevelHostCalls: false,
    heapUsed,
    tagFloatArguments: true, // so `int` fields can refuse 2.0 (docs/mcp-server.md)
  });
  if (outcome.ok) return { ok: true, value: outcome.value };
  const { kind, code, message, cause } = outcome.error;
  return {
    ok: false,
    kind,
    code,
    message,
    hostText: cause instanceof CallFailed ? cause.text : undefined,
  };
}

parentPort!.on("message", async (job: JobMessage) => {
  let result: DoneMessage["result"];
  try {
    result = await runJob(job);
  } catch (err) {
    result = {
      ok: false,
      kind: "runtime",
      code: "eval_error",
      message: String(err),
      hostText: "internal failure",
    };
  }
  parentPort!.postMessage({ type: "done", result } satisfies DoneMessage);
});
heapFloor = getHeapStatistics().used_heap_size;
parentPort!.postMessage({ type: "ready" } satisfies ReadyMessage);
