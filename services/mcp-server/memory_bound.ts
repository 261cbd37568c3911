/**
 * The bound the README states for the process's peak memory (resident set), from the settings:
 *
 *   base + workers × (worker heap + young generation + isolate) + workers × 3 × max value bytes
 *        + queued executions × (2 × max source bytes + per-request objects)
 *        + workers × 3 × largest upstream response + stdio servers × 2 × --mcp-max-response-bytes
 *
 * `base` and the per-worker isolate and per-request figures are measured
 * (`tests/bench/mcp_server/memory.ts`, RESULTS.md) and rounded up; the rest follows from the
 * limits, which V8 enforces (worker heaps) or the pool does (workers, queue).
 * @module
 */
import type { Limits } from "./limits.ts";
import { youngGenerationMb } from "./execute/pool.ts";
import type { Settings } from "./settings.ts";

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
  /**
   * Upstream answers in flight: a running program makes one capability call at a time, so at most
   * one per worker, each read up to its source's response bound (bytes, then its text and parsed
   * value: × 3); and each stdio server's line buffer with its copy (× 2), even between calls.
   */
  upstreams: number;
  /** The sum. */
  total: number;
}

/** The capability sources answering from outside (`--mcp`, `--openapi`), as the bound needs them. */
export interface UpstreamSources {
  /** The largest response any configured source may return (0 when none is configured). */
  maxResponseBytes: number;
  /** `--mcp` servers started as a command. */
  stdioServers: number;
  /** `--mcp-max-response-bytes`: a stdio server's message line. */
  stdioMaxLineBytes: number;
}

/** The upstream sources resolved settings configure. */
export function upstreamSourcesOf(settings: Settings): UpstreamSources {
  const bounds = [
    settings.mcp.length > 0 ? settings.mcp_max_response_bytes : 0,
    settings.openapi.length > 0 ? settings.openapi_max_response_bytes : 0,
  ];
  return {
    maxResponseBytes: Math.max(...bounds),
    stdioServers: settings.mcp.filter((entry) => /^[^=]+=stdio:/.test(entry)).length,
    stdioMaxLineBytes: settings.mcp_max_response_bytes,
  };
}

const NO_UPSTREAMS: UpstreamSources = {
  maxResponseBytes: 0,
  stdioServers: 0,
  stdioMaxLineBytes: 0,
};

/** The bound for these limits and upstream sources (default: none). */
export function memoryBound(
  limits: Limits,
  sources: UpstreamSources = NO_UPSTREAMS,
): MemoryBound {
  const workerCount = limits.maxConcurrentExecutions;
  const base = BASE_BYTES;
  const workers = workerCount *
    ((limits.workerHeapMb + youngGenerationMb(limits.workerHeapMb)) * MiB + WORKER_ISOLATE_BYTES);
  const replies = workerCount * 3 * limits.maxValueBytes;
  const queued = limits.maxQueuedExecutions * (2 * limits.maxSourceBytes + QUEUED_REQUEST_BYTES);
  const upstreams = workerCount * 3 * sources.maxResponseBytes +
    sources.stdioServers * 2 * sources.stdioMaxLineBytes;
  return {
    base,
    workers,
    replies,
    queued,
    upstreams,
    total: base + workers + replies + queued + upstreams,
  };
}
