/**
 * A seeded raw-socket fuzzer for HTTP/1.1 servers: malformed request lines and headers,
 * conflicting framing (`Content-Length` with `Transfer-Encoding`, duplicate, negative and huge
 * lengths), aborted and half-sent requests, pipelining, unread bodies behind
 * `Expect: 100-continue`, and bytes that are not HTTP/1 at all (the HTTP/2 preface, a TLS
 * ClientHello, binary noise). Every case is derived from one seed, so a failure is replayed by
 * running the test again with that seed (`FUZZ_SEED`), and the failure message names it.
 *
 * {@linkcode fuzzCases} draws the cases; {@linkcode runFuzz} sends them in batches over fresh
 * connections, a few at a time, collects every status line that came back, and after each batch
 * checks that the server still answers its health route. The end-to-end fuzz test of each
 * service is then a start, one call and three assertions.
 *
 * @module
 */

/** A route of the service under test that takes a body (or any request worth aiming at). */
export interface FuzzTarget {
  /** Request method, e.g. `POST`. */
  method: string;
  /** Path and query, e.g. `/v1/todos`. */
  path: string;
  /** Headers a real client sends there (content type, credentials). */
  headers?: Record<string, string>;
  /** A body a real client sends there. */
  body?: string;
}

/** How a case is delivered on its connection. */
export type FuzzDelivery =
  /** Write everything, then read until the server closes (or the read bound). */
  | "read"
  /** Write everything in small pieces, then read. */
  | "trickle"
  /** Write everything, shut down the write side, read. */
  | "half-close"
  /** Write everything and close at once, reading nothing. */
  | "abort"
  /** Write a prefix of the bytes and close. */
  | "cut"
  /** Write everything, read the first bytes of the answer, close. */
  | "read-then-abort";

/** One fuzz case: bytes for a fresh connection and how to send them. */
export interface FuzzCase {
  /** Names the case in failure messages, e.g. `12:cl-te-conflict/trickle`. */
  name: string;
  /** The bytes written on the connection. */
  bytes: Uint8Array;
  /** How they are written, and whether the answer is read. */
  delivery: FuzzDelivery;
  /** For `cut`: how many bytes are written. */
  cutAt?: number;
}

/** Options of {@linkcode fuzzCases}. */
export interface FuzzCaseOptions {
  /** Seed of the deterministic generator. */
  seed: number;
  /** How many cases to draw. */
  count: number;
  /** A valid `Host` value, e.g. `127.0.0.1:8080`. */
  host: string;
  /** Real routes; unknown paths are added by the generator. */
  targets: readonly FuzzTarget[];
  /** Index of the first case (names stay unique across batches). @default {0} */
  first?: number;
}

/**
 * A small deterministic generator (mulberry32): the same seed always draws the same cases.
 *
 * @example Usage
 * ```ts
 * import { seededRandom } from "@svc/testing";
 * const a = seededRandom(7), b = seededRandom(7);
 * if (a() !== b()) throw new Error("not deterministic");
 * ```
 */
