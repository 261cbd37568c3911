/**
 * The raw body a captured entry holds, and when its memory goes back. The log keeps each body as
 * the bytes read (outside the V8 heap, exactly their size; from 64 KiB up in pages mapped for it
 * alone, see `readBody`'s `pageBacked`); `bodyBase64` and `body` are made from them only when the
 * entry is read. When the log drops an entry (evicted past a budget, cleared, reset) its bytes
 * are freed at once by detaching their buffer, rather than whenever the collector next runs,
 * which an idle process may not do for a long time. Whoever still reads an entry after the log
 * could drop it (the request's own handler, a listing being sent) holds a lease, and the bytes
 * are freed when the last lease ends. An entry a take removed is never dropped: it belongs to the
 * taker.
 * @module
 */
import type { CapturedRequest } from "./request_log.ts";

interface HeldBody {
  bytes: Uint8Array<ArrayBuffer>;
  leases: number;
  dropped: boolean;
}

// Beside the entry, not a hidden property on it: the entry is the JSON the control plane lists.
// Entries live until the log drops them, so a weak map costs the collector nothing per request.
const HELD = new WeakMap<CapturedRequest, HeldBody>();

function heldOf(entry: CapturedRequest): HeldBody | undefined {
  return HELD.get(entry);
}

/**
 * Gives `entry` the raw body `bytes` (kept as they are when they own their whole buffer, else
 * copied so no larger buffer stays behind them), read through `bodyBase64` and `body`.
 */
export function holdBody(entry: CapturedRequest, bytes: Uint8Array): void {
  const own = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength &&
    bytes.buffer instanceof ArrayBuffer;
  const held: HeldBody = {
    bytes: own ? bytes as Uint8Array<ArrayBuffer> : bytes.slice(),
    leases: 0,
    dropped: false,
  };
  HELD.set(entry, held);
  // A body freed while nobody held a lease reads as absent rather than as an empty body.
  const live = () => held.bytes.buffer.detached ? undefined : held.bytes;
  Object.defineProperty(entry, "bodyBase64", {
    enumerable: true,
    get: () => live()?.toBase64(),
  });
  Object.defineProperty(entry, "body", {
    enumerable: true,
    get: () => {
      const bytes = live();
      return bytes && new TextDecoder().decode(bytes);
    },
  });
}

/** Bytes of the raw body `entry` holds, if {@linkcode holdBody} gave it one. */
export function bodySizeOf(entry: CapturedRequest): number | undefined {
  return heldOf(entry)?.bytes.byteLength;
}

/**
 * Keeps `entry`'s body readable, even if the log drops the entry meanwhile, until the returned
 * function is called (calling it again does nothing).
 */
export function leaseBody(entry: CapturedRequest): () => void {
  const held = heldOf(entry);
  if (!held) return () => {};
  held.leases++;
  let open = true;
  return () => {
    if (!open) return;
    open = false;
    held.leases--;
    freeIfUnused(held);
  };
}

/** The log no longer holds `entry`: its body is freed now, or when its last lease ends. */
export function dropBody(entry: CapturedRequest): void {
  const held = heldOf(entry);
  if (!held) return;
  held.dropped = true;
  freeIfUnused(held);
}

function freeIfUnused(held: HeldBody): void {
  if (!held.dropped || held.leases > 0 || held.bytes.buffer.detached) return;
  // Detaching hands the backing store back to the allocator now; the 0-byte result is garbage.
  held.bytes.buffer.transfer(0);
}
