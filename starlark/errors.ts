/** Error types shared by every stage of the interpreter. */
import type { ErrorCode, ErrorKind } from "./api_types.ts";

/** Identifiers are held as UTF-8 byte strings; decode messages built from them (text stays). */
function bytesToText(msg: string): string {
  for (let i = 0; i < msg.length; i++) if (msg.charCodeAt(i) > 0xff) return msg;
  if (!/[\x80-\xff]/.test(msg)) return msg;
  return new TextDecoder().decode(Uint8Array.from(msg, (c) => c.charCodeAt(0)));
}

/** A position-carrying error from the scanner, parser or resolver ("<file>:line:col: msg"). */
export class StarlarkError extends Error {
  /** `"syntax"` (scanner, parser) or `"resolve"` (resolver). */
  readonly kind: ErrorKind;
  /** `"syntax_error"` or `"resolve_error"`, following `kind`. */
  readonly code: ErrorCode;
  /** The message without the position prefix. */
  readonly msg: string;
  /** The file name given to `parse` (`<program>` by default). */
  readonly filename: string;
  /** 1-based line of the error. */
  readonly line: number;
  /** 1-based column of the error (in UTF-8 bytes, as starlark-go counts). */
  readonly col: number;
  /** An error of `kind` at `pos`; identifiers in `msg` may be UTF-8 byte strings. */
  constructor(
    kind: ErrorKind,
    msg: string,
    pos: { filename: string; line: number; col: number },
  ) {
    msg = bytesToText(msg);
    super(`${pos.filename}:${pos.line}:${pos.col}: ${msg}`);
    this.name = "StarlarkError";
    this.kind = kind;
    this.code = kind === "syntax" ? "syntax_error" : "resolve_error";
    this.msg = msg;
    this.filename = pos.filename;
    this.line = pos.line;
    this.col = pos.col;
  }
}

/** One Starlark call frame of a dynamic error, outermost first when listed. */
export interface Frame {
  /** The function's name (`<toplevel>` for module code). */
  fn: string;
  /** The file name the program was parsed with. */
  filename: string;
  /** 1-based line of the call or of the error in this frame. */
  line: number;
  /** 1-based column of the call or of the error in this frame. */
  col: number;
}

/**
 * A dynamic (run-time) error. `message` is the bare starlark-go text; `frames` are filled in
 * as the error unwinds through Starlark frames (innermost first).
 */
export class EvalError extends Error {
  /** `"runtime"`, `"limit"` (a budget; see LimitError) or `"host"` (a host function threw). */
  kind: ErrorKind = "runtime";
  /** The stable error code reported to the embedder. */
  code: ErrorCode = "eval_error";
  /** For kind `"host"`: the value the host function threw. */
  override cause?: unknown;
  /** Position (packed line<<12|col) in the innermost Starlark frame, once known. */
  pos: number = -1;
  /** The Starlark frames the error unwound through, innermost first. */
  frames: Frame[] = [];
  /** A dynamic error with starlark-go's `message` (code eval_error, kind runtime by default). */
  constructor(message: string, code?: ErrorCode, kind?: ErrorKind) {
    super(message);
    this.name = "EvalError";
    if (code) this.code = code;
    if (kind) this.kind = kind;
  }
}

/** A budget violation; never caught by Starlark-level `catch` in the conformance harness. */
export class LimitError extends EvalError {
  /** A budget error: `code` names the budget (`max_steps`, `timeout`, ...). */
  constructor(code: ErrorCode, message: string) {
    super(message, code, "limit");
  }
}

/** A position packed into one number: line × 4096 + column (columns capped at 4095). */
export function packPos(line: number, col: number): number {
  return line * 4096 + (col > 4095 ? 4095 : col);
}
