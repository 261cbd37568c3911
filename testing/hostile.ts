/**
 * Hostile HTTP input for the table-driven tests every HTTP surface has: requests `fetch` cannot
 * send (invalid `Host`, lowercase or forbidden methods, raw control characters), bodies built to
 * hurt (100 000-deep JSON, 10 MB, invalid UTF-8, NUL), and stalled bodies, written byte for byte
 * over TCP. Each case is answered, or the connection is closed, and the test asserts the status.
 *
 * @example Usage
 * ```ts ignore
 * import { hostileCases, sendRaw } from "@svc/testing/hostile";
 * for (const c of hostileCases({ path: "/v1/todos", host: "127.0.0.1:8080" })) {
 *   const res = await sendRaw("http://127.0.0.1:8080", c);
 *   if (res.status >= 500) throw new Error(`${c.name}: ${res.status}`);
 * }
 * ```
 * @module
 */

/** One hostile request. */
export interface HostileCase {
  /** Names the case in test steps and failure messages. */
  name: string;
  /** The request head, without the final blank line (CRLF-separated). */
  head: string;
  /** Body bytes sent after the head. */
  body?: Uint8Array;
  /** Stop writing after this many body bytes and wait (a stalled upload). */
  stallAfter?: number;
}

/** What came back: a parsed status line, or 0 when the server closed without answering. */
export interface RawResponse {
  /** The status code of the response, 0 when none came. */
  status: number;
  /** The response head and as much of the body as arrived (for failure messages). */
  text: string;
}

/** Options of {@linkcode hostileCases}. */
export interface HostileOptions {
  /** The route to aim at, e.g. `/v1/todos` or `/default/token`. */
  path: string;
  /** A valid `Host` value for the server, e.g. `127.0.0.1:8080`. */
  host: string;
  /** The method the route takes a body with. @default "POST" */
  bodyMethod?: string;
  /** Include the 10 MB body case (slow on some routes). @default true */
  huge?: boolean;
  /** Extra headers on every case (e.g. an API key). */
  headers?: Record<string, string>;
}

const enc = new TextEncoder();

function request(
  method: string,
  target: string,
  headers: Record<string, string>,
  body?: Uint8Array,
): string {
  const lines = [`${method} ${target} HTTP/1.1`];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  if (body !== undefined && !("content-length" in headers) && !("transfer-encoding" in headers)) {
    lines.push(`content-length: ${body.length}`);
  }
  lines.push("connection: close");
  return lines.join("\r\n");
}

/**
 * The corpus for one route. Every case must be answered below 500 (or the connection closed by
 * the server's HTTP layer, for input that is not HTTP at all).
 */
