/**
 * execute: runs a Starlark program on a heap-limited worker with fresh budgets, answers its
 * capability calls on this thread, and maps every outcome to the result or a stable error text.
 * @module
 */
import type { CapabilityRegistry, Subject } from "../capabilities/registry.ts";
import type { Authorizer } from "../auth/authorizer.ts";
import type { Limits } from "../limits.ts";
import type { Logger } from "@svc/shared/log";
import type { ExecutePool } from "../execute/pool.ts";
import type { DoneMessage } from "../execute/protocol.ts";
import { grantedScopes, missingScopes, type StepUp } from "../auth/step_up.ts";
import { programScopes } from "../auth/program_scopes.ts";
import { callCapability, type CallScope } from "./call_capability.ts";
import { ErrorText, errorText, ToolError, toolErrorOf } from "./errors.ts";

/** execute's structured output. */
export interface ExecuteOutput {
  result: unknown;
}

/** Dependencies of {@linkcode createExecute}. */
export interface ExecuteDeps {
  registry: CapabilityRegistry;
  authorizer: Authorizer;
  limits: Limits;
  pool: ExecutePool;
  logger?: Logger;
  /** Scopes capabilities require (the policy's `scopes`); none when undefined. */
  stepUp?: StepUp;
}

/** Extra time the watchdog grants beyond the execution-time budget before terminating. */
const WATCHDOG_GRACE_MS = 1000;

/** Creates the execute function. */
export function createExecute(
  deps: ExecuteDeps,
): (source: string, subject: Subject, signal: AbortSignal) => Promise<ExecuteOutput> {
  const { limits } = deps;
  return async function execute(source, subject, signal) {
    if (new TextEncoder().encode(source).length > limits.maxSourceBytes) {
      throw new ToolError(ErrorText.resourceLimit);
    }
    const capabilities = deps.registry.enabled().map((capability) => capability.name);
    if (deps.stepUp) {
      // Before anything runs: the scopes of every capability the program names.
      const missing = missingScopes(
        programScopes(deps.stepUp, source, capabilities),
        grantedScopes(subject),
      );
      if (missing.length > 0) throw new ToolError(ErrorText.insufficientScope, missing.join(" "));
    }
    const done = new AbortController();
    const scope: CallScope = {
      subject,
      signal: AbortSignal.any([signal, done.signal]),
      intermediateBytes: 0,
    };
    try {
      const outcome = await deps.pool.run({
        source,
        capabilities,
        budgets: {
          maxSteps: limits.maxExecutionSteps,
          timeoutMs: limits.maxExecutionMs,
          maxHostCalls: limits.maxNativeCalls,
          maxDepth: limits.maxValueDepth,
          maxBytes: limits.maxValueBytes,
          maxAllocBytes: limits.maxAllocBytes,
        },
      }, {
        deadlineMs: limits.maxExecutionMs + WATCHDOG_GRACE_MS,
        signal,
        key: subject.id, // a free worker goes to the subject served least recently
        onCall: async (call) => {
          try {
            return { ok: true, value: await callCapability(deps, scope, call) };
          } catch (err) {
            if (!(err instanceof ToolError)) {
              deps.logger?.error("capability call failed unexpectedly", { error: String(err) });
            }
            return { ok: false, text: errorText(err, scope.signal) };
          }
        },
      });
      switch (outcome.type) {
        case "done":
          return { result: resultOf(outcome.result) };
        case "overrun":
          throw new ToolError(ErrorText.resourceLimit);
        case "canceled":
          throw new ToolError(ErrorText.canceled);
        case "crashed":
          deps.logger?.warn("execute worker crashed", { error: String(outcome.error) });
          throw new ToolError(
            /memory/i.test(String(outcome.error)) ? ErrorText.resourceLimit : ErrorText.internal,
          );
      }
    } finally {
      done.abort();
    }
  };
}

function resultOf(result: DoneMessage["result"]): unknown {
  if (result.ok) return result.value;
  switch (result.kind) {
    case "syntax":
    case "resolve":
      throw new ToolError(ErrorText.invalidProgram, result.message);
    case "limit":
      throw new ToolError(ErrorText.resourceLimit);
    case "host":
      throw result.hostText
        ? toolErrorOf(result.hostText)
        : new ToolError(ErrorText.capabilityFailed);
    default:
      if (result.hostText) throw toolErrorOf(result.hostText);
      // starlark-go's fixed allocation guard ("excessive repeat (1 * 1073741824 elements)",
      // "repeat count N too large") is a size bound, not a program error.
      if (/^(excessive repeat|repeat count \S+ too large)/.test(result.message)) {
        throw new ToolError(ErrorText.resourceLimit);
      }
      if (result.code === "host_argument_not_convertible") {
        throw new ToolError(ErrorText.invalidArguments, result.message);
      }
      throw new ToolError(ErrorText.invalidProgram);
  }
}
