/**
 * JSON-lines (or plain text) logger with levels. Fields whose names look like credentials are
 * written as `[redacted]`, at any depth, so a careless `logger.info("x", { headers })` cannot
 * leak a token.
 *
 * Identity: a service's lines carry `service.name` and `service.version` (the OpenTelemetry
 * resource attribute names), written by the logger from its `service` option; `fields` cannot
 * set or override them, so every service names itself the same way.
 *
 * @module
 */
import type { ServiceIdentity } from "../lifecycle/build_info.ts";

/** Log levels, lowest first. */
export type LogLevel = "debug" | "info" | "warn" | "error";

/** Structured logger. */
export interface Logger {
  /** Lines below this level are dropped. */
  readonly level: LogLevel;
  /** Writes a `debug` line. */
  debug(msg: string, fields?: Record<string, unknown>): void;
  /** Writes an `info` line. */
  info(msg: string, fields?: Record<string, unknown>): void;
  /** Writes a `warn` line. */
  warn(msg: string, fields?: Record<string, unknown>): void;
  /** Writes an `error` line. */
  error(msg: string, fields?: Record<string, unknown>): void;
  /** A logger that adds `fields` to every line. */
  child(fields: Record<string, unknown>): Logger;
}

/** Options of {@linkcode createLogger}. */
export interface LoggerOptions {
  /** Lowest level written. @default {"info"} */
  level?: LogLevel;
  /** One JSON object per line, or `key=value` text. @default {"json"} */
  format?: "json" | "text";
  /**
   * Where lines go; `level` lets a buffering writer put `warn` and `error` out at once.
   * @default {stdoutWriter()}
   */
  write?: (line: string, level: LogLevel) => void;
  /**
   * The service whose lines these are: each line carries `service.name` and `service.version`
   * right after `msg`. Unset in tests and tools, whose lines carry no identity.
   */
  service?: ServiceIdentity;
  /**
   * Fields added to every line. The identity keys (`service`, `service.name`,
   * `service.version`) are the logger's own: given here, they are dropped.
   */
  fields?: Record<string, unknown>;
  /** Clock for the `time` field. @default {Date.now} */
  now?: () => number;
}

const RANK: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };
const IDENTITY = new Set(["service", "service.name", "service.version"]);
const SECRET =
  /(token|secret|passw(or)?d|authorization|cookie|api[-_]?key|private[-_]?key|assertion|credential)/i;
// Field names repeat on every line (an access log writes the same eight): remember the verdict
// of the pattern for a bounded number of them.
const secretNames = new Map<string, boolean>();

function isSecretName(name: string): boolean {
  let secret = secretNames.get(name);
  if (secret === undefined) {
    secret = SECRET.test(name);
    if (secretNames.size < 1024) secretNames.set(name, secret);
  }
  return secret;
}

function redact(value: unknown, depth = 0): unknown {
  if (depth > 6 || value === null || typeof value !== "object") return value;
  if (value instanceof Error) return { name: value.name, message: value.message };
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  const out: Record<string, unknown> = {};
  copyRedacted(out, value as Record<string, unknown>, depth);
  return out;
}

function copyRedacted(out: Record<string, unknown>, from: Record<string, unknown>, depth: number) {
  for (const k in from) {
    if (!Object.hasOwn(from, k)) continue;
    const v = from[k];
    out[k] = isSecretName(k) ? "[redacted]" : redact(v, depth + 1);
  }
}

/** Options of {@linkcode bufferedWriter}. */
export interface BufferedWriterOptions {
  /** Longest time an `info` or `debug` line waits for company. @default {10} */
  flushMs?: number;
  /** Pending bytes (UTF-16 units) that make the writer flush at once. @default {65536} */
  maxPending?: number;
}

const flushers = new Set<() => void>();
let exitHooked = false;

/**
 * Writes out every line a {@linkcode bufferedWriter} still holds. Runs by itself when the
 * isolate unloads (`Deno.exit`, the end of the program) and on an uncaught error or rejection;
 * an isolate that is terminated from outside (a `Worker`) calls it before it reports that it
 * stopped.
 */
export function flushLogs(): void {
  for (const flush of flushers) flush();
}

/**
 * A line writer that gathers lines and hands them to `file` in one `writeSync` per batch: a
 * `warn` or `error` line goes out at once (after the lines before it), other lines within
 * `flushMs` or once `maxPending` is reached. One write per batch instead of one per line is what
 * makes an access log cheap under load (each write is a system call and wakes the reader). A
 * file that fails (a closed pipe) drops the batch: a log line must never take the process down.
 * Only a `SIGKILL` can lose lines, at most `flushMs` of them. The bytes handed to
 * `file.writeSync` are a view of a buffer the next batch reuses: the file must be done with them
 * when the call returns (as `Deno.stdout` and every `Deno.FsFile` are).
 *
 * @example Usage
 * ```ts
 * import { bufferedWriter, createLogger, flushLogs } from "@svc/shared/log";
 * const logger = createLogger({ write: bufferedWriter(Deno.stderr) });
 * logger.info("ready"); // written within 10 ms
 * flushLogs(); // or now
 * ```
 */
