/** Go-compatible float formatting (strconv.FormatFloat 'g' -1, 'e'/'f' with precision). */

/** Shortest round-trip digits and decimal exponent: x = 0.d1d2... × 10^(exp+1). */
function shortest(x: number): { digits: string; exp: number } {
  const s = Math.abs(x).toExponential(); // "d.ddde+X", shortest round-trip in V8
  const e = s.indexOf("e");
  const digits = s.slice(0, e).replace(".", "");
  return { digits, exp: Number(s.slice(e + 1)) };
}

function expSuffix(exp: number, upper: boolean): string {
  const a = Math.abs(exp);
  return (upper ? "E" : "e") + (exp < 0 ? "-" : "+") + (a < 10 ? "0" + a : String(a));
}

/** Starlark str(float): Go %g shortest, with ".0" appended when it looks like an int. */
export function formatFloat(x: number): string {
  if (!Number.isFinite(x)) return Number.isNaN(x) ? "nan" : x > 0 ? "+inf" : "-inf";
  const s = formatG(x, false);
  return s.includes(".") || s.includes("e") ? s : s + ".0";
}

/** Go strconv.FormatFloat(x, 'g', -1, 64). */
export function formatG(x: number, upper: boolean): string {
  if (!Number.isFinite(x)) return Number.isNaN(x) ? "NaN" : x > 0 ? "+Inf" : "-Inf";
  const neg = x < 0 || Object.is(x, -0);
  if (x === 0) return neg ? "-0" : "0";
  const { digits, exp } = shortest(x);
  let out: string;
  if (exp < -4 || exp >= 6) {
    out = digits[0] + (digits.length > 1 ? "." + digits.slice(1) : "") + expSuffix(exp, upper);
  } else if (exp < 0) {
    out = "0." + "0".repeat(-exp - 1) + digits;
  } else if (digits.length <= exp + 1) {
    out = digits + "0".repeat(exp + 1 - digits.length);
  } else {
    out = digits.slice(0, exp + 1) + "." + digits.slice(exp + 1);
  }
  return (neg ? "-" : "") + out;
}

/** Exact decimal expansion of a finite double (used for %f of big values and rounding). */
function exactDecimal(x: number): { int: bigint; frac: string } {
  // x = m * 2^e exactly
  const buf = new DataView(new ArrayBuffer(8));
  buf.setFloat64(0, Math.abs(x));
  const hi = buf.getUint32(0), lo = buf.getUint32(4);
  const bexp = (hi >>> 20) & 0x7ff;
  let mant = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  let e: number;
  if (bexp === 0) e = -1074;
  else {
    mant |= 1n << 52n;
    e = bexp - 1075;
  }
  if (e >= 0) return { int: mant << BigInt(e), frac: "" };
  const den = 1n << BigInt(-e);
  const int = mant / den;
  let rem = mant % den;
  let frac = "";
  while (rem !== 0n) {
    rem *= 10n;
    frac += String(rem / den);
    rem %= den;
  }
  return { int, frac };
}

/** Round a decimal digit string (int part + frac) to `prec` fraction digits, half-to-even. */
function roundFixed(int: bigint, frac: string, prec: number): string {
  let keep = frac.slice(0, prec).padEnd(prec, "0");
  const rest = frac.slice(prec);
  let n = BigInt((int.toString()) + keep);
  if (rest.length > 0) {
    const first = rest.charCodeAt(0) - 48;
    const tail = /[1-9]/.test(rest.slice(1));
    if (first > 5 || (first === 5 && (tail || n % 2n === 1n))) n += 1n;
  }
  const s = n.toString().padStart(prec + 1, "0");
  keep = s.slice(s.length - prec);
  const ip = s.slice(0, s.length - prec);
  return prec > 0 ? ip + "." + keep : ip;
}

/** Go %f / %F with precision prec (default 6). */
export function formatF(x: number, prec = 6): string {
  if (!Number.isFinite(x)) return Number.isNaN(x) ? "NaN" : x > 0 ? "+Inf" : "-Inf";
  const neg = x < 0 || Object.is(x, -0);
  const { int, frac } = exactDecimal(x);
  return (neg ? "-" : "") + roundFixed(int, frac, prec);
}

/** Go %e / %E with precision prec (default 6). */
export function formatE(x: number, prec = 6, upper = false): string {
  if (!Number.isFinite(x)) return Number.isNaN(x) ? "NaN" : x > 0 ? "+Inf" : "-Inf";
  const neg = x < 0 || Object.is(x, -0);
  if (x === 0) return (neg ? "-" : "") + "0." + "0".repeat(prec) + expSuffix(0, upper);
  const { int, frac } = exactDecimal(x);
  let all = int === 0n ? frac : int.toString() + frac;
  let exp = int === 0n ? -1 : int.toString().length - 1;
  if (int === 0n) {
    const lead = all.search(/[1-9]/);
    exp = -lead - 1;
    all = all.slice(lead);
  }
  // digits "d.ddd": treat first digit as int part
  let r = roundFixed(BigInt(all[0]), all.slice(1), prec);
  if (r.startsWith("10")) {
    // rounding overflowed (9.99 → 10.00)
    exp++;
    r = "1." + "0".repeat(prec);
    if (prec === 0) r = "1";
  }
  return (neg ? "-" : "") + r + expSuffix(exp, upper);
}