export function seededRandom(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const enc = new TextEncoder();

/** The HTTP/2 connection preface followed by an empty SETTINGS frame (h2c prior knowledge). */
const H2_PREFACE = new Uint8Array([
  ...enc.encode("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"),
  0,
  0,
  0,
  4,
  0,
  0,
  0,
  0,
  0,
]);

/** The start of a TLS 1.2/1.3 ClientHello record, as a browser sends it to an https URL. */
function tlsClientHello(random: () => number): Uint8Array {
  const body = new Uint8Array(200);
  for (let i = 0; i < body.length; i++) body[i] = Math.floor(random() * 256);
  // handshake type 1 (ClientHello), length, version 3.3
  body.set([1, 0, 0, body.length - 4, 3, 3], 0);
  return new Uint8Array([0x16, 3, 1, 0, body.length, ...body]);
}

/** An HTTP/2 frame: 9-byte header (length, type, flags, stream id), then the payload. */
function h2Frame(type: number, flags: number, stream: number, payload: Uint8Array): Uint8Array {
  const n = payload.length;
  return new Uint8Array([
    (n >> 16) & 255,
    (n >> 8) & 255,
    n & 255,
    type,
    flags,
    (stream >>> 24) & 127,
    (stream >> 16) & 255,
    (stream >> 8) & 255,
    stream & 255,
    ...payload,
  ]);
}

/** An HPACK integer with an `prefix`-bit prefix (RFC 7541 §5.1), first byte ORed with `mask`. */
function hpackInt(value: number, prefix: number, mask: number): number[] {
  const max = (1 << prefix) - 1;
  if (value < max) return [mask | value];
  const out = [mask | max];
  for (value -= max; value >= 128; value = Math.floor(value / 128)) out.push((value % 128) | 128);
  out.push(value);
  return out;
}

/**
 * An HPACK header block of literals without indexing (no Huffman): pseudo-headers name their
 * static-table entry, other names are sent as text.
 */
function hpack(headers: [string, string][]): Uint8Array {
  const STATIC: Record<string, number> = {
    ":authority": 1,
    ":method": 2,
    ":path": 4,
    ":scheme": 6,
  };
  const out: number[] = [];
  for (const [name, value] of headers) {
    const index = STATIC[name];
    if (index) out.push(...hpackInt(index, 4, 0));
    else {
      const n = enc.encode(name.toLowerCase());
      out.push(0, ...hpackInt(n.length, 7, 0), ...n);
    }
    const v = enc.encode(value);
    out.push(...hpackInt(v.length, 7, 0), ...v);
  }
  return new Uint8Array(out);
}

type Draw = { kind: string; bytes: Uint8Array };

/**
 * Draws `count` cases from `seed`.
 *
 * @example Usage
 * ```ts
 * import { fuzzCases } from "@svc/testing";
 * const cases = fuzzCases({ seed: 1, count: 50, host: "127.0.0.1:8080", targets: [] });
 * if (cases.length !== 50) throw new Error("count");
 * ```
 */
export function fuzzCases(options: FuzzCaseOptions): FuzzCase[] {
  const { seed, count, host, first = 0 } = options;
  const random = seededRandom(seed ^ Math.imul(first + 1, 0x9e3779b1));
  const int = (n: number) => Math.floor(random() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)];
  const targets: FuzzTarget[] = [
    ...options.targets,
    { method: "POST", path: "/no-such-route", body: '{"a":1}' },
    { method: "GET", path: `/unknown/${"x".repeat(20)}` },
    { method: "GET", path: "/healthz" },
  ];

  function head(method: string, target: string, headers: string[], version = "HTTP/1.1") {
    return `${method} ${target} ${version}\r\n${headers.join("\r\n")}\r\n\r\n`;
  }
  function baseHeaders(t: FuzzTarget): string[] {
    return [`Host: ${host}`, ...Object.entries(t.headers ?? {}).map(([k, v]) => `${k}: ${v}`)];
  }
  function wellFormed(t: FuzzTarget, close = true): string {
    const body = t.body ?? "";
    const headers = baseHeaders(t);
    if (body || t.method === "POST" || t.method === "PUT") {
      headers.push(`Content-Length: ${enc.encode(body).length}`);
    }
    if (close) headers.push("Connection: close");
    return head(t.method, t.path, headers) + body;
  }

  const generators: Array<() => Draw> = [
    // A valid request: the baseline every other case deviates from.
    () => ({ kind: "valid", bytes: enc.encode(wellFormed(pick(targets))) }),
    // Request lines that do not parse, or parse into something odd.
    () => {
      const t = pick(targets);
      const method = pick([
        t.method,
        "get",
        "FROB",
        "",
        "G ET",
        "GET\u0000",
        "CONNECT",
        "TRACE",
        "M".repeat(300),
      ]);
      const target = pick([
        t.path,
        "*",
        `http://${host}${t.path}`,
        "//x",
        "/%",
        "/%zz/..%2f..%2f",
        "/" + "a".repeat(int(2) ? 9_000 : 70_000),
        "/a\u0007b",
        "/a b",
        "",
        "http://other.example/",
        `${host}:443`,
      ]);
      const version = pick([
        "HTTP/1.1",
        "HTTP/1.0",
        "HTTP/2.0",
        "HTTP/9.9",
        "HTTP/1.1x",
        "",
        "http/1.1",
      ]);
      return {
        kind: "request-line",
        bytes: enc.encode(head(method, target, [...baseHeaders(t), "Connection: close"], version)),
      };
    },
    // Line endings other than CRLF.
    () => {
      const text = wellFormed(pick(targets));
      const eol = pick(["\n", "\r", "\r\r\n", "\n\r"]);
      return { kind: "line-endings", bytes: enc.encode(text.replaceAll("\r\n", eol)) };
    },
    // Malformed header sections.
    () => {
      const t = pick(targets);
      const bad = pick([
        "NoColonHere",
        "Bad Name: x",
        ": empty-name",
        " leading-space: x",
        "X-Folded: a\r\n  continued",
        "X-Nul: a\u0000b",
        "X-Ctl: a\u0001b",
        `X-Long: ${"v".repeat(int(2) ? 16_000 : 120_000)}`,
        Array.from({ length: 300 }, (_, i) => `X-Many-${i}: ${i}`).join("\r\n"),
        "Host: second.example",
        "Host:",
        "X-Request-ID: ../../etc/passwd",
        "X-Request-ID: " + "r".repeat(4000),
        "Content-Type: application/json; charset=\u00ff",
        "Authorization: Bearer \u0000",
      ]);
      const body = t.body ?? "";
      const headers = [...baseHeaders(t), bad, "Connection: close"];
      if (body) headers.push(`Content-Length: ${enc.encode(body).length}`);
      return { kind: "headers", bytes: enc.encode(head(t.method, t.path, headers) + body) };
    },
    // Conflicting or hostile framing.
    () => {
      const t = pick(targets);
      const body = t.body ?? '{"x":1}';
      const len = enc.encode(body).length;
      const hex = len.toString(16);
      const variants: [string, string[], string][] = [
        [
          "cl-te",
          [`Content-Length: ${len}`, "Transfer-Encoding: chunked"],
          `${hex}\r\n${body}\r\n0\r\n\r\n`,
        ],
        [
          "te-cl",
          ["Transfer-Encoding: chunked", `Content-Length: 3`],
          `${hex}\r\n${body}\r\n0\r\n\r\n`,
        ],
        ["dup-cl-same", [`Content-Length: ${len}`, `Content-Length: ${len}`], body],
        ["dup-cl-differ", [`Content-Length: ${len}`, `Content-Length: ${len + 5}`], body],
        ["cl-list", [`Content-Length: ${len}, ${len}`], body],
        ["cl-negative", ["Content-Length: -1"], body],
        ["cl-huge", ["Content-Length: 99999999999999999999999"], body],
        ["cl-2^63", ["Content-Length: 9223372036854775808"], body],
        ["cl-large-unsent", ["Content-Length: 1073741824"], body],
        ["cl-plus", [`Content-Length: +${len}`], body],
        ["cl-hex", [`Content-Length: 0x${hex}`], body],
        ["cl-space", [`Content-Length: ${len} 1`], body],
        ["cl-short", ["Content-Length: 2"], body],
        ["te-gzip", ["Transfer-Encoding: gzip"], body],
        ["te-chunked-gzip", ["Transfer-Encoding: chunked, gzip"], `${hex}\r\n${body}\r\n0\r\n\r\n`],
        ["te-bad-size", ["Transfer-Encoding: chunked"], `zz\r\n${body}\r\n0\r\n\r\n`],
        ["te-huge-size", ["Transfer-Encoding: chunked"], `fffffffffffffffffff\r\n${body}`],
        ["te-no-end", ["Transfer-Encoding: chunked"], `${hex}\r\n${body}\r\n`],
        ["te-ext", ["Transfer-Encoding: chunked"], `${hex};a=b;c="d"\r\n${body}\r\n0\r\n\r\n`],
        ["te-trailer", ["Transfer-Encoding: chunked"], `${hex}\r\n${body}\r\n0\r\nX-T: 1\r\n\r\n`],
        ["te-dup", ["Transfer-Encoding: chunked", "Transfer-Encoding: chunked"], `0\r\n\r\n`],
        ["body-on-get", [`Content-Length: ${len}`], body],
      ];
      const [kind, framing, payload] = pick(variants);
      const method = kind === "body-on-get" ? "GET" : t.method === "GET" ? "POST" : t.method;
      const headers = [...baseHeaders(t), ...framing, "Connection: close"];
      return { kind, bytes: enc.encode(head(method, t.path, headers) + payload) };
    },
    // A body announced behind `Expect: 100-continue` that never comes, or comes after all.
    () => {
      const t = pick(targets);
      const body = t.body ?? '{"x":1}';
      const method = pick([t.method, "POST", "PUT", "DELETE", "PATCH"]);
      const send = int(2) === 0;
      const headers = [
        ...baseHeaders(t),
        "Expect: 100-continue",
        `Content-Length: ${send ? enc.encode(body).length : pick([10, 65_536, 10_000_000])}`,
        ...(int(2) ? ["Connection: close"] : []),
      ];
      return {
        kind: send ? "expect-then-body" : "expect-unread",
        bytes: enc.encode(head(method, t.path, headers) + (send ? body : "")),
      };
    },
    // Several requests on one connection, without waiting for the answers.
    () => {
      const n = 2 + int(4);
      let text = "";
      for (let i = 0; i < n; i++) text += wellFormed(pick(targets), i === n - 1);
      if (int(3) === 0) text += "GARBAGE / HTTP/1.1\r\n\r\n"; // a bad request after good ones
      return { kind: "pipelined", bytes: enc.encode(text) };
    },
    // A request whose announced body is longer than what is sent (the client gives up).
    () => {
      const t = pick(targets);
      const body = t.body ?? '{"x":1}';
      const headers = [...baseHeaders(t), `Content-Length: ${enc.encode(body).length + 100}`];
      return { kind: "short-body", bytes: enc.encode(head("POST", t.path, headers) + body) };
    },
    // HTTP/2 with prior knowledge (Deno serves h2c on a plain port): whole requests, requests
    // reset or cut mid-body, a bad header block.
    () => {
      const t = pick(targets);
      const body = enc.encode(t.body ?? "");
      const method = pick([t.method, "POST", "GET"]);
      const headers: [string, string][] = [
        [":method", method],
        [":scheme", "http"],
        [":authority", host],
        [":path", pick([t.path, t.path, "/%zz", "*", ""])],
        ...Object.entries(t.headers ?? {}),
      ];
      const hasBody = body.length > 0 && method !== "GET";
      if (hasBody) headers.push(["content-length", String(body.length + pick([0, 0, 5, -1]))]);
      const frames = [H2_PREFACE, h2Frame(1, hasBody ? 4 : 5, 1, hpack(headers))];
      const variant = int(4);
      if (hasBody && variant !== 1) frames.push(h2Frame(0, 1, 1, body));
      if (variant === 1) frames.push(h2Frame(3, 0, 1, new Uint8Array([0, 0, 0, 8]))); // RST CANCEL
      if (variant === 2) frames.push(h2Frame(1, 5, 3, new Uint8Array([0xff, 0xff, 0xff]))); // bad block
      if (variant === 3) frames.push(h2Frame(7, 0, 0, new Uint8Array(8))); // GOAWAY
      const all = new Uint8Array(frames.reduce((n, f) => n + f.length, 0));
      let at = 0;
      for (const f of frames) {
        all.set(f, at);
        at += f.length;
      }
      return { kind: ["h2-request", "h2-reset", "h2-bad-block", "h2-goaway"][variant], bytes: all };
    },
    // Bytes that are not HTTP/1 at all.
    () => {
      const which = int(6);
      if (which === 0) return { kind: "h2-preface", bytes: H2_PREFACE };
      if (which === 1) return { kind: "tls-hello", bytes: tlsClientHello(random) };
      if (which === 2) return { kind: "empty-lines", bytes: enc.encode("\r\n\r\n\r\n") };
      if (which === 3) return { kind: "ssh-banner", bytes: enc.encode("SSH-2.0-OpenSSH_9.6\r\n") };
      if (which === 4) {
        const text = wellFormed(pick(targets), false);
        return {
          kind: "h2-after-http1",
          bytes: new Uint8Array([...enc.encode(text), ...H2_PREFACE]),
        };
      }
      const noise = new Uint8Array(1 + int(2048));
      for (let i = 0; i < noise.length; i++) noise[i] = int(256);
      return { kind: "noise", bytes: noise };
    },
  ];
  const deliveries: FuzzDelivery[] = [
    "read",
    "read",
    "trickle",
    "half-close",
    "abort",
    "cut",
    "read-then-abort",
  ];
  const cases: FuzzCase[] = [];
  for (let i = 0; i < count; i++) {
    const { kind, bytes } = pick(generators)();
    const delivery = pick(deliveries);
    const index = first + i;
    cases.push({
      name: `${index}:${kind}/${delivery}`,
      bytes,
      delivery,
      ...(delivery === "cut" ? { cutAt: 1 + int(Math.max(1, bytes.length - 1)) } : {}),
    });
  }
  return cases;
}

