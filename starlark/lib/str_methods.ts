/** Methods of string and bytes values. Strings are binary (UTF-8 byte) strings. */
import { EvalError } from "../errors.ts";
import { current, ELEM_BYTES, newStr, STR_BYTES, type Thread } from "../thread.ts";
import { chargeScan, countIn, indexOfFrom, lastIndexIn } from "../values/text_search.ts";
import { decodeRune, runes, utf8Decode, utf8Encode } from "../values/bytes_text.ts";
import { typeName } from "../values/ops.ts";
import { indices, mustElements } from "../values/seq.ts";
import { List, type NativeFn, StringIterable, Tuple, type Value } from "../values/value.ts";
import { intParam, positional, stringParam } from "./args.ts";
import { strFormat } from "./str_format.ts";

function s(recv: Value): string {
  return recv as string;
}

/** Resolve optional start/end like a slice, clamped to [0, n]. */
function span(
  fname: string,
  n: number,
  start: Value | undefined,
  end: Value | undefined,
): [number, number] {
  try {
    return indices(start, end, n);
  } catch (e) {
    throw new EvalError(`${fname}: ${(e as Error).message}`);
  }
}

function find(
  fname: string,
  recv: Value,
  args: Value[],
  kwargs: ReturnType<typeof Array.prototype.slice> | null,
  last: boolean,
  raise: boolean,
): Value {
  const [sub, start, end] = positional(fname, args, kwargs as never, 1, 3);
  const str = s(recv);
  const needle = stringParam(fname, sub, 1);
  const [a, b] = span(fname, str.length, start, end);
  if (b - a < needle.length) {
    if (raise) throw new EvalError(`${fname}: substring not found`);
    return -1;
  }
  const i = last ? lastIndexIn(str, needle, a, b) : indexOfFrom(str, needle, a, b);
  if (i < 0) {
    if (raise) throw new EvalError(`${fname}: substring not found`);
    return -1;
  }
  return i;
}

function mapText(recv: Value, f: (t: string) => string): string {
  const str = s(recv);
  chargeScan(str.length);
  return newStr(utf8Encode(f(utf8Decode(str))));
}

/** Go's unicode.ToUpper/ToLower are per-rune simple mappings (ß stays ß, İ lowers to i). */
function simpleCase(t: string, upper: boolean): string {
  // deno-lint-ignore no-control-regex -- the ASCII range, NUL included
  if (/^[\x00-\x7f]*$/.test(t)) return upper ? t.toUpperCase() : t.toLowerCase();
  let out = "";
  let n = 0;
  for (const ch of t) {
    if ((++n & 0xfff) === 0) current.charge(4096); // per-rune JS work: a step a rune
    const m = upper ? ch.toUpperCase() : ch.toLowerCase();
    if ([...m].length === 1) out += m;
    else out += !upper && ch === "\u0130" ? "i" : ch;
  }
  return out;
}

function isSpaceRune(r: number): boolean {
  return r === 32 || (r >= 9 && r <= 13) || r === 0x85 || r === 0xa0 || r === 0x1680 ||
    (r >= 0x2000 && r <= 0x200a) || r === 0x2028 || r === 0x2029 || r === 0x202f || r === 0x205f ||
    r === 0x3000;
}

function runeTest(recv: Value, pred: (ch: string, r: number) => boolean): boolean {
  const rs = runes(s(recv));
  if (rs.length === 0) return false;
  return rs.every((r, i) => {
    if ((i & 0xfff) === 0xfff) current.charge(4096);
    return pred(String.fromCodePoint(r), r);
  });
}

const isLowerCh = (c: string) => /\p{Ll}/u.test(c);
/** starlark-go's isCasedRune: a-z, A-Z, or unicode.SimpleFold(r) != r. */
const isCased = (c: string) =>
  /[a-zA-Z]/.test(c) || c === "\u00df" || // ß folds to ẞ (a case orbit)
  (c !== "\u0130" && c !== "\u0131" && (simpleCase(c, false) !== c || simpleCase(c, true) !== c));
