/**
 * Behaviour of newer starlark-go that the interpreter follows (docs/starlark.md, "Semantics of
 * the newest starlark-go") and Debian's 2021 snapshot, our reference runner, lacks. Programs that
 * exercise it are either skipped (`newerThanReference`) or compared with the reference's answer
 * rewritten to the newer text (`newerText`).
 */

/**
 * Error texts reworded in newer starlark-go, as [2021 text, newer text]. `hash` and `ord` accept
 * bytes there, and say so: `hash: got list, want string or bytes`.
 */
const REWORDED: [RegExp, string][] = [
  [/^hash: for parameter 1: got (\S+), want string$/, "hash: got $1, want string or bytes"],
  [/^ord: got (\S+), want string$/, "ord: got $1, want string or bytes"],
];

/** The reference's error text as newer starlark-go words it. */
export function newerText(message: string): string {
  for (const [from, to] of REWORDED) {
    if (from.test(message)) return message.replace(from, to);
  }
  return message;
}

/**
 * Features newer than the snapshot: bytes literals (`b'...'` scans as a name then a string
 * there), the `%F` conversion, and `dir()` of strings (which lists `removeprefix`/`removesuffix`).
 */
const NEWER_SYNTAX = /(^|[^A-Za-z0-9_])b['"]|%F|dir\(/;

/**
 * `int(text, base)` where text has a base prefix that the (nonzero) base does not match: newer
 * starlark-go, as the spec, reads the prefix as digits (`int("0b1", 16)` is 177); the snapshot
 * fails.
 */
function prefixReadAsDigits(src: string): boolean {
  for (const m of src.matchAll(/int\("([^"\\]*)", (\d+)\)/g)) {
    const text = m[1].replace(/^[+-]/, "");
    const base = Number(m[2]);
    if (base === 0 || text.length <= 2 || text[0] !== "0") continue;
    const prefix = { b: 2, o: 8, x: 16 }[text[1].toLowerCase() as "b" | "o" | "x"];
    if (prefix !== undefined && prefix !== base) return true;
  }
  return false;
}

/**
 * Also newer: `break`/`continue` in a def nested in a loop is a static error (the snapshot
 * resolves it), and `isalnum` counts only decimal digits (the snapshot took any \p{N}).
 */
export function newerThanReference(src: string): boolean {
  return NEWER_SYNTAX.test(src) || prefixReadAsDigits(src) ||
    (/\b(break|continue)\b/.test(src) && (src.match(/\bdef\b|\blambda\b/g)?.length ?? 0) > 1) ||
    // deno-lint-ignore no-control-regex -- the ASCII range, NUL included
    (/isalnum/.test(src) && /[^\x00-\x7f]/.test(src));
}