/** What one case got back. */
export interface FuzzResult {
  /** The case that was sent. */
  case: FuzzCase;
  /** Every status code of every response head seen on the connection, in order. */
  statuses: number[];
  /** The first bytes of what came back, for failure messages. */
  text: string;
}

/** Sends one case on a fresh connection; reads at most `readMs` after writing. */
export async function sendFuzzCase(
  addr: { hostname: string; port: number },
  fuzz: FuzzCase,
  options: { readMs?: number } = {},
): Promise<FuzzResult> {
  const { readMs = 2_000 } = options;
  const conn = await Deno.connect(addr);
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    try {
      conn.close();
    } catch { /* already closed */ }
  };
  const chunks: Uint8Array[] = [];
  let size = 0;
  const write = async (bytes: Uint8Array) => {
    for (let at = 0; at < bytes.length;) at += await conn.write(bytes.subarray(at));
  };
  try {
    const { bytes, delivery } = fuzz;
    if (delivery === "cut") {
      await write(bytes.subarray(0, fuzz.cutAt ?? 1));
      close();
    } else if (delivery === "trickle") {
      for (let at = 0; at < bytes.length; at += 7) await write(bytes.subarray(at, at + 7));
    } else {
      await write(bytes);
    }
    if (delivery === "abort") close();
    if (delivery === "half-close") await conn.closeWrite();
  } catch { /* the server may close before taking everything: its answer still counts */ }
  if (!closed) {
    const timer = setTimeout(close, readMs);
    const buf = new Uint8Array(64 * 1024);
    try {
      for (;;) {
        const n = await conn.read(buf);
        if (n === null) break;
        chunks.push(buf.slice(0, n));
        size += n;
        if (fuzz.delivery === "read-then-abort" || size > 4 << 20) break;
        // An HTTP/2 server keeps the connection open: the answer is whole once stream 1 ends.
        if (isH2(chunks[0]) && h2StreamEnded(concat(chunks))) break;
      }
    } catch { /* reset by the server, or closed by the read bound */ }
    clearTimeout(timer);
    close();
  }
  const all = concat(chunks);
  const text = new TextDecoder("latin1").decode(all);
  const statuses = text.startsWith("HTTP/1.") || !isH2(all)
    ? [...text.matchAll(/(?:^|\r\n)HTTP\/1\.[01] (\d{3}) /g)].map((m) => Number(m[1]))
    : h2Statuses(all);
  return { case: fuzz, statuses, text: text.slice(0, 300) };
}

