// deno-lint-ignore-file camelcase -- Incus wire field names (status_code, created_at, …)
/**
 * Background operations of the fake Incus: status transitions (103 Running → 200 Success or 400
 * Failure), the `/wait` endpoint in both flavours (6.0 LTS: an error envelope inside HTTP 200 on
 * failure or timeout; 7.x: the Operation itself with status_code 400 or 103), written as a body
 * that arrives after the 200 headers, and removal a while after completion (404 afterwards).
 *
 * @module
 */
import { incusError, sync } from "./envelope.ts";

/** One operation. */
export interface FakeOperation {
  id: string;
  class: "task";
  description: string;
  created_at: string;
  updated_at: string;
  status: string;
  status_code: number;
  resources: Record<string, string[]>;
  metadata: Record<string, unknown> | null;
  may_cancel: boolean;
  err: string;
  location: string;
}

/** The operation store. */
export class OperationStore {
  readonly ops = new Map<string, { op: FakeOperation; done: Promise<void> }>();
  flavour: "6.0" | "7.x" = "6.0";
  retainMs: number;
  readonly #timers = new Set<ReturnType<typeof setTimeout>>();
  constructor(retainMs: number) {
    this.retainMs = retainMs;
  }

  /** setTimeout that {@linkcode close} cancels. */
  later(fn: () => void, ms: number): void {
    const id = setTimeout(() => {
      this.#timers.delete(id);
      fn();
    }, ms);
    this.#timers.add(id);
  }

  /** Cancels every pending timer (the fake is closing). */
  close(): void {
    for (const id of this.#timers) clearTimeout(id);
    this.#timers.clear();
  }

  /** Starts `work` after `delayMs` as an operation; a thrown error fails it with its message. */
  start(
    description: string,
    resources: Record<string, string[]>,
    delayMs: number,
    work: () => void | Promise<void>,
  ): FakeOperation {
    const now = new Date().toISOString();
    const op: FakeOperation = {
      id: crypto.randomUUID(),
      class: "task",
      description,
      created_at: now,
      updated_at: now,
      status: "Running",
      status_code: 103,
      resources,
      metadata: null,
      may_cancel: false,
      err: "",
      location: "none",
    };
    const done = new Promise<void>((resolve) => {
      this.later(async () => {
        try {
          await work();
          Object.assign(op, { status: "Success", status_code: 200 });
        } catch (err) {
          Object.assign(op, {
            status: "Failure",
            status_code: 400,
            err: err instanceof Error ? err.message : String(err),
          });
        }
        op.updated_at = new Date().toISOString();
        resolve();
        this.later(() => this.ops.delete(op.id), this.retainMs);
      }, delayMs);
    });
    this.ops.set(op.id, { op, done });
    return { ...op };
  }

  /** GET /1.0/operations/{id}. */
  get(id: string): Response {
    const e = this.ops.get(id);
    return e ? sync(e.op) : incusError(404, "Operation not found");
  }

  /** GET /1.0/operations/{id}/wait?timeout=N: 200 headers now, the body when done or timed out. */
  wait(id: string, timeoutS: number): Response {
    const e = this.ops.get(id);
    if (!e) return incusError(404, "Operation not found");
    const flavour = this.flavour;
    let tid: ReturnType<typeof setTimeout> | undefined;
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        const timer = timeoutS < 0 ? new Promise<never>(() => {}) : new Promise<"timeout">((r) => {
          tid = setTimeout(() => r("timeout"), timeoutS * 1000);
        });
        const r = await Promise.race([e.done.then(() => "done" as const), timer]);
        clearTimeout(tid);
        let json: unknown;
        if (flavour === "7.x" || (r === "done" && e.op.status_code === 200)) {
          json = envelopeOf(e.op);
        } else {
          const error = r === "timeout" ? "context deadline exceeded" : e.op.err;
          json = {
            type: "error",
            status: "",
            status_code: 0,
            operation: "",
            error_code: 500,
            error,
            metadata: null,
          };
        }
        controller.enqueue(new TextEncoder().encode(JSON.stringify(json)));
        controller.close();
      },
    });
    return new Response(body, { status: 200, headers: { "content-type": "application/json" } });
  }
}

function envelopeOf(op: FakeOperation) {
  return {
    type: "sync",
    status: "Success",
    status_code: 200,
    operation: "",
    error_code: 0,
    error: "",
    metadata: op,
  };
}