/** unicode.ToTitle: differs from upper case only for a few digraphs. */
const TITLE: Record<string, string> = {
  "Ǆ": "ǅ",
  "ǅ": "ǅ",
  "ǆ": "ǅ",
  "Ǉ": "ǈ",
  "ǈ": "ǈ",
  "ǉ": "ǈ",
  "Ǌ": "ǋ",
  "ǋ": "ǋ",
  "ǌ": "ǋ",
  "Ǳ": "ǲ",
  "ǲ": "ǲ",
  "ǳ": "ǲ",
};
const toTitle = (c: string) => TITLE[c] ?? simpleCase(c, true);
const isLetter = (c: string) => /\p{L}/u.test(c);

function strip(
  fname: string,
  recv: Value,
  args: Value[],
  kwargs: never,
  left: boolean,
  right: boolean,
): Value {
  const [chars] = positional(fname, args, kwargs, 0, 1);
  if (chars !== undefined) stringParam(fname, chars, 1);
  const str = s(recv);
  chargeScan(str.length);
  let i = 0, j = str.length;
  if (chars === undefined || chars === null || chars === "") {
    while (i < j) {
      const [r, n] = decodeRune(str, i);
      if (!left || !isSpaceRune(r)) break;
      i += n;
    }
    while (j > i && right) {
      // step back one rune
      let k = j - 1;
      while (k > i && (str.charCodeAt(k) & 0xc0) === 0x80) k--;
      const [r] = decodeRune(str, k);
      if (!isSpaceRune(r)) break;
      j = k;
    }
    return str.slice(i, j);
  }
  if (typeof chars !== "string") {
    throw new EvalError(`${fname}: got ${typeName(chars)}, want string`);
  }
  const set = new Set(runes(chars));
  while (left && i < j) {
    const [r, n] = decodeRune(str, i);
    if (!set.has(r)) break;
    i += n;
  }
  while (right && j > i) {
    let k = j - 1;
    while (k > i && (str.charCodeAt(k) & 0xc0) === 0x80) k--;
    const [r] = decodeRune(str, k);
    if (!set.has(r)) break;
    j = k;
  }
  return str.slice(i, j);
}

function splitWhitespace(str: string, max: number, fromRight: boolean): string[] {
  // split on runs of Unicode whitespace
  chargeScan(str.length);
  const fields: [number, number][] = [];
  let i = 0, start = -1;
  while (i < str.length) {
    if ((i & 0xffff) < 4) current.charge(2048); // (rune widths ≤ 4: once per 64 KiB)
    const [r, n] = decodeRune(str, i);
    if (isSpaceRune(r)) {
      if (start >= 0) {
        fields.push([start, i]);
        start = -1;
      }
    } else if (start < 0) start = i;
    i += n;
  }
  if (start >= 0) fields.push([start, str.length]);
  if (max < 0 || fields.length <= max) return fields.map(([a, b]) => str.slice(a, b));
  if (!fromRight) {
    const head = fields.slice(0, max).map(([a, b]) => str.slice(a, b));
    // remainder: from start of field max to end, with leading space removed only
    head.push(strTrimRight(str.slice(fields[max][0]), false));
    return head;
  }
  const tail = fields.slice(fields.length - max).map(([a, b]) => str.slice(a, b));
  return [strTrimRight(str.slice(0, fields[fields.length - max - 1][1]), true), ...tail];
}

function strTrimRight(x: string, _right: boolean): string {
  return x;
}

function split(
  fname: string,
  recv: Value,
  args: Value[],
  kwargs: never,
  fromRight: boolean,
  th: Thread,
): Value {
  const [sep, maxv] = positional(fname, args, kwargs, 0, 2);
  const str = s(recv);
  th.charge(str.length >> 6);
  // int64 as starlark-go; beyond ±2^53 it splits everywhere, as a negative maxsplit
  const maxw = maxv === undefined ? -1 : intParam(fname, maxv, 2);
  const max = typeof maxw === "bigint" ? -1 : maxw;
  let parts: string[];
  if (sep === undefined || sep === null) {
    parts = splitWhitespace(str, max, fromRight);
  } else {
    if (typeof sep !== "string") {
      throw new EvalError(`split: got ${typeName(sep)} for separator, want string`); // sic, as starlark-go
    }
    if (sep === "") throw new EvalError("split: empty separator"); // sic, also for rsplit
    // pieces are charged before they are built
    const pieces = countIn(str, sep) + 1;
    current.alloc(pieces * (ELEM_BYTES + STR_BYTES) + str.length);
    th.checkAlloc(pieces * 8);
    const all: string[] = [];
    for (let i = 0;;) {
      const j = indexOfFrom(str, sep, i);
      if (j < 0) {
        all.push(str.slice(i));
        break;
      }
      all.push(str.slice(i, j));
      i = j + sep.length;
    }
    if (max < 0 || all.length <= max + 1) parts = all;
    else if (!fromRight) parts = [...all.slice(0, max), all.slice(max).join(sep)];
    else parts = [all.slice(0, all.length - max).join(sep), ...all.slice(all.length - max)];
  }
  if (sep === undefined || sep === null) {
    current.alloc(parts.length * (ELEM_BYTES + STR_BYTES) + str.length);
  }
  return new List(parts);
}

