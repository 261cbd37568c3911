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
