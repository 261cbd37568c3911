/**
 * JSON-lines (or plain text) logger with levels. Fields whose names look like credentials are
 * written as `[redacted]`, at any depth, so a careless `logger.info("x", { headers })` cannot
 * leak a token.
 *
 * @module
 */

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
  /** Where lines go. @default writes to stdout */
  write?: (line: string) => void;
  /** Fields added to every line. */
  fields?: Record<string, unknown>;
  /** Clock for the `time` field. @default {Date.now} */
  now?: () => number;
}

const RANK: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };
const SECRET =
  /(token|secret|passw(or)?d|authorization|cookie|api[-_]?key|private[-_]?key|assertion|credential)/i;

function redact(value: unknown, depth = 0): unknown {
  if (depth > 6 || value === null || typeof value !== "object") return value;
  if (value instanceof Error) return { name: value.name, message: value.message };
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = SECRET.test(k) ? "[redacted]" : redact(v, depth + 1);
  }
  return out;
}

function stdoutWriter(): (line: string) => void {
  const enc = new TextEncoder();
  return (line) => Deno.stdout.writeSync(enc.encode(line + "\n"));
}

/** Writes log lines to stderr, for processes whose stdout carries a protocol (MCP stdio). */
export function stderrWriter(): (line: string) => void {
  const enc = new TextEncoder();
  return (line) => Deno.stderr.writeSync(enc.encode(line + "\n"));
}

/**
 * Creates a logger.
 *
 * @example Usage
 * ```ts
 * import { createLogger } from "@svc/shared/log";
 * const lines: string[] = [];
 * const log = createLogger({ write: (l) => lines.push(l) });
 * log.info("listening", { url: "http://127.0.0.1:8080", token: "x" }); // token is redacted
 * ```
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  const {
    level = "info",
    format = "json",
    write = stdoutWriter(),
    fields = {},
    now = Date.now,
  } = options;
  const min = RANK[level];
  function emit(lvl: LogLevel, msg: string, extra?: Record<string, unknown>) {
    if (RANK[lvl] < min) return;
    const data = redact({ ...fields, ...extra }) as Record<string, unknown>;
    const time = new Date(now()).toISOString();
    if (format === "json") {
      write(JSON.stringify({ time, level: lvl, msg, ...data }));
    } else {
      const kv = Object.entries(data).map(([k, v]) =>
        `${k}=${typeof v === "string" && !/\s/.test(v) ? v : JSON.stringify(v)}`
      );
      write([time, lvl.toUpperCase(), msg, ...kv].join(" "));
    }
  }
  return {
    level,
    debug: (msg, f) => emit("debug", msg, f),
    info: (msg, f) => emit("info", msg, f),
    warn: (msg, f) => emit("warn", msg, f),
    error: (msg, f) => emit("error", msg, f),
    child: (f) => createLogger({ level, format, write, now, fields: { ...fields, ...f } }),
  };
}

/** A logger that drops everything (tests and benchmarks). */
export function silentLogger(): Logger {
  return createLogger({ level: "error", write: () => {} });
}