function startsWith(
  fname: string,
  recv: Value,
  args: Value[],
  kwargs: never,
  ends: boolean,
): Value {
  const [x, start, end] = positional(fname, args, kwargs, 1, 3);
  const str = s(recv);
  const [a, b] = span(fname, str.length, start, end);
  const sub = str.slice(a, Math.max(a, b));
  const test = (p: string) => (ends ? sub.endsWith(p) : sub.startsWith(p));
  if (typeof x === "string") return test(x);
  if (x instanceof Tuple) {
    for (const p of x.elems) {
      if (typeof p !== "string") {
        throw new EvalError(`${fname}: want string, got ${typeName(p)}, for element 0`);
      }
      if (test(p)) return true;
    }
    return false;
  }
  throw new EvalError(`${fname}: got ${typeName(x!)}, want string or tuple of string`);
}

function partition(fname: string, recv: Value, args: Value[], kwargs: never, last: boolean): Value {
  const [sep] = positional(fname, args, kwargs, 1, 1);
  if (typeof sep !== "string") {
    throw new EvalError(`${fname}: for parameter 1: got ${typeName(sep)}, want string`);
  }
  if (sep === "") throw new EvalError(`${fname}: empty separator`);
  const str = s(recv);
  const i = last ? lastIndexIn(str, sep) : indexOfFrom(str, sep);
  if (i < 0) return last ? new Tuple(["", "", str]) : new Tuple([str, "", ""]);
  newStr(str);
  return new Tuple([str.slice(0, i), sep, str.slice(i + sep.length)]);
}

function titleCase(t: string): string {
  let out = "";
  let prevCased = false;
  let n = 0;
  for (const ch of t) {
    if ((++n & 0xfff) === 0) current.charge(4096);
    const r = prevCased ? simpleCase(ch, false) : toTitle(ch);
    prevCased = isCased(r);
    out += r;
  }
  return out;
}

function m(f: NativeFn): NativeFn {
  return f;
}

