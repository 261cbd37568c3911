/**
 * Go duration strings (`90s`, `1h1m`, `1.5h`, `300ms`, `-2h45m0.5s`), parsed and printed exactly
 * as Go's `time.ParseDuration` and `Duration.String` do, including their overflow rules.
 *
 * @module
 */

const MAX_U64_OF_I64 = 1n << 63n;

const UNITS: Record<string, bigint> = {
  ns: 1n,
  us: 1_000n,
  "µs": 1_000n, // U+00B5 micro sign
  "μs": 1_000n, // U+03BC Greek small letter mu
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};

function invalid(orig: string): RangeError {
  return new RangeError(`time: invalid duration ${JSON.stringify(orig)}`);
}

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= "0" && c <= "9";
}

/**
 * Parses a Go duration string into nanoseconds.
 *
 * @example Usage
 * ```ts
 * import { parseDurationNs } from "@svc/shared/duration";
 * parseDurationNs("1h1m"); // 3660000000000n
 * ```
 * @throws {RangeError} with Go's error text when the string is not a duration.
 */
export function parseDurationNs(text: string): bigint {
  const orig = text;
  let s = text;
  let neg = false;
  if (s !== "" && (s[0] === "-" || s[0] === "+")) {
    neg = s[0] === "-";
    s = s.slice(1);
  }
  if (s === "0") return 0n;
  if (s === "") throw invalid(orig);
  let total = 0n;
  while (s !== "") {
    if (!(s[0] === "." || isDigit(s[0]))) throw invalid(orig);
    // Integer part; overflow past 2^63 is an error, as in Go's leadingInt.
    let i = 0;
    let v = 0n;
    while (isDigit(s[i])) {
      if (v > MAX_U64_OF_I64 / 10n) throw invalid(orig);
      v = v * 10n + BigInt(s.charCodeAt(i) - 48);
      if (v > MAX_U64_OF_I64) throw invalid(orig);
      i++;
    }
    const pre = i > 0;
    s = s.slice(i);
    // Fraction part; digits past int64 precision are dropped, as in Go's leadingFraction.
    let f = 0n;
    let scale = 1;
    let post = false;
    if (s[0] === ".") {
      s = s.slice(1);
      let j = 0;
      let overflow = false;
      while (isDigit(s[j])) {
        if (!overflow) {
          if (f > (MAX_U64_OF_I64 - 1n) / 10n) overflow = true;
          else {
            const y = f * 10n + BigInt(s.charCodeAt(j) - 48);
            if (y > MAX_U64_OF_I64) overflow = true;
            else {
              f = y;
              scale *= 10;
            }
          }
        }
        j++;
      }
      post = j > 0;
      s = s.slice(j);
    }
    if (!pre && !post) throw invalid(orig);
    let u = 0;
    while (u < s.length && !(s[u] === "." || isDigit(s[u]))) u++;
    if (u === 0) throw new RangeError(`time: missing unit in duration ${JSON.stringify(orig)}`);
    const unitName = s.slice(0, u);
    s = s.slice(u);
    const unit = UNITS[unitName];
    if (unit === undefined) {
      throw new RangeError(
        `time: unknown unit ${JSON.stringify(unitName)} in duration ${JSON.stringify(orig)}`,
      );
    }
    if (v > MAX_U64_OF_I64 / unit) throw invalid(orig);
    v *= unit;
    if (f > 0n) {
      // Go computes this in float64 and truncates; do the same to print identical results.
      v += BigInt(Math.trunc(Number(f) * (Number(unit) / scale)));
      if (v > MAX_U64_OF_I64) throw invalid(orig);
    }
    total += v;
    if (total > MAX_U64_OF_I64) throw invalid(orig);
  }
  if (neg) return -total;
  if (total > MAX_U64_OF_I64 - 1n) throw invalid(orig);
  return total;
}

function fmtFrac(v: bigint, prec: number): [string, bigint] {
  let out = "";
  let print = false;
  for (let i = 0; i < prec; i++) {
    const digit = v % 10n;
    print = print || digit !== 0n;
    if (print) out = digit.toString() + out;
    v /= 10n;
  }
  return [print ? "." + out : "", v];
}

/**
 * Prints nanoseconds the way Go's `Duration.String` does (`1h0m0s`, `1.5s`, `300ms`, `0s`).
 *
 * @example Usage
 * ```ts
 * import { formatDurationNs } from "@svc/shared/duration";
 * formatDurationNs(5_400_000_000_000n); // "1h30m0s"
 * ```
 */
export function formatDurationNs(ns: bigint): string {
  const neg = ns < 0n;
  let u = neg ? -ns : ns;
  let out: string;
  if (u < 1_000_000_000n) {
    if (u === 0n) return "0s";
    let prec: number;
    let unit: string;
    if (u < 1_000n) [prec, unit] = [0, "ns"];
    else if (u < 1_000_000n) [prec, unit] = [3, "µs"];
    else [prec, unit] = [6, "ms"];
    const [frac, rest] = fmtFrac(u, prec);
    out = rest.toString() + frac + unit;
  } else {
    const [frac, rest] = fmtFrac(u, 9);
    u = rest;
    out = (u % 60n).toString() + frac + "s";
    u /= 60n;
    if (u > 0n) {
      out = (u % 60n).toString() + "m" + out;
      u /= 60n;
      if (u > 0n) out = u.toString() + "h" + out;
    }
  }
  return neg ? "-" + out : out;
}

/**
 * Parses a Go duration string into milliseconds (fractional below 1 ms).
 *
 * @example Usage
 * ```ts
 * import { parseDuration } from "@svc/shared/duration";
 * parseDuration("1.5s"); // 1500
 * ```
 */
export function parseDuration(text: string): number {
  return Number(parseDurationNs(text)) / 1e6;
}

/**
 * Prints milliseconds as Go would print the same duration.
 *
 * @example Usage
 * ```ts
 * import { formatDuration } from "@svc/shared/duration";
 * formatDuration(90_000); // "1m30s"
 * ```
 */
export function formatDuration(ms: number): string {
  return formatDurationNs(BigInt(Math.round(ms * 1e6)));
}
