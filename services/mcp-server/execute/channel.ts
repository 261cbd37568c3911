/**
 * The reply slot between the main thread and an execute worker that is blocked in a capability
 * call: a SharedArrayBuffer holding a state word, a length and the v8-serialized reply. Only one
 * call is outstanding per worker, so one slot suffices; the main thread never blocks.
 * @module
 */
import { deserialize, serialize } from "node:v8";

const HEADER = 8;

/** Creates a slot able to carry replies up to `capacity` serialized bytes. */
export function createReplySlot(capacity: number): SharedArrayBuffer {
  return new SharedArrayBuffer(HEADER + capacity);
}

/**
 * Main thread: stores a reply and wakes the worker. Returns false (and stores nothing) when the
 * serialized reply does not fit the slot.
 */
export function sendReply(slot: SharedArrayBuffer, reply: unknown): boolean {
  const bytes = serialize(reply);
  const header = new Int32Array(slot, 0, 2);
  if (bytes.length > slot.byteLength - HEADER) return false;
  new Uint8Array(slot, HEADER, bytes.length).set(bytes);
  header[1] = bytes.length;
  Atomics.store(header, 0, 1);
  Atomics.notify(header, 0);
  return true;
}

/** Worker: marks the slot empty before posting a call. */
export function clearReply(slot: SharedArrayBuffer): void {
  Atomics.store(new Int32Array(slot, 0, 2), 0, 0);
}

/** Worker: blocks until a reply arrives or `timeoutMs` passes (then returns `undefined`). */
export function awaitReply(
  slot: SharedArrayBuffer,
  timeoutMs: number,
): { reply: unknown } | undefined {
  const header = new Int32Array(slot, 0, 2);
  if (Atomics.wait(header, 0, 0, Math.max(0, timeoutMs)) === "timed-out") return undefined;
  const length = header[1];
  return { reply: deserialize(new Uint8Array(slot, HEADER, length).slice()) };
}