function concat(chunks: Uint8Array[]): Uint8Array {
  const all = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.length;
  }
  return all;
}

/** Whether stream 1 has ended (END_STREAM, RST_STREAM) or the server sent GOAWAY. */
function h2StreamEnded(bytes: Uint8Array): boolean {
  for (let at = 0; at + 9 <= bytes.length;) {
    const length = (bytes[at] << 16) | (bytes[at + 1] << 8) | bytes[at + 2];
    const [type, flags] = [bytes[at + 3], bytes[at + 4]];
    const stream = ((bytes[at + 5] & 127) << 24) | (bytes[at + 6] << 16) | (bytes[at + 7] << 8) |
      bytes[at + 8];
    if (type === 7) return true;
    if (stream === 1 && (type === 3 || ((type === 0 || type === 1) && (flags & 1)))) return true;
    at += 9 + length;
  }
  return false;
}

/** Whether `bytes` start with an HTTP/2 frame header of a SETTINGS frame on stream 0. */
function isH2(bytes: Uint8Array): boolean {
  return bytes.length >= 9 && bytes[3] === 4 && (bytes[5] | bytes[6] | bytes[7] | bytes[8]) === 0;
}

// HPACK's Huffman codes of the ten digits (RFC 7541 Appendix B): [code, bit length].
const DIGIT_CODES: [number, number][] = [
  [0b00000, 5],
  [0b00001, 5],
  [0b00010, 5],
  [0b011001, 6],
  [0b011010, 6],
  [0b011011, 6],
  [0b011100, 6],
  [0b011101, 6],
  [0b011110, 6],
  [0b011111, 6],
];