export function bufferedWriter(
  file: { writeSync(p: Uint8Array): number },
  options: BufferedWriterOptions = {},
): (line: string, level?: LogLevel) => void {
  const { flushMs = 10, maxPending = 65_536 } = options;
  const encoder = new TextEncoder();
  let pending = "";
  // `AbortSignal.timeout`, not `setTimeout`: in Deno 2.9 a process's first `setTimeout` loads the
  // Node timers (≈ 20 ms of CPU), and the first line is written at start-up. A flush that comes
  // first leaves the signal to fire for nothing (it keeps the process up at most `flushMs`).
  let timer: AbortSignal | undefined;
  // One buffer for every batch (grown up to `reuseMax`): a batch of `maxPending` units encoded into
  // a new array each time was 64 KiB or more of memory outside the heap per flush, which under
  // load made the collector run for it. A larger batch (a very long line) gets its own array.
  const reuseMax = 3 * Math.max(maxPending, 1024) + 3 * 1024;
  let buffer = new Uint8Array(0);
  function flush(): void {
    timer = undefined;
    if (pending === "") return;
    const text = pending;
    pending = "";
    let bytes: Uint8Array;
    const most = 3 * text.length; // UTF-8 bytes per UTF-16 unit, at most
    if (most <= reuseMax) {
      if (buffer.length < most) buffer = new Uint8Array(Math.min(reuseMax, 2 * most));
      bytes = buffer.subarray(0, encoder.encodeInto(text, buffer).written);
    } else bytes = encoder.encode(text);
    try {
      for (let at = 0; at < bytes.length;) at += file.writeSync(bytes.subarray(at));
    } catch {
      // stdout closed or broken: nowhere left to report it
    }
  }
  flushers.add(flush);
  if (!exitHooked) {
    exitHooked = true;
    for (const event of ["unload", "error", "unhandledrejection"]) {
      globalThis.addEventListener(event, flushLogs);
    }
  }
  return (line, level = "info") => {
    pending += line + "\n";
    if (level === "warn" || level === "error" || pending.length >= maxPending) flush();
    else if (timer === undefined) {
      const armed = timer = AbortSignal.timeout(flushMs);
      armed.addEventListener("abort", () => timer === armed && flush(), { once: true });
    }
  };
}

/** The default writer: lines to stdout, in batches ({@linkcode bufferedWriter}). */
export function stdoutWriter(): (line: string, level?: LogLevel) => void {
  return stdout ??= bufferedWriter(Deno.stdout);
}
let stdout: ((line: string, level?: LogLevel) => void) | undefined;

/** Writes log lines to stderr, for processes whose stdout carries a protocol (MCP stdio). */
export function stderrWriter(): (line: string, level?: LogLevel) => void {
  return stderr ??= bufferedWriter(Deno.stderr);
}
let stderr: ((line: string, level?: LogLevel) => void) | undefined;

