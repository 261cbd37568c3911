/**
 * Messages between the execute pool (main thread) and its workers.
 * @module
 */
import type { Budgets, ErrorCode, ErrorKind } from "@svc/starlark";

/** Main → worker: run one program. */
export interface JobMessage {
  type: "job";
  source: string;
  /** Dotted names of the enabled capabilities, bound as host functions. */
  capabilities: string[];
  budgets: Budgets;
  slot: SharedArrayBuffer;
}

/** Worker → main: a capability call; the worker blocks until the reply is in the slot. */
export interface CallMessage {
  type: "call";
  name: string;
  args: unknown[];
  kwargs: Record<string, unknown>;
}

/** What the main thread stores in the slot for a call. */
export type CallReply = { ok: true; value: unknown } | { ok: false; text: string };

/** Worker → main: the program finished. */
export interface DoneMessage {
  type: "done";
  result:
    | { ok: true; value: unknown }
    | { ok: false; kind: ErrorKind; code: ErrorCode; message: string; hostText?: string };
}

/** Worker → main: the worker loaded and waits for jobs. */
export interface ReadyMessage {
  type: "ready";
}
