/**
 * Keep-alive HTTP/1.1 clients over raw TCP for shutdown tests: each sends requests one after
 * another on one connection until it is told `Connection: close` (or is stopped), and records what
 * it got. Unlike `fetch`, which hides connections and reconnects on its own, these tell a reset or
 * a connection closed without an answer apart from a 503.
 *
 * @module
 */

/** One client's record. */
export interface KeepAliveRecord {
  /** Answers received, in order: status and whether it carried `Connection: close`. */
  answers: { status: number; close: boolean }[];
  /** How the connection failed, if it did: an error name, or `closed without an answer`. */
  failure?: string;
}

/** Options of {@linkcode startKeepAliveClients}. */
export interface KeepAliveClientsOptions {
  /** How many clients (connections). @default {8} */
  clients?: number;
  /** Each client waits a random time up to this long between requests. @default {0} */
  paceMs?: number;
  /** Request path. @default {"/"} */
  path?: string;
  /** Extra request header lines (`name: value`). @default {[]} */
  headers?: string[];
}

/** Running clients. */
export interface KeepAliveClients {
  /** Answers received so far by all clients. */
  answered(): number;
  /** Stops each client after its current request and resolves with every record. */
  stop(): Promise<KeepAliveRecord[]>;
  /** Resolves once every client has ended by itself (told to close, or failed). */
  ended: Promise<KeepAliveRecord[]>;
}

const enc = new TextEncoder();
const dec = new TextDecoder();

/** Reads one response (head + `Content-Length` body); `undefined` when the server closed first. */
async function readResponse(
  conn: Deno.Conn,
  buf: Uint8Array,
): Promise<{ status: number; close: boolean } | undefined> {
  let text = "";
  for (;;) {
    const end = text.indexOf("\r\n\r\n");
    if (end >= 0) {
      const head = text.slice(0, end).toLowerCase();
      const length = Number(/\r\ncontent-length: *(\d+)/.exec(head)?.[1] ?? 0);
      if (enc.encode(text).length >= enc.encode(text.slice(0, end + 4)).length + length) {
        const status = Number(/^http\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0);
        return { status, close: /\r\nconnection: *close/.test(head) };
      }
    }
    const n = await conn.read(buf);
    if (n === null) return undefined;
    text += dec.decode(buf.subarray(0, n));
  }
}

/**
 * Starts keep-alive clients against `url` (an `http://host:port` base).
 *
 * @example Usage
 * ```ts ignore
 * import { startKeepAliveClients } from "@svc/testing";
 * const clients = startKeepAliveClients(server.urls.api, { clients: 16 });
 * await server.shutdown();
 * const records = await clients.ended; // each: answers, and no failure
 * ```
 */
export function startKeepAliveClients(
  url: string,
  options: KeepAliveClientsOptions = {},
): KeepAliveClients {
  const { clients = 8, paceMs = 0, path = "/", headers = [] } = options;
  const { hostname, port } = new URL(url);
  const request = enc.encode(
    [`GET ${path} HTTP/1.1`, `Host: ${hostname}:${port}`, ...headers, "", ""].join("\r\n"),
  );
  let stopping = false;
  let answered = 0;

  async function client(): Promise<KeepAliveRecord> {
    const record: KeepAliveRecord = { answers: [] };
    let conn: Deno.Conn | undefined;
    try {
      conn = await Deno.connect({ hostname: hostname.replace(/^\[|\]$/g, ""), port: Number(port) });
      const buf = new Uint8Array(16 * 1024);
      while (!stopping) {
        await conn.write(request);
        const answer = await readResponse(conn, buf);
        if (!answer) {
          record.failure = "closed without an answer";
          break;
        }
        record.answers.push(answer);
        answered++;
        if (answer.close) break;
        // real clock: clients pace their requests like real ones (paceMs), the load under test
        if (paceMs > 0) await new Promise((r) => setTimeout(r, Math.random() * paceMs));
      }
    } catch (err) {
      record.failure = (err as Error).name;
    } finally {
      try {
        conn?.close();
      } catch { /* already closed */ }
    }
    return record;
  }

  const ended = Promise.all(Array.from({ length: clients }, client));
  return {
    answered: () => answered,
    stop() {
      stopping = true;
      return ended;
    },
    ended,
  };
}
