/**
 * Messages between the execute pool (main thread) and its workers.
 * @module
 */
import type { Budgets, ErrorCode, ErrorKind } from "@svc/starlark";

/** Main → worker: run one program. */
export interface JobMessage {
  /** Message kind. */
  type: "job";
  /** The Starlark program. */
  source: string;
  /** Dotted names of the enabled capabilities, bound as host functions. */
  capabilities: string[];
  /** Interpreter budgets of this run. */
  budgets: Budgets;
}

/** Worker → main: a capability call; the worker blocks until its reply arrives. */
export interface CallMessage {
  /** Message kind. */
  type: "call";
  /** Id of the call within its worker (the reply carries it back). */
  id: number;
  /** Dotted capability name. */
  name: string;
  /** Positional arguments (always refused). */
  args: unknown[];
  /** Keyword arguments as the interpreter converted them. */
  kwargs: Record<string, unknown>;
}

/** What the main thread answers a call with. */
export type CallReply = { ok: true; value: unknown } | { ok: false; text: string };

/** Worker → main: the program finished. */
export interface DoneMessage {
  /** Message kind. */
  type: "done";
  /** The final value, or the interpreter's error (with the reply text of a failed call). */
  result:
    | { ok: true; value: unknown }
    | { ok: false; kind: ErrorKind; code: ErrorCode; message: string; hostText?: string };
}

/** Worker → main: the worker loaded and waits for jobs. */
export interface ReadyMessage {
  type: "ready";
}
