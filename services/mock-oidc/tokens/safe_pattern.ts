/**
 * The rule for user-supplied request-mapping patterns (`match` of a scenario or a
 * `tokenCallbacks` entry). A JavaScript regex runs on a backtracking engine, so a pattern such
 * as `(a+)+$` against thirty `a`s and a `!` takes seconds and blocks every request. A pattern is
 * therefore accepted only if it cannot backtrack catastrophically:
 *
 * - no repeated group that itself contains a quantifier or an alternation (`(a+)+`, `(a|aa)*`,
 *   `(\w+\s?)*`, `(a?)+` are refused; `(ab)+`, `(a|b)?` and `a+b*` are fine: `?` does not
 *   repeat),
 * - no backreference (`\1`, `\k<name>`) and no lookaround (`(?=`, `(?!`, `(?<=`, `(?<!`),
 * - at most {@linkcode MAX_QUANTIFIERS} quantifiers and {@linkcode MAX_PATTERN_LENGTH}
 *   characters,
 *
 * and a value is matched against a pattern only when it is at most
 * {@linkcode MAX_MATCHED_LENGTH} characters long (longer values match `*` and exact patterns
 * only). Under these bounds the worst case is polynomial with a small degree on a short input.
 * A pattern that is not a valid regular expression stays what upstream makes of it: an exact
 * value.
 * @module
 */

/** Longest accepted pattern. */
export const MAX_PATTERN_LENGTH = 256;
/** Most quantifiers in one pattern. */
export const MAX_QUANTIFIERS = 4;
/** Longest value a pattern is run against. */
export const MAX_MATCHED_LENGTH = 1024;

/** Why `pattern` is refused, or `undefined` when it is safe to run. */
export function patternProblem(pattern: string): string | undefined {
  if (pattern === "*") return undefined;
  if (pattern.length > MAX_PATTERN_LENGTH) {
    return `pattern longer than ${MAX_PATTERN_LENGTH} characters`;
  }
  try {
    new RegExp(pattern, "u");
  } catch {
    try {
      new RegExp(pattern);
    } catch {
      return undefined; // not a regex: matched as an exact value
    }
  }
  return shapeProblem(pattern);
}

interface Group {
  /** A quantifier or alternation somewhere inside. */
  ambiguous: boolean;
}

function shapeProblem(pattern: string): string | undefined {
  const groups: Group[] = [{ ambiguous: false }];
  let quantifiers = 0;
  let lastGroup: Group | undefined; // the group that just closed, if the previous token was `)`
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    const closed = lastGroup;
    lastGroup = undefined;
    if (c === "\\") {
      const next = pattern[i + 1] ?? "";
      if (/[1-9]/.test(next) || next === "k") return "backreferences are not allowed";
      i++;
      continue;
    }
    if (c === "[") {
      // Skip the class: quantifier characters inside it are literals.
      for (i++; i < pattern.length && pattern[i] !== "]"; i++) if (pattern[i] === "\\") i++;
      continue;
    }
    if (c === "(") {
      if (/^\(\?<?[=!]/.test(pattern.slice(i, i + 4))) return "lookarounds are not allowed";
      groups.push({ ambiguous: false });
      // Skip a group prefix (`?:`, `?<name>`), whose `?` is no quantifier.
      const prefix = /^\?(?::|<[^>]*>)/.exec(pattern.slice(i + 1));
      if (prefix) i += prefix[0].length;
      continue;
    }
    if (c === ")") {
      const group = groups.length > 1 ? groups.pop()! : groups[0];
      if (group.ambiguous) groups[groups.length - 1].ambiguous = true;
      lastGroup = group;
      continue;
    }
    if (c === "|") {
      groups[groups.length - 1].ambiguous = true;
      continue;
    }
    const quantifier = /^(?:[*+?]|\{(\d+)(,(\d*))?\})/.exec(pattern.slice(i));
    if (quantifier) {
      const repeats = c === "*" || c === "+" ||
        (quantifier[2] !== undefined && (quantifier[3] === "" || Number(quantifier[3]) > 1)) ||
        (quantifier[1] !== undefined && quantifier[2] === undefined && Number(quantifier[1]) > 1);
      quantifiers++;
      if (quantifiers > MAX_QUANTIFIERS) return `more than ${MAX_QUANTIFIERS} quantifiers`;
      if (repeats && closed?.ambiguous) {
        return "a repeated group may not contain a quantifier or an alternation";
      }
      groups[groups.length - 1].ambiguous = true; // even `?`: `(a?)+` backtracks too
      i += quantifier[0].length - 1;
      if (pattern[i + 1] === "?") i++; // lazy form
    }
  }
  return undefined;
}
