// deno-lint-ignore-file camelcase -- Incus wire field names (status_code, created_at, …)
/**
 * Background operations of the fake Incus: status transitions (103 Running → 200 Success or 400
 * Failure), the `/wait` endpoint in both flavours (6.0 LTS: an error envelope inside HTTP 200 on
 * failure or timeout; 7.x: the Operation itself with status_code 400 or 103), written as a body
 * that arrives after the 200 headers, and removal a while after completion (404 afterwards).
 *
 * Cancel (`DELETE /1.0/operations/{id}`) as Incus's `operationDelete` and `Operation.Cancel`
 * answer it: 404 "Operation not found" for an unknown id; 400 "Only running operations can be
 * cancelled" once it has ended (it is still retained); 400 "This operation can't be cancelled"
 * when `may_cancel` is false (an instance create reports false on 6.0.4, see the reference
 * probe; every operation of this fake does unless scripted otherwise); otherwise 200 with an empty sync response, status 104 Cancelling, then 401
 * Cancelled, and the work never happens. A hung operation is scripted with
 * {@linkcode OperationStore.hangNext}.
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
  readonly ops = new Map<
    string,
    { op: FakeOperation; done: Promise<void>; finish: (f: Partial<FakeOperation>) => void }
  >();
  flavour: "6.0" | "7.x" = "6.0";
  /** Operations running (103 or 104) right now. */
  running = 0;
  /** The most that were running at once. */
  peakRunning = 0;
  #hang: { description: RegExp; holdMs: number; mayCancel: boolean }[] = [];
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

  /**
   * The next operation whose description matches runs `holdMs` instead of the usual time (a hung
   * operation), with `may_cancel` as given.
   */
  hangNext(o: { description: RegExp; holdMs: number; mayCancel: boolean }): void {
    this.#hang.push(o);
  }

  /** Starts `work` after `delayMs` as an operation; a thrown error fails it with its message. */
  start(
    description: string,
    resources: Record<string, string[]>,
    delayMs: number,
    work: () => void | Promise<void>,
  ): FakeOperation {
    const h = this.#hang.findIndex((x) => x.description.test(description));
    const hang = h >= 0 ? this.#hang.splice(h, 1)[0] : undefined;
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
      may_cancel: hang?.mayCancel ?? false,
      err: "",
      location: "none",
    };
    let resolve = () => {};
    const done = new Promise<void>((r) => resolve = r);
    const finish = (f: Partial<FakeOperation>) => {
      Object.assign(op, f, { updated_at: new Date().toISOString() });
      this.running--;
      resolve();
      this.later(() => this.ops.delete(op.id), this.retainMs);
    };
    this.running++;
    this.peakRunning = Math.max(this.peakRunning, this.running);
    this.later(async () => {
      if (op.status_code !== 103) return; // cancelled meanwhile: the work never happens
      try {
        await work();
        finish({ status: "Success", status_code: 200 });
      } catch (err) {
        finish({
          status: "Failure",
          status_code: 400,
          err: err instanceof Error ? err.message : String(err),
        });
      }
    }, hang?.holdMs ?? delayMs);
    this.ops.set(op.id, { op, done, finish });
    return { ...op };
  }

  /** DELETE /1.0/operations/{id}: cancel, refused as Incus refuses it. */
  cancel(id: string): Response {
    const e = this.ops.get(id);
    if (!e) return incusError(404, "Operation not found");
    if (e.op.status_code !== 103) {
      return incusError(400, "Only running operations can be cancelled");
    }
    if (!e.op.may_cancel) return incusError(400, "This operation can't be cancelled");
    Object.assign(e.op, { status: "Cancelling", status_code: 104 });
    this.later(() => e.finish({ status: "Cancelled", status_code: 401 }), 1);
    return sync({});
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
        // 6.0 renders the Operation when its wait returns no error: success, and a cancel
        // (Incus sets no error on a cancelled operation).
        const ok = e.op.status_code === 200 || e.op.status_code === 401;
        if (flavour === "7.x" || (r === "done" && ok)) {
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