export const STRING_METHODS = new Map<string, NativeFn>([
  [
    "capitalize",
    m((_th, a, k, r) => {
      positional("capitalize", a, k, 0, 0);
      chargeScan(s(r).length);
      const t = utf8Decode(s(r));
      if (t === "") return "";
      const first = String.fromCodePoint(t.codePointAt(0)!);
      return newStr(utf8Encode(toTitle(first) + simpleCase(t.slice(first.length), false)));
    }),
  ],
  [
    "count",
    m((_th, a, k, r) => {
      const [sub, start, end] = positional("count", a, k, 1, 3);
      const needle = stringParam("count", sub, 1);
      const str = s(r);
      const [i, j] = span("count", str.length, start, end);
      if (i > j) return 0;
      if (needle === "") return runes(str.slice(i, j)).length + 1;
      return countIn(str, needle, i, j);
    }),
  ],
  [
    "elems",
    m((
      _th,
      a,
      k,
      r,
    ) => (positional("elems", a, k, 0, 0), new StringIterable(s(r), "elems", false))),
  ],
  [
    "elem_ords",
    m((
      _th,
      a,
      k,
      r,
    ) => (positional("elem_ords", a, k, 0, 0), new StringIterable(s(r), "elem_ords", false))),
  ],
  [
    "codepoints",
    m((
      _th,
      a,
      k,
      r,
    ) => (positional("codepoints", a, k, 0, 0), new StringIterable(s(r), "codepoints", false))),
  ],
  [
    "codepoint_ords",
    m((
      _th,
      a,
      k,
      r,
    ) => (positional("codepoint_ords", a, k, 0, 0),
      new StringIterable(s(r), "codepoint_ords", false))
    ),
  ],
  ["endswith", m((_th, a, k, r) => startsWith("endswith", r, a, k as never, true))],
  ["startswith", m((_th, a, k, r) => startsWith("startswith", r, a, k as never, false))],
  ["find", m((_th, a, k, r) => find("find", r, a, k, false, false))],
  ["rfind", m((_th, a, k, r) => find("rfind", r, a, k, true, false))],
  ["index", m((_th, a, k, r) => find("index", r, a, k, false, true))],
  ["rindex", m((_th, a, k, r) => find("rindex", r, a, k, true, true))],
  ["format", m((th, a, k, r) => strFormat(th, s(r), a, k))],
  [
    "isalnum",
    m((
      _th,
      a,
      k,
      r,
    ) => (positional("isalnum", a, k, 0, 0), runeTest(r, (c) => /[\p{L}\p{Nd}]/u.test(c)))),
  ],
  [
    "isalpha",
    m((_th, a, k, r) => (positional("isalpha", a, k, 0, 0), runeTest(r, (c) => isLetter(c)))),
  ],
  [
    "isdigit",
    m((_th, a, k, r) => (positional("isdigit", a, k, 0, 0), runeTest(r, (c) => /\p{Nd}/u.test(c)))),
  ],
  [
    "isspace",
    m((
      _th,
      a,
      k,
      r,
    ) => (positional("isspace", a, k, 0, 0), runeTest(r, (_c, rr) => isSpaceRune(rr)))),
  ],
  [
    "islower",
    m((_th, a, k, r) => {
      positional("islower", a, k, 0, 0);
      chargeScan(s(r).length * 4);
      const t = utf8Decode(s(r));
      return [...t].some(isCased) && t === simpleCase(t, false);
    }),
  ],
  [
    "isupper",
    m((_th, a, k, r) => {
      positional("isupper", a, k, 0, 0);
      chargeScan(s(r).length * 4);
      const t = utf8Decode(s(r));
      return [...t].some(isCased) && t === simpleCase(t, true);
    }),
  ],
  [
    "istitle",
    m((_th, a, k, r) => {
      positional("istitle", a, k, 0, 0);
      chargeScan(s(r).length * 4);
      const t = utf8Decode(s(r));
      let cased = false, prevCased = false;
      for (const ch of t) {
        if ((ch >= "A" && ch <= "Z") || /\p{Lt}/u.test(ch)) {
          if (prevCased) return false;
          prevCased = true;
          cased = true;
        } else if (isLowerCh(ch)) {
          if (!prevCased) return false;
          prevCased = true;
          cased = true;
        } else if (/\p{Lu}/u.test(ch)) {
          return false;
        } else prevCased = false;
      }
      return cased;
    }),
  ],
  [
    "join",
    m((th, a, k, r) => {
      const [it] = positional("join", a, k, 1, 1);
      const el = mustElements(it, "join", th);
      let total = 0;
      for (const x of el) {
        if (typeof x !== "string") {
          throw new EvalError(`join: in list, want string, got ${typeName(x)}`);
        }
        total += x.length + s(r).length;
      }
      th.charge((el.length >> 3) + (total >> 5));
      th.checkAlloc(total);
      th.alloc(STR_BYTES + total);
      return (el as string[]).join(s(r));
    }),
  ],
  [
    "lower",
    m((_th, a, k, r) => (positional("lower", a, k, 0, 0), mapText(r, (t) => simpleCase(t, false)))),
  ],
  [
    "upper",
    m((_th, a, k, r) => (positional("upper", a, k, 0, 0), mapText(r, (t) => simpleCase(t, true)))),
  ],
  ["title", m((_th, a, k, r) => (positional("title", a, k, 0, 0), mapText(r, titleCase)))],
  ["lstrip", m((_th, a, k, r) => strip("lstrip", r, a, k as never, true, false))],
  ["rstrip", m((_th, a, k, r) => strip("rstrip", r, a, k as never, false, true))],
  ["strip", m((_th, a, k, r) => strip("strip", r, a, k as never, true, true))],
  ["partition", m((_th, a, k, r) => partition("partition", r, a, k as never, false))],
  ["rpartition", m((_th, a, k, r) => partition("rpartition", r, a, k as never, true))],
  [
    "removeprefix",
    m((_th, a, k, r) => {
      const [p] = positional("removeprefix", a, k, 1, 1);
      if (typeof p !== "string") {
        throw new EvalError(`removeprefix: for parameter 1: got ${typeName(p)}, want string`);
      }
      return s(r).startsWith(p) ? newStr(s(r).slice(p.length)) : s(r);
    }),
  ],
  [
    "removesuffix",
    m((_th, a, k, r) => {
      const [p] = positional("removesuffix", a, k, 1, 1);
      if (typeof p !== "string") {
        throw new EvalError(`removesuffix: for parameter 1: got ${typeName(p)}, want string`);
      }
      return s(r).endsWith(p) && p.length > 0
        ? newStr(s(r).slice(0, s(r).length - p.length))
        : s(r);
    }),
  ],
  [
    "replace",
    m((th, a, k, r) => {
      const [oldArg, newArg, countv] = positional("replace", a, k, 2, 3);
      const oldv = stringParam("replace", oldArg, 1);
      const newv = stringParam("replace", newArg, 2);
      // int64 as starlark-go; beyond ±2^53 it replaces every occurrence, as a negative count
      const countw = countv === undefined ? -1 : intParam("replace", countv, 3);
      const count = typeof countw === "bigint" ? -1 : countw;
      const str = s(r);
      // refuse before building a result past the byte budget
      {
        const str0 = s(r);
        let occurrences = oldv === "" ? runes(str0).length + 1 : countIn(str0, oldv);
        if (count >= 0 && occurrences > count) occurrences = count;
        const size = str0.length + occurrences * (newv.length - oldv.length);
        th.checkAlloc(size);
        th.charge(size >> 6);
        th.alloc(STR_BYTES + size);
      }
      let out = "";
      let n = 0;
      if (oldv === "") {
        // insert `new` before every rune and at the end (Go strings.Replace semantics)
        const rs: string[] = [];
        for (let i = 0; i < str.length;) {
          const [, w] = decodeRune(str, i);
          if ((rs.length & 0xfff) === 0xfff) current.charge(4096);
          rs.push(str.slice(i, i + w));
          i += w;
        }
        for (const ch of rs) {
          if (count < 0 || n < count) {
            out += newv;
            n++;
          }
          out += ch;
        }
        if (count < 0 || n < count) out += newv;
      } else {
        let i = 0;
        for (;;) {
          const j = count >= 0 && n >= count ? -1 : indexOfFrom(str, oldv, i);
          if (j < 0) break;
          out += str.slice(i, j) + newv;
          i = j + oldv.length;
          n++;
        }
        out += str.slice(i);
      }
      return out;
    }),
  ],
  ["split", m((th, a, k, r) => split("split", r, a, k as never, false, th))],
  ["rsplit", m((th, a, k, r) => split("rsplit", r, a, k as never, true, th))],
  [
    "splitlines",
    m((th, a, k, r) => {
      const [keep] = positional("splitlines", a, k, 0, 1);
      if (keep !== undefined && typeof keep !== "boolean") {
        throw new EvalError(`splitlines: for parameter 1: got ${typeName(keep)}, want bool`);
      }
      // starlark-go splits after each "\n" only (no \r handling)
      const str = s(r);
      if (str === "") return new List([]);
      const pieces = countIn(str, "\n") + 1;
      current.alloc(pieces * (ELEM_BYTES + STR_BYTES) + str.length);
      th.checkAlloc(pieces * 8);
      const lines: string[] = [];
      let i = 0;
      for (;;) {
        const j = indexOfFrom(str, "\n", i);
        if (j < 0) {
          lines.push(str.slice(i));
          break;
        }
        lines.push(keep === true ? str.slice(i, j + 1) : str.slice(i, j));
        i = j + 1;
      }
      if (lines[lines.length - 1] === "") lines.pop();
      return new List(lines);
    }),
  ],
]);

export const BYTES_METHODS = new Map<string, NativeFn>([
  [
    "elems",
    m((_th, a, k, r) => {
      positional("elems", a, k, 0, 0);
      return new StringIterable((r as unknown as { s: string }).s, "elems", true);
    }),
  ],
]);
