/**
 * Errors of the GitHub and Actions-service calls, with stable codes callers switch on. The
 * Actions service answers errors as `{"typeName": "...Exception", "message": "..."}`; the code
 * comes from the type name, never from the message text.
 *
 * @module
 */

/** Stable error codes. */
export type ActionsErrorCode =
  | "agent_exists"
  | "agent_not_found"
  | "job_still_running"
  | "scale_set_not_found"
  | "session_conflict"
  | "unauthorized"
  | "not_found"
  | "http_error"
  | "bad_response"
  | "network"
  | "timeout";

/** A failed call. `message` holds no token or response secret. */
export class ActionsError extends Error {
  readonly code: ActionsErrorCode;
  readonly status: number;
  readonly typeName: string | undefined;
  constructor(
    code: ActionsErrorCode,
    message: string,
    options: { status?: number; typeName?: string; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = "ActionsError";
    this.code = code;
    this.status = options.status ?? 0;
    this.typeName = options.typeName;
  }
}

const BY_TYPE: [string, ActionsErrorCode][] = [
  ["AgentExistsException", "agent_exists"],
  ["AgentNotFoundException", "agent_not_found"],
  ["JobStillRunningException", "job_still_running"],
  ["RunnerScaleSetNotFoundException", "scale_set_not_found"],
];

/** Strips a leading UTF-8 byte order mark, which the Actions service sends. */
export function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** Builds the error of a non-2xx response from its status and body text. */
export function errorOfResponse(what: string, status: number, body: string): ActionsError {
  let typeName: string | undefined;
  let detail = "";
  try {
    const parsed = JSON.parse(stripBom(body));
    if (parsed && typeof parsed === "object") {
      if (typeof parsed.typeName === "string") typeName = parsed.typeName;
      if (typeof parsed.message === "string") detail = parsed.message;
    }
  } catch {
    detail = body; // text/plain bodies are opaque text
  }
  const mapped = typeName === undefined
    ? undefined
    : BY_TYPE.find(([t]) => typeName!.includes(t))?.[1];
  const code: ActionsErrorCode = mapped ??
    (status === 401
      ? "unauthorized"
      : status === 409
      ? "session_conflict"
      : status === 404
      ? "not_found"
      : "http_error");
  // deno-lint-ignore no-control-regex -- control characters are what this rejects
  const shown = detail.replace(/[\x00-\x1f\x7f]/g, " ").slice(0, 200);
  return new ActionsError(
    code,
    `Cannot ${what}: HTTP ${status}${typeName ? ` ${typeName}` : ""}${shown ? `: ${shown}` : ""}`,
    { status, typeName },
  );
}
