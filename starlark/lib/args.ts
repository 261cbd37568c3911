/** Argument unpacking for built-ins, with starlark-go's error texts. */
import { EvalError } from "../errors.ts";
import { typeName } from "../values/ops.ts";
import type { Kwargs, Value } from "../values/value.ts";

/**
 * Checks one argument while unpacking; returns why it is unacceptable (e.g. "got string, want
 * iterable") or undefined. `param` is the bare parameter name.
 */
export type ArgCheck = (param: string, v: Value) => string | undefined;

/**
 * Bind args/kwargs to `params` (names; a trailing "?" marks optional). Returns values in
 * parameter order, `undefined` for omitted optional ones. `options.check` runs where starlark-go's
 * `UnpackArgs` converts each argument (positional ones first, then keywords in call order, before
 * the missing-argument check), so the first error reported is the same.
 */
export function unpackArgs(
  fname: string,
  args: Value[],
  kwargs: Kwargs,
  params: string[],
  options: { check?: ArgCheck } = {},
): (Value | undefined)[] {
  const out: (Value | undefined)[] = new Array(params.length).fill(undefined);
  if (args.length > params.length) {
    throw new EvalError(`${fname}: got ${args.length} arguments, want at most ${params.length}`);
  }
  const check = (i: number, v: Value, label: string) => {
    const why = options.check?.(params[i].replace(/\?$/, ""), v);
    if (why !== undefined) throw new EvalError(`${fname}: for parameter ${label}: ${why}`);
  };
  for (let i = 0; i < args.length; i++) {
    out[i] = args[i];
    check(i, args[i], params[i].replace(/\?$/, ""));
  }
  if (kwargs !== null) {
    for (const [k, v] of kwargs) {
      const i = params.findIndex((p) => p === k || p === k + "?");
      if (i < 0) throw new EvalError(`${fname}: unexpected keyword argument ${JSON.stringify(k)}`);
      if (out[i] !== undefined) {
        throw new EvalError(
          `${fname}: got multiple values for keyword argument ${JSON.stringify(k)}`,
        );
      }
      out[i] = v;
      check(i, v, JSON.stringify(k));
    }
  }
  for (let i = 0; i < params.length; i++) {
    if (out[i] === undefined && !params[i].endsWith("?")) {
      throw new EvalError(`${fname}: missing argument for ${params[i]}`);
    }
  }
  return out;
}

/** Positional-only arguments, between min and max of them. */
export function positional(
  fname: string,
  args: Value[],
  kwargs: Kwargs,
  min: number,
  max: number,
): Value[] {
  if (kwargs !== null && kwargs.length > 0) {
    throw new EvalError(`${fname}: unexpected keyword arguments`);
  }
  if (args.length < min) {
    throw new EvalError(
      `${fname}: got ${args.length} arguments, want ${min < max ? "at least " : ""}${min}`,
    );
  }
  if (args.length > max) {
    throw new EvalError(
      `${fname}: got ${args.length} arguments, want ${min < max ? "at most " : ""}${max}`,
    );
  }
  return args;
}

/** How starlark-go names a parameter in errors: quoted when it was passed by keyword. */
export function paramLabel(name: string, kwargs: Kwargs): string {
  return kwargs?.some(([k]) => k === name) ? JSON.stringify(name) : name;
}

/** Positional-only string parameter number `i` (1-based). */
export function stringParam(fname: string, v: Value, i: number): string {
  if (typeof v !== "string") {
    throw new EvalError(`${fname}: for parameter ${i}: got ${typeName(v)}, want string`);
  }
  return v;
}

/** Bounds of Go's int64, which starlark-go's `AsInt` into an `int` accepts. */
const INT64_MIN = -(1n << 63n);
/** See INT64_MIN. */
const INT64_MAX = (1n << 63n) - 1n;

/**
 * Positional-only int parameter number `i` (1-based), unpacked into a Go `int` (64-bit) as
 * starlark-go's `AsInt` does: any int in the signed 64-bit range is accepted (a bigint beyond
 * ±2^53), others fail with its text.
 */
export function intParam(fname: string, v: Value, i: number): number | bigint {
  if (typeof v === "number") return v;
  if (typeof v === "bigint") {
    if (v >= INT64_MIN && v <= INT64_MAX) return v;
    throw new EvalError(
      `${fname}: for parameter ${i}: ${v} out of range (want value in signed 64-bit range)`,
    );
  }
  throw new EvalError(`${fname}: for parameter ${i}: got ${typeName(v)}, want int`);
}

/** Go's int64 arithmetic: the exact result wrapped to 64 bits, as a normalised Starlark int. */
export function wrap64(x: bigint): number | bigint {
  const w = BigInt.asIntN(64, x);
  return w >= -9007199254740991n && w <= 9007199254740991n ? Number(w) : w;
}