/**
 * Creates a logger.
 *
 * @example Usage
 * ```ts
 * import { createLogger } from "@svc/shared/log";
 * const lines: string[] = [];
 * const log = createLogger({ write: (l) => lines.push(l) });
 * log.info("server_listening", { url: "http://127.0.0.1:8080", token: "x" }); // token is redacted
 * ```
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  const {
    level = "info",
    format = "json",
    write = stdoutWriter(),
    fields = {},
    now = Date.now,
    service,
  } = options;
  const min = RANK[level];
  // The logger's own fields are the same on every line: redacted once, here. Identity first.
  const fixed: Record<string, unknown> = service
    ? { "service.name": service.name, "service.version": service.build.version }
    : {};
  const own = redact(fields) as Record<string, unknown>;
  for (const k in own) if (!IDENTITY.has(k)) fixed[k] = own[k];
  let lastMs = NaN;
  let lastTime = "";
  function emit(lvl: LogLevel, msg: string, extra?: Record<string, unknown>) {
    if (RANK[lvl] < min) return;
    const ms = now();
    if (ms !== lastMs) { // lines come in bursts within one millisecond: format it once
      lastMs = ms;
      lastTime = new Date(ms).toISOString();
    }
    const time = lastTime;
    // One object, in the order time, level, msg, fields, extra (a later key wins, as a spread).
    const line: Record<string, unknown> = { time, level: lvl, msg };
    for (const k in fixed) line[k] = fixed[k];
    if (extra) copyRedacted(line, extra, 0);
    if (format === "json") {
      write(JSON.stringify(line), lvl);
    } else {
      const kv: string[] = [];
      for (const k in line) {
        if (k === "time" || k === "level" || k === "msg") continue;
        const v = line[k];
        kv.push(`${k}=${typeof v === "string" && !/\s/.test(v) ? v : JSON.stringify(v)}`);
      }
      write([time, lvl.toUpperCase(), msg, ...kv].join(" "), lvl);
    }
  }
  const logger: Logger = {
    level,
    debug: (msg, f) => emit("debug", msg, f),
    info: (msg, f) => emit("info", msg, f),
    warn: (msg, f) => emit("warn", msg, f),
    error: (msg, f) => emit("error", msg, f),
    child: (f) => createLogger({ level, format, write, now, service, fields: { ...fields, ...f } }),
  };
  // The access log's line, written without an object per request: the same text `emit` makes
  // for `info("request", fields)` (JSON only, and only when no fixed field takes one of its
  // names, which would move that field in the line).
  // The line's start is what `emit` makes of its object before the request's fields: made here
  // the same way, and used only when the fields would follow it in that order (no fixed field
  // overrides `time`, `level` or `msg`, sorts first as an index or shares a request field's name).
  const probe: Record<string, unknown> = { time: "", level: "info", msg: "request" };
  for (const k in fixed) probe[k] = fixed[k];
  const probeJson = JSON.stringify(probe);
  const LEAD = '{"time":"","level":"info","msg":"request"';
  if (
    format === "json" && RANK.info >= min && probeJson.startsWith(LEAD) &&
    !REQUEST_KEYS.some((k) => k in probe)
  ) {
    const head = `","level":"info","msg":"request"${probeJson.slice(LEAD.length, -1)},"method":`;
    // The line in few pieces, most of them made once: the start per millisecond, the method's
    // part, the route's and status's part; per line only the path, duration, id and peer.
    let startTime = "";
    let start = "";
    const byMethod = new Map<string, string>();
    // per route and status: `"<route>","route":"<route>","status":N,"durationMs":` and where its
    // `,"route"…` begins (the part after a path that is not the route's own)
    const byRoute = new Map<string, Map<number, [string, number]>>();
    const remotes = new Map<string, string>();
    requestWriters.set(
      logger,
      (method, path, route, status, durationMs, requestId, remote, aborted) => {
        const ms = now();
        if (ms !== lastMs) {
          lastMs = ms;
          lastTime = new Date(ms).toISOString();
        }
        if (startTime !== lastTime) start = `{"time":"${startTime = lastTime}${head}`;
        let m = byMethod.get(method);
        if (m === undefined) {
          m = `${JSON.stringify(method)},"path":`;
          if (byMethod.size < 64) byMethod.set(method, m);
        }
        let statuses = byRoute.get(route);
        if (statuses === undefined) {
          statuses = new Map();
          if (byRoute.size < 1024) byRoute.set(route, statuses);
        }
        let r = statuses.get(status);
        if (r === undefined) {
          const quoted = JSON.stringify(route);
          // A static route's path is its label: the path's part is made once with the route's.
          r = [`${quoted},"route":${quoted},"status":${status},"durationMs":`, quoted.length];
          if (statuses.size < 64) statuses.set(status, r);
        }
        let line = path === route
          ? start + m + r[0] + durationMs
          : start + m + JSON.stringify(path) + r[0].slice(r[1]) + durationMs;
        if (requestId) line += `,"requestId":${JSON.stringify(requestId)}`;
        if (remote !== undefined) {
          let q = remotes.get(remote);
          if (q === undefined) {
            q = `,"remote":${JSON.stringify(remote)}`;
            if (remotes.size < 1024) remotes.set(remote, q);
          }
          line += q;
        }
        write(aborted ? line + `,"aborted":true}` : line + "}", "info");
      },
    );
  }
  return logger;
}

const REQUEST_KEYS = [
  "method",
  "path",
  "route",
  "status",
  "durationMs",
  "requestId",
  "remote",
  "aborted",
];

/**
 * Writes one access-log line: what `logger.info("request", { method, path, route, status,
 * durationMs, requestId, remote, aborted })` writes (`requestId` left out when empty, `remote`
 * when undefined, `aborted` unless true).
 */
export type RequestLineWriter = (
  method: string,
  path: string,
  route: string,
  status: number,
  durationMs: number,
  requestId: string,
  remote: string | undefined,
  aborted: boolean,
) => void;

const requestWriters = new WeakMap<Logger, RequestLineWriter>();

/**
 * The access-log writer of a logger made by {@linkcode createLogger} (JSON lines, `info`
 * written, no fixed field named like a request field): the line `logger.info("request", …)`
 * would write, built as text with no object per request. Undefined for any other logger, whose
 * `info` is then the way to write it.
 *
 * @example Usage
 * ```ts
 * import { createLogger, requestLineWriter } from "@svc/shared/log";
 * import assert from "node:assert/strict";
 * const lines: string[] = [];
 * const write = requestLineWriter(createLogger({ write: (l) => lines.push(l), now: () => 0 }));
 * write?.("GET", "/x", "/x", 200, 1.5, "id-1", "127.0.0.1", false);
 * assert.equal(JSON.parse(lines[0]).route, "/x");
 * ```
 */
export function requestLineWriter(logger: Logger): RequestLineWriter | undefined {
  return requestWriters.get(logger);
}

/** A logger that drops everything (tests and benchmarks). */
export function silentLogger(): Logger {
  return createLogger({ level: "error", write: () => {} });
}
