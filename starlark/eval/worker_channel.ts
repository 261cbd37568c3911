/**
 * Reply channel from the main thread to a worker blocked in Atomics.wait: a SharedArrayBuffer
 * with a 3-int header (state, total length, chunk length) and a data area; payloads larger
 * than the data area travel in chunks (the worker asks for "more").
 */
import { deserialize, serialize } from "node:v8";

const HEADER = 12;
export const CHANNEL_BYTES = HEADER + (1 << 20);

/** Main-thread side: writes one serialized reply, chunk by chunk. */
export class ReplyWriter {
  private data: Uint8Array = new Uint8Array(0);
  private offset = 0;
  private readonly header: Int32Array;
  private readonly area: Uint8Array;
  constructor(sab: SharedArrayBuffer) {
    this.header = new Int32Array(sab, 0, 3);
    this.area = new Uint8Array(sab, HEADER);
  }
  send(value: unknown): void {
    this.data = serialize(value);
    this.offset = 0;
    this.more();
  }
  /** Write the next chunk and wake the worker. */
  more(): void {
    const n = Math.min(this.area.length, this.data.length - this.offset);
    this.area.set(this.data.subarray(this.offset, this.offset + n));
    this.offset += n;
    this.header[1] = this.data.length;
    this.header[2] = n;
    Atomics.store(this.header, 0, 1);
    Atomics.notify(this.header, 0);
  }
}

/** Worker side: block until the whole reply has arrived. */
export function receiveReply(sab: SharedArrayBuffer, askMore: () => void): unknown {
  const header = new Int32Array(sab, 0, 3);
  const area = new Uint8Array(sab, HEADER);
  let buf: Uint8Array | null = null;
  let got = 0;
  for (;;) {
    Atomics.wait(header, 0, 0);
    const total = header[1], n = header[2];
    buf ??= new Uint8Array(total);
    buf.set(area.subarray(0, n), got);
    got += n;
    Atomics.store(header, 0, 0);
    if (got >= total) break;
    askMore();
  }
  return deserialize(buf);
}
