/**
 * Numeric bounds of the capability tools (the brief left the numbers to us; these
 * are the documented defaults, docs/mcp-server.md#limits, each overridable by a setting).
 * @module
 */

/** Bounds of search, describe and execute. */
export interface Limits {
  /** Raw search query size in UTF-8 bytes, checked before trimming. @default 1024 */
  maxQueryBytes: number;
  /** Length of the search `results` array. @default 20 */
  maxSearchResults: number;
  /** Compact JSON of `{results, truncated}` in bytes. @default 16384 */
  maxSearchResponseBytes: number;
  /** Execute source size in UTF-8 bytes. @default 65536 */
  maxSourceBytes: number;
  /** Starlark steps per execute call. @default 1000000 */
  maxExecutionSteps: number;
  /** Elapsed worker time per execute call, milliseconds. @default 5000 */
  maxExecutionMs: number;
  /** Capability calls per execute call. @default 64 */
  maxNativeCalls: number;
  /** Depth of each native argument, native result and final value (scalar = 1). @default 32 */
  maxValueDepth: number;
  /** Bytes of each native argument, native result and final value. @default 1048576 */
  maxValueBytes: number;
  /** Sum of encoded successful native results per execute call. @default 4194304 */
  maxIntermediateBytes: number;
  /** Bytes a program may allocate in total (strings, lists, dicts, big ints). @default 33554432 */
  maxAllocBytes: number;
  /** V8 old-generation heap of each execute worker, MiB (the backstop). @default 192 */
  workerHeapMb: number;
  /** Execute calls running at once (one worker each); more wait in line. @default 4 */
  maxConcurrentExecutions: number;
  /** How long an execute call may wait for a free worker, milliseconds. @default 10000 */
  executionQueueMs: number;
  /**
   * Execute calls that may wait for a free worker at once; one more fails at once with
   * `resource limit exceeded`. @default 512
   */
  maxQueuedExecutions: number;
}

/** The defaults of {@linkcode Limits}. */
export const DEFAULT_LIMITS: Readonly<Limits> = Object.freeze({
  maxQueryBytes: 1024,
  maxSearchResults: 20,
  maxSearchResponseBytes: 16384,
  maxSourceBytes: 65536,
  maxExecutionSteps: 1_000_000,
  maxExecutionMs: 5000,
  maxNativeCalls: 64,
  maxValueDepth: 32,
  maxValueBytes: 1 << 20,
  maxIntermediateBytes: 4 << 20,
  maxAllocBytes: 32 << 20,
  workerHeapMb: 192,
  maxConcurrentExecutions: 4,
  executionQueueMs: 10_000,
  maxQueuedExecutions: 512,
});

/** Fills defaults for missing fields. */
export function resolveLimits(partial: Partial<Limits> = {}): Limits {
  return { ...DEFAULT_LIMITS, ...partial };
}

/** Bounds fixed in the code (no setting). */
const FIXED_LIMITS = Object.freeze({
  /** Distinct normalized search tokens. */
  searchTokens: 16,
  /** Bytes of the message of `capability failed: <message>`, `...` included. */
  failureMessageBytes: 256,
});

/** One bound: its setting (or none: fixed), its value under some limits, what it bounds. */
interface LimitRow {
  /** The flag without `--`; undefined for a fixed bound. */
  setting?: string;
  /** The value under the given limits, as shown. */
  value: (limits: Limits) => string;
  /** What it bounds (the tables' text). */
  bound: string;
  /** The tool whose description states it, and how (`{}` is the value). */
  tool?: { name: "search_api" | "execute"; phrase: string };
}

const ms = (n: number) => n % 1000 === 0 ? `${n / 1000}s` : `${n}ms`;

/**
 * Every bound of the tools, in the order of the limits tables. The one source of the tables in
 * the README and docs/mcp-server.md (`limits_test.ts` checks both) and of the limits the search
 * and execute descriptions state ({@linkcode toolLimits}).
 */
