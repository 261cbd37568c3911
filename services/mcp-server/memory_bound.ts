/**
 * The stated bound on the process's memory (README, "Memory").
 * @module
 */
import type { Limits } from "./limits.ts";

const MiB = 1 << 20;

/** Parts of the bound, bytes. */
export interface MemoryBound {
  base: number;
  workers: number;
  total: number;
}

/** The bound for these limits. */
export function memoryBound(limits: Limits): MemoryBound {
  const base = 160 * MiB;
  const workers = limits.maxConcurrentExecutions * limits.workerHeapMb * MiB;
  return { base, workers, total: base + workers };
}
