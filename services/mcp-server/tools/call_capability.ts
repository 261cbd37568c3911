/**
 * One capability call made by a running program: look up, bind keyword arguments, authorize with
 * canonical arguments, run the handler, project its result, and debit the value budgets. Every
 * failure becomes the stable text the whole execute call then ends with.
 * @module
 */
import type { CapabilityRegistry, Subject } from "../capabilities/registry.ts";
import { bindArguments, BindError } from "../capabilities/bind.ts";
import { ProjectionError, projectResult, tagFloats } from "../capabilities/project.ts";
import type { Authorizer } from "../auth/authorizer.ts";
import { PermissionDenied } from "../auth/authorizer.ts";
import type { Limits } from "../limits.ts";
import { grantedScopes, missingScopes, type StepUp } from "../auth/step_up.ts";
import type { Logger } from "@svc/shared/log";
import { AgentError, sanitizeAgentMessage } from "./agent_error.ts";
import { ErrorText, ToolError } from "./errors.ts";
import { jsonByteLength, valueDepth } from "./json_size.ts";

/** State of one execute call shared by its capability calls. */
export interface CallScope {
  subject: Subject;
  signal: AbortSignal;
  intermediateBytes: number;
}

/** Dependencies of {@linkcode callCapability}. */
export interface CallDeps {
  registry: CapabilityRegistry;
  authorizer: Authorizer;
  limits: Limits;
  logger?: Logger;
  /** Scopes capabilities require; checked again at each call (execute checked the names). */
  stepUp?: StepUp;
}

/** Performs one call; resolves with the projected value. @throws {ToolError} */
export async function callCapability(
  deps: CallDeps,
  scope: CallScope,
  call: { name: string; args: unknown[]; kwargs: Record<string, unknown> },
): Promise<unknown> {
  const cap = deps.registry.get(call.name);
  if (!cap) throw new ToolError(ErrorText.capabilityNotFound);
  if (call.args.length > 0) {
    throw new ToolError(
      ErrorText.invalidArguments,
      `${cap.name} accepts keyword arguments only (${call.args.length} positional given)`,
    );
  }
  let args: Record<string, unknown>;
  try {
    args = bindArguments(cap.input, call.kwargs);
  } catch (err) {
    if (err instanceof BindError) {
      throw new ToolError(ErrorText.invalidArguments, err.message);
    }
    throw err;
  }
  if (deps.stepUp) {
    const missing = missingScopes(deps.stepUp.scopesOf(cap.name), grantedScopes(scope.subject));
    if (missing.length > 0) throw new ToolError(ErrorText.insufficientScope, missing.join(" "));
  }
  await authorize(deps.authorizer, {
    subject: scope.subject,
    capability: cap.name,
    arguments: args,
  });
  let raw: unknown;
  try {
    raw = await cap.handler(args, { subject: scope.subject, signal: scope.signal });
  } catch (err) {
    throw handlerFailure(err, cap.name, deps.logger);
  }
  if (raw instanceof Error) throw handlerFailure(raw, cap.name, deps.logger);
  let value: Record<string, unknown>;
  try {
    value = projectResult(cap.output, raw);
  } catch (err) {
    if (!(err instanceof ProjectionError)) throw err;
    deps.logger?.warn("capability returned an invalid value", {
      capability: cap.name,
      reason: err.message,
    });
    throw new ToolError(ErrorText.capabilityFailed);
  }
  const bytes = jsonByteLength(value);
  if (bytes > deps.limits.maxValueBytes || valueDepth(value) > deps.limits.maxValueDepth) {
    throw new ToolError(ErrorText.resourceLimit);
  }
  scope.intermediateBytes += bytes;
  if (scope.intermediateBytes > deps.limits.maxIntermediateBytes) {
    throw new ToolError(ErrorText.resourceLimit);
  }
  return tagFloats(cap.output, value);
}

async function authorize(authorizer: Authorizer, request: Parameters<Authorizer>[0]) {
  let allowed: boolean;
  try {
    allowed = await authorizer(request);
  } catch (err) {
    if (err instanceof PermissionDenied) throw new ToolError(ErrorText.permissionDenied);
    throw new ToolError(ErrorText.policyFailure);
  }
  if (allowed !== true) throw new ToolError(ErrorText.permissionDenied);
}

function handlerFailure(err: unknown, capability: string, logger?: Logger): ToolError {
  // A handler may refuse an argument its binding could not (an OpenAPI path value of `..`)
  if (err instanceof BindError) {
    return new ToolError(ErrorText.invalidArguments, err.message);
  }
  if (err instanceof AgentError) {
    return new ToolError(ErrorText.capabilityFailed, sanitizeAgentMessage(err.message));
  }
  logger?.warn("capability handler failed", {
    capability,
    error: err instanceof Error ? err.name : typeof err,
  });
  return new ToolError(ErrorText.capabilityFailed);
}