const LIMIT_ROWS: readonly LimitRow[] = [
  {
    setting: "max-query-bytes",
    value: (l) => String(l.maxQueryBytes),
    bound: "raw search query, before trimming",
    tool: { name: "search_api", phrase: "a query of at most {} bytes" },
  },
  {
    value: () => String(FIXED_LIMITS.searchTokens),
    bound: "distinct normalized search tokens",
    tool: { name: "search_api", phrase: "{} distinct words" },
  },
  {
    setting: "max-search-results",
    value: (l) => String(l.maxSearchResults),
    bound: "results per search (`truncated` when cut)",
    tool: { name: "search_api", phrase: "{} results" },
  },
  {
    setting: "max-search-response-bytes",
    value: (l) => String(l.maxSearchResponseBytes),
    bound: "compact JSON of `{results, truncated}`",
    tool: { name: "search_api", phrase: "{} bytes of results" },
  },
  {
    setting: "max-source-bytes",
    value: (l) => String(l.maxSourceBytes),
    bound: "execute source",
    tool: { name: "execute", phrase: "source {} bytes" },
  },
  {
    setting: "max-execution-steps",
    value: (l) => String(l.maxExecutionSteps),
    bound: "Starlark steps per execute (builtins charged by their work)",
    tool: { name: "execute", phrase: "{} steps" },
  },
  {
    setting: "max-execution-time",
    value: (l) => ms(l.maxExecutionMs),
    bound: "elapsed time per execute",
    tool: { name: "execute", phrase: "{} elapsed" },
  },
  {
    setting: "max-native-calls",
    value: (l) => String(l.maxNativeCalls),
    bound: "capability calls per execute",
    tool: { name: "execute", phrase: "{} capability calls" },
  },
  {
    setting: "max-value-depth",
    value: (l) => String(l.maxValueDepth),
    bound: "each argument, result and final value (scalar = 1)",
    tool: { name: "execute", phrase: "value depth {}" },
  },
  {
    setting: "max-value-bytes",
    value: (l) => String(l.maxValueBytes),
    bound: "each argument, result and final value",
    tool: { name: "execute", phrase: "{} bytes per argument, result and returned value" },
  },
  {
    setting: "max-intermediate-bytes",
    value: (l) => String(l.maxIntermediateBytes),
    bound: "sum of successful capability results per execute",
    tool: { name: "execute", phrase: "{} bytes of capability results in all" },
  },
  {
    setting: "max-alloc-bytes",
    value: (l) => String(l.maxAllocBytes),
    bound: "bytes a program may hold (interpreter budget)",
    tool: { name: "execute", phrase: "{} bytes allocated" },
  },
  {
    setting: "worker-heap-mb",
    value: (l) => `${l.workerHeapMb} MiB`,
    bound: "V8 heap of each execute worker (the memory backstop)",
  },
  {
    setting: "max-concurrent-executions",
    value: (l) => String(l.maxConcurrentExecutions),
    bound: "programs running at once (one worker each)",
  },
  {
    setting: "execution-queue-timeout",
    value: (l) => ms(l.executionQueueMs),
    bound: "wait for a free worker (`context deadline exceeded`)",
  },
  {
    setting: "max-queued-executions",
    value: (l) => String(l.maxQueuedExecutions),
    bound: "executes waiting for a worker (`resource limit exceeded` beyond)",
  },
  {
    value: () => `${FIXED_LIMITS.failureMessageBytes} bytes`,
    bound: "message of `capability failed: <message>`, `...` included",
  },
];

/**
 * The limits table of the README and docs/mcp-server.md (Markdown, unpadded: `deno fmt` pads
 * it), at the default limits.
 */
export function limitsTable(): string {
  const lines = ["| setting | default | bound |", "| --- | --- | --- |"];
  for (const row of LIMIT_ROWS) {
    const setting = row.setting ? `\`--${row.setting}\`` : "(fixed)";
    lines.push(`| ${setting} | ${row.value(DEFAULT_LIMITS)} | ${row.bound} |`);
  }
  return lines.join("\n");
}

/** The bounds a tool's description states, under the effective limits: `a, b, c`. */
export function toolLimits(tool: "search_api" | "execute", limits: Limits): string {
  return LIMIT_ROWS.filter((row) => row.tool?.name === tool)
    .map((row) => row.tool!.phrase.replace("{}", row.value(limits)))
    .join(", ");
}