/** Decodes a Huffman-coded string of digits (a `:status` value); `undefined` otherwise. */
function huffmanDigits(bytes: Uint8Array): string | undefined {
  let bits = "";
  for (const b of bytes) bits += b.toString(2).padStart(8, "0");
  let out = "";
  let at = 0;
  outer: while (at < bits.length) {
    for (let d = 0; d < 10; d++) {
      const [code, n] = DIGIT_CODES[d];
      if (at + n <= bits.length && parseInt(bits.slice(at, at + n), 2) === code) {
        out += d;
        at += n;
        continue outer;
      }
    }
    // The rest must be padding: fewer than 8 one-bits (the start of EOS).
    return /^1{0,7}$/.test(bits.slice(at)) ? out : undefined;
  }
  return out;
}

/**
 * The `:status` of every HEADERS frame in an HTTP/2 byte stream from a server, when it opens the
 * header block (as servers send it): an indexed static entry (200, 204, 206, 304, 400, 404, 500)
 * or a literal with the `:status` name. A status that cannot be read counts as 0.
 */
export function h2Statuses(bytes: Uint8Array): number[] {
  const STATIC: Record<number, number> = {
    8: 200,
    9: 204,
    10: 206,
    11: 304,
    12: 400,
    13: 404,
    14: 500,
  };
  const statuses: number[] = [];
  for (let at = 0; at + 9 <= bytes.length;) {
    const length = (bytes[at] << 16) | (bytes[at + 1] << 8) | bytes[at + 2];
    const type = bytes[at + 3];
    const flags = bytes[at + 4];
    let block = bytes.subarray(at + 9, Math.min(bytes.length, at + 9 + length));
    at += 9 + length;
    if (type !== 1) continue;
    if (flags & 0x8) block = block.subarray(1, block.length - block[0]); // PADDED
    if (flags & 0x20) block = block.subarray(5); // PRIORITY
    // Skip dynamic-table size updates (001xxxxx) before the first field.
    let i = 0;
    while (i < block.length && (block[i] & 0xe0) === 0x20) i++;
    const first = block[i];
    if (first === undefined) continue;
    if (first & 0x80) {
      statuses.push(STATIC[first & 0x7f] ?? 0);
      continue;
    }
    // A literal whose name is static entry 8..14 (`:status`), with or without indexing.
    const nameIndex = (first & 0x40) ? first & 0x3f : first & 0x0f;
    if (nameIndex < 8 || nameIndex > 14) {
      statuses.push(0);
      continue;
    }
    const huffman = (block[i + 1] & 0x80) !== 0;
    const n = block[i + 1] & 0x7f;
    const value = block.subarray(i + 2, i + 2 + n);
    const digits = huffman ? huffmanDigits(value) : new TextDecoder().decode(value);
    statuses.push(digits && /^\d{3}$/.test(digits) ? Number(digits) : 0);
  }
  return statuses;
}

