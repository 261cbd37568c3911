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
  readonly kind: ErrorKind;
  readonly code: ErrorCode;
  /** The message without the position prefix. */
  readonly msg: string;
  readonly filename: string;
  readonly line: number;
  readonly col: number;
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
  fn: string;
  filename: string;
  line: number;
  col: number;
}

/**
 * A dynamic (run-time) error. `message` is the bare starlark-go text; `frames` are filled in
 * as the error unwinds through Starlark frames (innermost first).
 */
export class EvalError extends Error {
  kind: ErrorKind = "runtime";
  code: ErrorCode = "eval_error";
  override cause?: unknown;
  /** Position (packed line<<12|col) in the innermost Starlark frame, once known. */
  pos = -1;
  frames: Frame[] = [];
  constructor(message: string, code?: ErrorCode, kind?: ErrorKind) {
    super(message);
    this.name = "EvalError";
    if (code) this.code = code;
    if (kind) this.kind = kind;
  }
}

/** A budget violation; never caught by Starlark-level `catch` in the conformance harness. */
export class LimitError extends EvalError {
  constructor(code: ErrorCode, message: string) {
    super(message, code, "limit");
  }
}

export function packPos(line: number, col: number): number {
  return line * 4096 + (col > 4095 ? 4095 : col);
}
