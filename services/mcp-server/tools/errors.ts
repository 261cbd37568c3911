/**
 * The stable error texts of the capability tools (docs/mcp-server.md#error-texts) and the one error
 * type that carries them. Anything else thrown below the tool layer becomes `internal failure`.
 * @module
 */

/** Every stable text (or fixed prefix) a tool result may carry with `isError`. */
export const ErrorText = {
  unauthenticated: "unauthenticated",
  capabilityNotFound: "capability not found",
  invalidProgram: "invalid program",
  invalidArguments: "invalid capability arguments",
  permissionDenied: "permission denied",
  policyFailure: "authorization policy failure",
  resourceLimit: "resource limit exceeded",
  capabilityFailed: "capability failed",
  canceled: "context canceled",
  deadline: "context deadline exceeded",
  internal: "internal failure",
} as const;

/** A tool failure whose `message` is exactly the text the client sees. */
export class ToolError extends Error {
  constructor(text: string, options?: ErrorOptions) {
    super(text, options);
    this.name = "ToolError";
  }
}

/** `prefix` alone, or `prefix: detail` when there is a detail. */
export function withDetail(prefix: string, detail?: string): string {
  return detail ? `${prefix}: ${detail}` : prefix;
}

/** A deadline error from a service (maps to `context deadline exceeded`). */
export class DeadlineError extends Error {
  constructor(message = "deadline exceeded") {
    super(message);
    this.name = "DeadlineError";
  }
}

/** Maps anything thrown by the capability service to the text the client sees. */
export function errorText(err: unknown, signal?: AbortSignal): string {
  if (signal?.aborted) return ErrorText.canceled;
  if (err instanceof ToolError) return err.message;
  if (err instanceof DeadlineError) return ErrorText.deadline;
  if (err instanceof DOMException && err.name === "TimeoutError") return ErrorText.deadline;
  return ErrorText.internal;
}