export function hostileCases(options: HostileOptions): HostileCase[] {
  const { path, host, bodyMethod = "POST", huge = true, headers: extra = {} } = options;
  const h = (more: Record<string, string> = {}) => ({ host, ...extra, ...more });
  const json = (more: Record<string, string> = {}) =>
    h({ "content-type": "application/json", ...more });
  const deep = enc.encode("[".repeat(100_000) + "]".repeat(100_000));
  const deepObject = enc.encode('{"a":'.repeat(50_000) + "1" + "}".repeat(50_000));
  const cases: HostileCase[] = [
    { name: "Host with port 99999", head: request("GET", path, { ...h(), host: "a:99999" }) },
    { name: "Host with bad characters", head: request("GET", path, { ...h(), host: "a b%" }) },
    { name: "empty Host", head: request("GET", path, { ...h(), host: "" }) },
    { name: "Host [::1 unclosed", head: request("GET", path, { ...h(), host: "[::1" }) },
    { name: "no Host at all", head: `GET ${path} HTTP/1.1\r\nconnection: close` },
    { name: "two Host headers", head: request("GET", path, h()) + `\r\nhost: other.example` },
    { name: "lowercase method get", head: request("get", path, h()) },
    { name: "lowercase method post", head: request("post", path, json(), new Uint8Array()) },
    { name: "TRACE", head: request("TRACE", path, h()) },
    { name: "TRACK", head: request("TRACK", path, h()) },
    { name: "invented method", head: request("BREW", path, h()) },
    {
      name: "PATCH",
      head: request("PATCH", path, json(), enc.encode("{}")),
      body: enc.encode("{}"),
    },
    { name: "DELETE", head: request("DELETE", path, h()) },
    { name: "OPTIONS", head: request("OPTIONS", path, h()) },
    { name: "OPTIONS *", head: request("OPTIONS", "*", h()) },
    { name: "absolute-form target", head: request("GET", `http://${host}${path}`, h()) },
    { name: "path with %00", head: request("GET", `${path}/%00`, h()) },
    { name: "path with %0d%0a", head: request("GET", `${path}%0d%0aX-Injected:%201`, h()) },
    { name: "malformed escape", head: request("GET", `${path}/%zz%`, h()) },
    { name: "encoded traversal", head: request("GET", `${path}/..%2f..%2fetc%2fpasswd`, h()) },
    { name: "dot segments", head: request("GET", `/a/../..${path}`, h()) },
    { name: "backslashes", head: request("GET", `${path}\\..\\x`, h()) },
    { name: "64 KiB path", head: request("GET", `${path}/${"a".repeat(65_536)}`, h()) },
    { name: "query with bad escapes", head: request("GET", `${path}?a=%zz&b=%&%00=1`, h()) },
    { name: "control char in header value", head: request("GET", path, h({ "x-a": "a\x01b" })) },
    { name: "8 KiB header", head: request("GET", path, h({ "x-big": "a".repeat(8192) })) },
  ];
  const withBody = (name: string, body: Uint8Array, headers = json()): HostileCase => ({
    name,
    head: request(bodyMethod, path, headers, body),
    body,
  });
  cases.push(
    withBody("JSON nested 100 000 deep (arrays)", deep),
    withBody("JSON nested 50 000 deep (objects)", deepObject),
    withBody("malformed JSON", enc.encode('{"a":')),
    withBody("JSON with NUL escapes", enc.encode('{"a":"\\u0000","b\\u0000":1}')),
    withBody("invalid UTF-8", new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d])),
    withBody("lone surrogate escapes", enc.encode('{"a":"\\ud800","title":"\\udfff"}')),
    withBody("JSON array top level", enc.encode("[1,2,3]")),
    withBody("JSON null", enc.encode("null")),
    withBody("huge number", enc.encode(`{"a":1${"0".repeat(400)}}`)),
    withBody(
      "form body to a JSON route",
      enc.encode("a=1&b=%zz"),
      h({
        "content-type": "application/x-www-form-urlencoded",
      }),
    ),
    withBody("JSON body to a form route", enc.encode('{"grant_type":1}'), json()),
    withBody("no content type", enc.encode("{}"), h()),
    withBody("bad content type", enc.encode("{}"), h({ "content-type": "\x01;;;=" })),
    {
      name: "Content-Length larger than the body (stalled upload)",
      head: request(bodyMethod, path, json({ "content-length": "100" })),
      body: enc.encode('{"a":'),
      stallAfter: 5,
    },
    {
      name: "malformed chunked body",
      head: request(bodyMethod, path, json({ "transfer-encoding": "chunked" })),
      body: enc.encode("zz\r\n{}\r\n0\r\n\r\n"),
    },
    {
      name: "both Content-Length and chunked",
      head: request(
        bodyMethod,
        path,
        json({ "transfer-encoding": "chunked", "content-length": "3" }),
      ),
      body: enc.encode("2\r\n{}\r\n0\r\n\r\n"),
    },
    {
      name: "negative Content-Length",
      head: request(bodyMethod, path, json({ "content-length": "-1" })),
    },
  );
  if (huge) {
    const big = new Uint8Array(10 * 1024 * 1024).fill(0x20);
    big[0] = 0x5b; // "[" ... spaces ... "]"
    big[big.length - 1] = 0x5d;
    cases.push(withBody("10 MB body", big));
  }
  return cases;
}

/** Parses the status code of a raw HTTP/1.1 response; 0 when none arrived. */
export function statusOf(text: string): number {
  const match = /^HTTP\/1\.[01] (\d{3})/.exec(text);
  return match ? Number(match[1]) : 0;
}

/**
 * Sends one case over a fresh TCP connection and reads until the server closes or
 * `timeoutMs` passes (then the connection is closed by us: status 0).
 */
