/**
 * The default signer: WebCrypto on a small pool of worker threads. Why: Deno's WebCrypto signs
 * RS256 in ≈1.3 ms on the calling thread, so signing on the event loop stalls every other
 * request; a worker per core signs beside it and needs no permission beyond reading its own
 * module (no `--allow-ffi`). The first worker starts on the first bound key (or
 * {@linkcode Signer.ready}); the others, up to the pool size, only when a request finds every
 * started worker busy: a test run that signs a few tokens one at a time never pays for starting
 * a thread per core (each loads the module graph anew, tens of ms of CPU at start-up). Each
 * worker receives every key, and a request goes to the worker with the fewest in flight.
 *
 * @module
 */

import type { AlgorithmSpec } from "./algorithms.ts";
import type { PoolMessage, WorkerMessage } from "./sign_worker.ts";
import type { Signer } from "./signer.ts";

/** Options of {@linkcode createWebCryptoPool}. */
export interface WebCryptoPoolOptions {
  /** Worker threads. @default {navigator.hardwareConcurrency} */
  size?: number;
  /** The worker module (tests substitute a failing one). @default {"./sign_worker.ts"} */
  workerUrl?: URL;
}

interface Pending {
  resolve(signature: Uint8Array): void;
  reject(err: Error): void;
}

interface Slot {
  worker: Worker;
  pending: Map<number, Pending>;
  /** Answered at least once: a failure after that is a crash worth replacing the worker for. */
  alive: boolean;
  failed?: string;
}

/** The pool size the default asks for: one worker per core. */
export function defaultPoolSize(): number {
  return Math.max(1, navigator.hardwareConcurrency || 1);
}

/**
 * Create the pool; no thread starts until `ready()` is called or the first signature is asked
 * for (keys bound before are handed to each thread as it starts).
 */
export function createWebCryptoPool(options: WebCryptoPoolOptions = {}): Signer {
  const size = Math.max(1, Math.floor(options.size ?? defaultPoolSize()));
  const url = options.workerUrl ?? new URL("./sign_worker.ts", import.meta.url);
  const keys: PoolMessage[] = [];
  let slots: Slot[] | undefined;
  let closed = false;
  let nextId = 0;

  function spawn(): Slot {
    const slot: Slot = {
      worker: new Worker(url.href, { type: "module", name: "mock-oidc-signer" }),
      pending: new Map(),
      alive: false,
    };
    slot.worker.onmessage = ({ data }: MessageEvent<WorkerMessage>) => {
      slot.alive = true;
      const pending = slot.pending.get(data.id);
      if (!pending) return;
      slot.pending.delete(data.id);
      if ("error" in data) pending.reject(new Error(data.error));
      else pending.resolve(new Uint8Array(data.signature));
    };
    slot.worker.onerror = (event) => {
      event.preventDefault();
      fail(slot, event.message);
    };
    for (const key of keys) slot.worker.postMessage(key);
    return slot;
  }

  function fail(slot: Slot, why: string) {
    slot.worker.terminate();
    slot.failed = why;
    const err = new Error(`Cannot sign: a signing worker failed: ${why}`);
    for (const pending of slot.pending.values()) pending.reject(err);
    slot.pending.clear();
    // A worker that never answered would fail again (e.g. its module cannot be read).
    if (slot.alive && !closed && slots) slots[slots.indexOf(slot)] = spawn();
  }

  function started(): Slot[] {
    slots ??= [spawn()];
    return slots;
  }

  function request(build: (id: number) => PoolMessage): Promise<Uint8Array> {
    if (closed) return Promise.reject(new Error("Cannot sign: the signer is closed"));
    const live = started().filter((s) => !s.failed);
    if (live.length === 0) {
      const why = slots?.[0]?.failed ?? "none started";
      return Promise.reject(new Error(`Cannot sign: every signing worker failed: ${why}`));
    }
    let slot = live.reduce((a, b) => b.pending.size < a.pending.size ? b : a);
    // Every started worker is busy: start another, up to the pool size.
    if (slot.pending.size > 0 && slots!.length < size) slots!.push(slot = spawn());
    const id = nextId++;
    return new Promise((resolve, reject) => {
      slot.pending.set(id, { resolve, reject });
      slot.worker.postMessage(build(id));
    });
  }

  return {
    name: "webcrypto",
    bind(pkcs8: Uint8Array, spec: AlgorithmSpec) {
      if (closed) throw new Error("Cannot bind a key: the signer is closed");
      const key = keys.length;
      const message: PoolMessage = {
        op: "key",
        key,
        pkcs8: pkcs8.slice().buffer,
        importParams: spec.webcrypto,
        signParams: spec.signParams,
      };
      keys.push(message);
      // Threads already started get the key now; later ones get every key as they start.
      for (const slot of slots ?? []) if (!slot.failed) slot.worker.postMessage(message);
      return (data) => request((id) => ({ op: "sign", id, key, data }));
    },
    async ready() {
      if (closed) throw new Error("Cannot start the signer: it is closed");
      // The started workers settle before this answers, so a failure (a module that cannot load,
      // which the later ones would meet too) is known to later requests.
      const pings = await Promise.allSettled(
        started().map((slot) =>
          new Promise<Uint8Array>((resolve, reject) => {
            if (slot.failed) {
              return reject(new Error(`Cannot sign: a signing worker failed: ${slot.failed}`));
            }
            const id = nextId++;
            slot.pending.set(id, { resolve, reject });
            slot.worker.postMessage({ op: "ping", id } satisfies PoolMessage);
          })
        ),
      );
      const failed = pings.find((p) => p.status === "rejected");
      if (failed) throw failed.reason;
    },
    close() {
      closed = true;
      const err = new Error("Cannot sign: the signer is closed");
      for (const slot of slots ?? []) {
        slot.worker.terminate();
        for (const pending of slot.pending.values()) pending.reject(err);
        slot.pending.clear();
      }
      return Promise.resolve();
    },
  };
}