/** Options of {@linkcode runFuzz}. */
export interface RunFuzzOptions {
  /** Base URL of the server, e.g. `http://127.0.0.1:8080`. */
  url: string;
  /** Real routes to aim at. */
  targets: readonly FuzzTarget[];
  /** Seed of the cases. @default {Number(FUZZ_SEED)} when set, else 1 */
  seed?: number;
  /** Batches; the health route is checked after each. @default {4} */
  batches?: number;
  /** Cases per batch. @default {75} */
  perBatch?: number;
  /** Connections in flight at once. @default {6} */
  concurrency?: number;
  /** Read bound per connection. @default {2000} */
  readMs?: number;
  /** Polled after each batch; must answer 200. @default {"/healthz"} */
  healthPath?: string;
  /** Resolves when the server process exits; a batch that ends it fails the run. */
  exited?: Promise<unknown>;
}

/** What {@linkcode runFuzz} found. */
export interface FuzzReport {
  /** The seed the cases were drawn from (set `FUZZ_SEED` to it to replay). */
  seed: number;
  /** Connections opened. */
  sent: number;
  /** How often each status came back (0: the connection ended with no answer). */
  statuses: Record<string, number>;
  /** Human-readable failures: 5xx answers, a dead health route, an exited process. */
  failures: string[];
}