export async function sendRaw(
  base: string,
  hostile: HostileCase,
  options: { timeoutMs?: number; stallMs?: number } = {},
): Promise<RawResponse> {
  const { timeoutMs = 15_000, stallMs = 1_000 } = options;
  const url = new URL(base);
  const conn = await Deno.connect({ hostname: url.hostname, port: Number(url.port) });
  const chunks: Uint8Array[] = [];
  const timer = setTimeout(() => {
    try {
      conn.close();
    } catch { /* already closed */ }
  }, timeoutMs);
  const reading = (async () => {
    const buf = new Uint8Array(64 * 1024);
    let size = 0;
    let expected: number | "chunked" | "none" | undefined; // from the head, once it is in
    try {
      for (;;) {
        const n = await conn.read(buf);
        if (n === null) break;
        chunks.push(buf.slice(0, n));
        size += n;
        // A whole response is enough: a server may keep waiting for the rest of a stalled body.
        expected ??= expectedSize(chunks);
        if (expected === "none") break;
        if (typeof expected === "number" && size >= expected) break;
        if (expected === "chunked" && endsChunked(chunks)) break;
      }
    } catch { /* reset by the server or closed by the timer */ }
  })();
  try {
    await writeAll(conn, enc.encode(hostile.head + "\r\n\r\n"));
    if (hostile.body) {
      const body = hostile.stallAfter === undefined
        ? hostile.body
        : hostile.body.subarray(0, hostile.stallAfter);
      await writeAll(conn, body);
      // real clock: a stalled upload is the case under test; the server's timeout must end it
      if (hostile.stallAfter !== undefined) await new Promise((r) => setTimeout(r, stallMs));
    }
  } catch { /* the server may close before reading everything: its answer still counts */ }
  await reading;
  clearTimeout(timer);
  try {
    conn.close();
  } catch { /* already closed */ }
  const text = new TextDecoder().decode(concat(chunks)).slice(0, 2000);
  return { status: statusOf(text), text };
}

/**
 * What a complete response will measure, read from its head once the head has arrived: the total
 * byte count (head plus `Content-Length`), `chunked`, `none` for a bodiless status, or
 * `undefined` while the head is incomplete (or the body runs until the server closes).
 */
function expectedSize(chunks: Uint8Array[]): number | "chunked" | "none" | undefined {
  const text = new TextDecoder().decode(concat(chunks.slice(0, 4))); // heads are small
  const end = text.indexOf("\r\n\r\n");
  if (end < 0) return undefined;
  const head = text.slice(0, end).toLowerCase();
  const length = /\r\ncontent-length: *(\d+)/.exec(head);
  if (length) return new TextEncoder().encode(text.slice(0, end + 4)).length + Number(length[1]);
  if (/\r\ntransfer-encoding: *chunked/.test(head)) return "chunked";
  return /^http\/1\.[01] (1\d\d|204|304)/.test(head) ? "none" : undefined;
}

function endsChunked(chunks: Uint8Array[]): boolean {
  const tail = new TextDecoder().decode(chunks.at(-1)!.slice(-5));
  return tail.endsWith("0\r\n\r\n");
}

/**
 * Reads from a raw connection until the server closes it or `limit` bytes arrived; returns the
 * first kilobyte (the head, for assertions) and the byte count.
 *
 * @example Usage
 * ```ts ignore
 * import { readUntilClosed } from "@svc/testing/hostile";
 * const conn = await Deno.connect({ hostname: "127.0.0.1", port: 8080 });
 * const { head, bytes } = await readUntilClosed(conn);
 * ```
 */
export async function readUntilClosed(
  conn: Deno.Conn,
  limit = Infinity,
): Promise<{ head: string; bytes: number }> {
  const buf = new Uint8Array(1 << 16);
  let head = "";
  let bytes = 0;
  for (;;) {
    const n = await conn.read(buf).catch(() => null);
    if (n === null) break;
    if (head.length < 1024) head += new TextDecoder().decode(buf.subarray(0, n)).slice(0, 1024);
    bytes += n;
    if (bytes >= limit) break;
  }
  return { head, bytes };
}

async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  for (let off = 0; off < bytes.length;) off += await conn.write(bytes.subarray(off));
}

function concat(chunks: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}
