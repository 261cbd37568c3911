/**
 * Turns raw text (flags, environment variables) and decoded YAML values into typed setting
 * values, and checks them against the row's bounds. Every failure names the key and the source,
 * never the value.
 *
 * @module
 */
import { formatDuration, parseDuration } from "../codec/duration.ts";
import { SettingsError } from "./error.ts";
import type { Setting } from "./types.ts";

/** A normalized row: the key, its flag and variables resolved from the table's conventions. */
export interface SettingRow {
  /** The configuration-file key, e.g. `proxy.shutdown_grace`. */
  key: string;
  /** The row as the table declares it. */
  spec: Setting;
  /** Flag name without dashes, `_` written as `-`; absent when the setting has no flag. */
  flag?: string;
  /** Variables feeding the setting, first set wins. */
  env: string[];
  /** Whether the configuration file may set it (secrets may not). */
  file: boolean;
}

const EXPECTED: Record<Setting["type"], string> = {
  string: "a string",
  int: "an integer",
  int64: "an integer",
  float: "a number",
  bool: "true or false",
  duration: "a Go duration such as 5s or 1m30s",
  list: "a list of strings",
};

function fail(row: SettingRow, where: string, why: string): SettingsError {
  return new SettingsError(row.key, `Cannot read setting "${row.key}" from ${where}: ${why}`);
}

/** Names the kind of a decoded YAML value without showing it. */
function kindOf(value: unknown): string {
  if (value === null || value === undefined) return "an empty value";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a map";
  if (typeof value === "bigint") return "a number";
  return `a ${typeof value}`;
}

/** Converts flag or environment text. */
export function fromText(row: SettingRow, raw: string, where: string): unknown {
  const { type } = row.spec;
  const bad = () => fail(row, where, `expected ${EXPECTED[type]}`);
  switch (type) {
    case "string":
      return check(row, raw, where);
    case "bool":
      if (raw !== "true" && raw !== "false") throw bad();
      return raw === "true";
    case "int":
      if (!/^[-+]?\d{1,15}$/.test(raw)) throw bad();
      return check(row, Number(raw), where);
    case "int64":
      // Digits only (no 0x, no exponent); the range is checked on the exact value.
      if (!/^[-+]?\d{1,40}$/.test(raw)) throw bad();
      return check(row, BigInt(raw), where);
    case "float":
      if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(raw)) throw bad();
      return check(row, Number(raw), where);
    case "duration": {
      const ms = duration(raw);
      if (ms === undefined) throw bad();
      return check(row, ms, where);
    }
    case "list":
      return check(row, raw.split(",").map((s) => s.trim()).filter((s) => s !== ""), where);
  }
}

/** Converts a value decoded from the configuration file; YAML types must match exactly. */
export function fromFile(row: SettingRow, value: unknown, where: string): unknown {
  const { type } = row.spec;
  const bad = () => fail(row, where, `expected ${EXPECTED[type]}, got ${kindOf(value)}`);
  switch (type) {
    case "string":
      if (typeof value !== "string") throw bad();
      return check(row, value, where);
    case "bool":
      if (typeof value !== "boolean") throw bad();
      return value;
    case "int":
      if (!Number.isSafeInteger(value)) throw bad();
      return check(row, value, where);
    case "int64":
      // The decoder hands over integers beyond 2^53 as exact bigints (from the source text).
      if (typeof value === "bigint") return check(row, value, where);
      if (!Number.isSafeInteger(value)) throw bad();
      return check(row, BigInt(value as number), where);
    case "float":
      if (typeof value !== "number" || !Number.isFinite(value)) throw bad();
      return check(row, value, where);
    case "duration": {
      // A bare 0 is the one number Go's YAML decoding accepts for a duration.
      const ms = value === 0 ? 0 : typeof value === "string" ? duration(value) : undefined;
      if (ms === undefined) throw bad();
      return check(row, ms, where);
    }
    case "list":
      if (!Array.isArray(value) || !value.every((v) => typeof v === "string")) throw bad();
      return check(row, [...value], where);
  }
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

function duration(text: string): number | undefined {
  try {
    return parseDuration(text);
  } catch {
    return undefined;
  }
}

/** Applies choices, bounds and the row's own validation to a typed value. */
export function check(row: SettingRow, value: unknown, where: string): unknown {
  const spec = row.spec;
  if (spec.type === "string" && spec.normalize) value = spec.normalize(value as string);
  if (spec.type === "string" && spec.choices && !spec.choices.includes(value as string)) {
    throw fail(row, where, `expected one of ${spec.choices.join(", ")}`);
  }
  if (
    typeof value === "number" && (spec.type === "int" || spec.type === "float" ||
      spec.type === "duration")
  ) {
    const shown = (n: number) => spec.type === "duration" ? formatDuration(n) : String(n);
    if (spec.min !== undefined && value < spec.min) {
      throw fail(row, where, `must be at least ${shown(spec.min)}`);
    }
    if (spec.max !== undefined && value > spec.max) {
      throw fail(row, where, `must be at most ${shown(spec.max)}`);
    }
  }
  if (typeof value === "bigint" && spec.type === "int64") {
    const min = spec.min !== undefined && spec.min > INT64_MIN ? spec.min : INT64_MIN;
    const max = spec.max !== undefined && spec.max < INT64_MAX ? spec.max : INT64_MAX;
    if (value < min) throw fail(row, where, `must be at least ${min}`);
    if (value > max) throw fail(row, where, `must be at most ${max}`);
  }
  const validate = (spec as { validate?: (v: unknown) => string | undefined }).validate;
  const reason = validate?.(value);
  if (reason) throw fail(row, where, spec.secret ? scrub(reason, value) : reason);
  return value;
}

/** Removes a secret's text from a reason a validator wrote, in case it quoted the value. */
function scrub(reason: string, value: unknown): string {
  const parts = (Array.isArray(value) ? value : [value]).filter((v): v is string =>
    typeof v === "string" && v !== ""
  );
  return parts.reduce((text, part) => text.replaceAll(part, "[redacted]"), reason);
}
