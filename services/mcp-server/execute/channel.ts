/**
 * The reply channel between the main thread and an execute worker that is blocked in a capability
 * call. Each worker owns one for its whole life: a `MessagePort` that carries the replies and a
 * 4-byte SharedArrayBuffer whose counter the main thread bumps after posting one. The worker waits
 * on the counter (`Atomics.wait`) and takes the reply off the port synchronously
 * (`receiveMessageOnPort`), so a reply costs a structured clone of itself and nothing stays
 * allocated between calls (an earlier design gave every execute its own reply buffer sized for the
 * largest reply, 4 MiB by default, which piled up outside both heaps until the collectors of both
 * isolates let it go). Replies carry the id of their call: one that arrives after its call gave up
 * waiting is dropped, never taken for the next call's.
 * @module
 */
import { type MessagePort, receiveMessageOnPort } from "node:worker_threads";

/** The worker's end: its port and the shared counter. */
export interface ReplyReceiver {
  port: MessagePort;
  signal: SharedArrayBuffer;
}

/** Creates the shared counter of a channel. */
export function createReplySignal(): SharedArrayBuffer {
  return new SharedArrayBuffer(4);
}

/** Main thread: posts the reply to call `id` and wakes the worker. Never blocks. */
export function sendReply(
  port: MessagePort,
  signal: SharedArrayBuffer,
  id: number,
  reply: unknown,
): void {
  port.postMessage({ id, reply });
  const counter = new Int32Array(signal);
  Atomics.add(counter, 0, 1);
  Atomics.notify(counter, 0);
}

/**
 * Worker: blocks until the reply to call `id` arrives or `timeoutMs` passes (then returns
 * `undefined`). Replies to earlier calls still in the port are dropped.
 */
export function awaitReply(
  receiver: ReplyReceiver,
  id: number,
  timeoutMs: number,
): { reply: unknown } | undefined {
  const counter = new Int32Array(receiver.signal);
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    // read the counter before looking at the port: a reply posted after the look bumps it, so
    // the wait below returns at once instead of missing the wake-up
    const seen = Atomics.load(counter, 0);
    for (
      let got = receiveMessageOnPort(receiver.port);
      got;
      got = receiveMessageOnPort(receiver.port)
    ) {
      const message = got.message as { id: number; reply: unknown };
      if (message.id === id) return { reply: message.reply };
    }
    const left = deadline - performance.now();
    if (left <= 0) return undefined;
    Atomics.wait(counter, 0, seen, left);
  }
}