/**
 * Sends `batches × perBatch` seeded cases to `url`, a few connections at a time, and checks the
 * health route after each batch. Stops at the first batch after which the server is down.
 *
 * @example Usage
 * ```ts ignore
 * import { runFuzz } from "@svc/testing";
 * const report = await runFuzz({ url: svc.url, targets: [{ method: "POST", path: "/token" }] });
 * if (report.failures.length) throw new Error(report.failures.join("\n"));
 * ```
 */
export async function runFuzz(options: RunFuzzOptions): Promise<FuzzReport> {
  const envSeed = Deno.env.get("FUZZ_SEED");
  const {
    url,
    targets,
    seed = envSeed ? Number(envSeed) : 1,
    batches = 4,
    perBatch = 75,
    concurrency = 6,
    readMs = 2_000,
    healthPath = "/healthz",
  } = options;
  const base = new URL(url);
  const addr = { hostname: base.hostname, port: Number(base.port) };
  const report: FuzzReport = { seed, sent: 0, statuses: {}, failures: [] };
  let exited = false;
  options.exited?.then(() => exited = true);
  const fail = (what: string) => report.failures.push(`[FUZZ_SEED=${seed}] ${what}`);
  for (let b = 0; b < batches; b++) {
    const cases = fuzzCases({
      seed,
      count: perBatch,
      host: base.host,
      targets,
      first: b * perBatch,
    });
    let next = 0;
    let down = false; // a refused connection: the rest of the batch would only repeat it
    const worker = async () => {
      while (next < cases.length && !down) {
        const fuzz = cases[next++];
        const result = await sendFuzzCase(addr, fuzz, { readMs }).catch((err) => ({
          case: fuzz,
          statuses: [] as number[],
          text: `cannot connect: ${err}`,
        }));
        report.sent++;
        if (result.statuses.length === 0) report.statuses["0"] = (report.statuses["0"] ?? 0) + 1;
        for (const s of result.statuses) report.statuses[s] = (report.statuses[s] ?? 0) + 1;
        const bad = result.statuses.filter((s) => s >= 500);
        if (bad.length) {
          fail(`${fuzz.name}: answered ${bad.join(", ")}: ${JSON.stringify(result.text)}`);
        }
        if (result.text.startsWith("cannot connect") && !down) {
          down = true;
          fail(`${fuzz.name}: ${result.text}`);
        }
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    // Give an unobserved rejection of the batch's last requests the turn it needs to surface.
    // real clock: a timer of 0 ms, one turn of the event loop (nextTurn), no time waited for
    await new Promise((r) => setTimeout(r, 0));
    let health: string;
    try {
      const res = await fetch(new URL(healthPath, base), { signal: AbortSignal.timeout(10_000) });
      await res.body?.cancel();
      health = res.status === 200 ? "ok" : `status ${res.status}`;
    } catch (err) {
      health = String(err);
    }
    if (exited) health = "the process exited";
    if (health !== "ok") {
      fail(
        `after batch ${b + 1} (cases ${b * perBatch}..${(b + 1) * perBatch - 1}): ` +
          `${healthPath} ${health}`,
      );
      break;
    }
  }
  return report;
}
