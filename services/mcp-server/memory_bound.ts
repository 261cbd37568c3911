/**
 * The bound the README states for the process's peak memory (resident set), from the settings:
 *
 *   base + workers × (worker heap + young generation + isolate) + workers × 3 × max value bytes
 *        + queued executions × (2 × max source bytes + per-request objects)
 *
 * `base` and the per-worker isolate and per-request figures are measured
 * (`tests/bench/mcp_server/memory.ts`, RESULTS.md) and rounded up; the rest follows from the
 * limits, which V8 enforces (worker heaps) or the pool does (workers, queue).
 * @module
 */
import type { Limits } from "./limits.ts";
import { youngGenerationMb } from "./execute/pool.ts";

const MiB = 1 << 20;

/**
 * The process with its modules loaded and the HTTP listener (≈ 80 MiB idle), plus the main
 * thread's heap under sustained load. With V8's defaults garbage piles up to ≈ 150 MiB of old
 * generation before a full collection (measured: 255–318 MiB after 10 000 `search_api` calls, 300
 * in flight); with the deployed `--max-semi-space-size=1 --heap-growing-percent=25`
 * (`deploy/services.ts`) far less. The figure keeps room for a run without those flags.
 */
const BASE_BYTES = 384 * MiB;
/** A worker's isolate besides its heaps: code, loaded modules, thread (≈ 10–20 MiB measured). */
const WORKER_ISOLATE_BYTES = 24 * MiB;
/** What a waiting request holds besides its source: MCP server, transport, request (≈ 20 KiB). */
const QUEUED_REQUEST_BYTES = 128 << 10;

/** The parts of the bound, bytes. */
export interface MemoryBound {
  /** {@linkcode BASE_BYTES}. */
  base: number;
  /** Workers × (old generation + young generation + isolate). */
  workers: number;
  /** A reply in flight per running program: the value, its serialized copy and the worker's. */
  replies: number;
  /** Waiting executions × (source as a JS string + request objects). */
  queued: number;
  /** The sum. */
  total: number;
}

/** The bound for these limits. */
export function memoryBound(limits: Limits): MemoryBound {
  const workerCount = limits.maxConcurrentExecutions;
  const base = BASE_BYTES;
  const workers = workerCount *
    ((limits.workerHeapMb + youngGenerationMb(limits.workerHeapMb)) * MiB + WORKER_ISOLATE_BYTES);
  const replies = workerCount * 3 * limits.maxValueBytes;
  const queued = limits.maxQueuedExecutions * (2 * limits.maxSourceBytes + QUEUED_REQUEST_BYTES);
  return { base, workers, replies, queued, total: base + workers + replies + queued };
}
