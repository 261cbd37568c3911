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
  insufficientScope: "insufficient scope",
  policyFailure: "authorization policy failure",
  resourceLimit: "resource limit exceeded",
  capabilityFailed: "capability failed",
  canceled: "context canceled",
  deadline: "context deadline exceeded",
  internal: "internal failure",
} as const;

/** One of the stable texts: the `code` of a {@linkcode ToolError}. */
export type ToolErrorCode = (typeof ErrorText)[keyof typeof ErrorText];

const CODES: readonly ToolErrorCode[] = Object.values(ErrorText);

/**
 * A tool failure whose `message` is exactly the text the client sees: its `code`, the stable
 * text, alone or followed by `: <detail>`.
 */
export class ToolError extends Error {
  /** The stable text, without the detail. */
  readonly code: ToolErrorCode;
  /**
   * Creates the error.
   * @param code The stable text.
   * @param detail What follows it after `: ` (nothing when empty).
   * @param options The cause, kept for logs.
   */
  constructor(code: ToolErrorCode, detail?: string, options?: ErrorOptions) {
    super(detail ? `${code}: ${detail}` : code, options);
    this.name = "ToolError";
    this.code = code;
  }
}

/**
 * The error of a text {@linkcode errorText} made (one that travelled to an execute worker and
 * back): the same text, its stable prefix as the code (`internal failure` for any other text).
 */
export function toolErrorOf(text: string): ToolError {
  const code = CODES.find((prefix) => text === prefix || text.startsWith(`${prefix}: `));
  if (code === undefined) return new ToolError(ErrorText.internal);
  return new ToolError(code, text === code ? undefined : text.slice(code.length + 2));
}

/** A deadline error from a service (maps to `context deadline exceeded`). */
export class DeadlineError extends Error {
  /** Stable code (the client sees `context deadline exceeded`). */
  readonly code = "deadline_exceeded";
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
