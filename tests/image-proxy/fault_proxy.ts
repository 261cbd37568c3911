/**
 * A fault-injecting TCP proxy for the end-to-end tests: sits between the image proxy and the S3
 * server and, per connection, passes bytes through or misbehaves the way real networks and
 * stores do. Setting `mode` closes every open connection, so the next request of a keep-alive
 * client meets the new behaviour.
 *
 * @module
 */

/** What happens to a connection. */
export type FaultMode =
  /** Bytes pass both ways. */
  | "pass"
  /** The request is read, nothing is ever answered. */
  | "stall"
  /** The connection is closed as soon as the request arrives (a reset before any answer). */
  | "reset"
  /** Every request is answered `503 SlowDown` (S3's XML), then the connection closes. */
  | "http503"
  /** Responses pass, but stop for good after `stallAfterBytes` bytes of the response. */
  | "stall_body"
  /** Responses pass in small chunks with a pause between them. */
  | "slow";

/** A running fault proxy. */
export interface FaultProxy {
  /** `http://127.0.0.1:<port>` */
  endpoint: string;
  port: number;
  mode: FaultMode;
  /** For `stall_body`: response bytes let through before the stall. @default {1024} */
  stallAfterBytes: number;
  /** For `slow`: bytes per chunk and pause between chunks. */
  slow: { chunkBytes: number; pauseMs: number };
  /** Connections accepted so far. */
  readonly connections: number;
  /** Request lines seen (`GET /bucket/key HTTP/1.1`), in order, whatever the mode. */
  readonly requests: string[];
  /** Runs (and is awaited) before a request that passes through is forwarded. */
  beforeRequest?: (line: string) => Promise<void> | void;
  /** Closes the listener and every connection. */
  close(): Promise<void>;
}

const SLOW_DOWN_BODY = '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>SlowDown</Code>' +
  "<Message>Please reduce your request rate.</Message></Error>";
const SLOW_DOWN = "HTTP/1.1 503 Slow Down\r\nContent-Type: application/xml\r\n" +
  `Content-Length: ${SLOW_DOWN_BODY.length}\r\nConnection: close\r\n\r\n${SLOW_DOWN_BODY}`;

/**
 * Starts a fault proxy in front of `upstream` (`host:port`).
 *
 * @example Usage
 * ```ts ignore
 * const faults = await startFaultProxy("127.0.0.1:9000");
 * faults.mode = "stall";
 * ```
 */
export function startFaultProxy(upstream: string): Promise<FaultProxy> {
  const [upHost, upPort] = upstream.split(":");
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const open = new Set<Deno.Conn>();
  const tasks = new Set<Promise<void>>();
  let connections = 0;
  let mode: FaultMode = "pass";
  let closeAll!: () => void;
  const closing = new Promise<void>((r) => closeAll = r);
  const proxy: FaultProxy = {
    endpoint: `http://127.0.0.1:${listener.addr.port}`,
    port: listener.addr.port,
    get mode() {
      return mode;
    },
    set mode(next: FaultMode) {
      mode = next;
      for (const c of [...open]) closeQuietly(c);
    },
    stallAfterBytes: 1024,
    slow: { chunkBytes: 4096, pauseMs: 20 },
    get connections() {
      return connections;
    },
    requests: [],
    async close() {
      closeAll();
      listener.close();
      for (const c of open) closeQuietly(c);
      await Promise.allSettled(tasks);
      await accepting;
    },
  };

  function closeQuietly(conn: Deno.Conn) {
    try {
      conn.close();
    } catch { /* already closed */ }
    open.delete(conn);
  }

  async function handle(client: Deno.Conn) {
    open.add(client);
    const connMode = mode;
    const first = new Uint8Array(64 * 1024);
    const n = await client.read(first).catch(() => null);
    if (n === null) return closeQuietly(client);
    const lines = requestLines(first.subarray(0, n));
    proxy.requests.push(...lines);
    if (connMode === "reset") return closeQuietly(client);
    if (connMode === "stall") return; // held open, unanswered, until close()
    if (connMode === "http503") {
      await client.write(new TextEncoder().encode(SLOW_DOWN)).catch(() => {});
      return closeQuietly(client);
    }
    let server: Deno.Conn;
    try {
      server = await Deno.connect({ hostname: upHost, port: Number(upPort) });
    } catch {
      return closeQuietly(client);
    }
    open.add(server);
    for (const line of lines) await proxy.beforeRequest?.(line);
    await server.write(first.subarray(0, n)).catch(() => {});
    const up = pump(client, server, () => "pass", true);
    const down = pump(server, client, () => connMode);
    await Promise.allSettled([up, down]);
    closeQuietly(client);
    closeQuietly(server);
  }

  async function pump(
    from: Deno.Conn,
    to: Deno.Conn,
    modeOf: () => FaultMode,
    requests = false,
  ) {
    const buf = new Uint8Array(64 * 1024);
    let sent = 0;
    for (;;) {
      const n = await from.read(buf).catch(() => null);
      if (n === null) break;
      let chunk = buf.subarray(0, n);
      if (requests) {
        const lines = requestLines(chunk);
        proxy.requests.push(...lines);
        for (const line of lines) await proxy.beforeRequest?.(line);
      }
      const mode = modeOf();
      if (mode === "stall_body") {
        const room = Math.max(0, proxy.stallAfterBytes - sent);
        chunk = chunk.subarray(0, room);
        if (chunk.byteLength === 0) {
          await closing; // stalled until the proxy closes
          break;
        }
      }
      try {
        if (mode === "slow") {
          for (let at = 0; at < chunk.byteLength; at += proxy.slow.chunkBytes) {
            await writeAll(to, chunk.subarray(at, at + proxy.slow.chunkBytes));
            // real clock: the slow mode: a network that delivers chunks pauseMs apart
            await new Promise((r) => setTimeout(r, proxy.slow.pauseMs));
          }
        } else await writeAll(to, chunk);
      } catch {
        break;
      }
      sent += chunk.byteLength;
    }
    try {
      await to.closeWrite();
    } catch { /* gone */ }
  }

  const accepting = (async () => {
    for await (const conn of listener) {
      connections++;
      const task = handle(conn).catch(() => closeQuietly(conn));
      tasks.add(task);
      task.finally(() => tasks.delete(task));
    }
  })().catch(() => {});
  return Promise.resolve(proxy);
}

async function writeAll(conn: Deno.Conn, bytes: Uint8Array) {
  let at = 0;
  while (at < bytes.byteLength) at += await conn.write(bytes.subarray(at));
}

const REQUEST_LINE = /^(GET|HEAD|PUT|POST|DELETE) \S+ HTTP\/1\.1\r$/gm;

function requestLines(bytes: Uint8Array): string[] {
  const text = new TextDecoder().decode(bytes);
  return [...text.matchAll(REQUEST_LINE)].map((m) => m[0].trimEnd());
}
