/**
 * Known differences between our interpreter and starlark-go, found by the differential tests and
 * described in BUGS.md beside this file. Ignored (not deleted) so they show up in every run;
 * remove an entry once the interpreter is fixed.
 */

/** Corpus cases (by name) that currently differ, with the BUGS.md entry. */
export const KNOWN_BUGS: Record<string, string> = {
  "capitalize uses title case": "BUGS.md 5",
  "cased runes follow unicode.SimpleFold": "BUGS.md 6",
  "repr of an empty range slice": "BUGS.md 7",
  "for loop variables with a trailing comma": "BUGS.md 8",
  "parameter list with a trailing comma before colon": "BUGS.md 9",
  "unterminated string with a bad escape": "BUGS.md 10",
  "enumerate is positional only": "BUGS.md 14",
  "strip(None) is an error": "BUGS.md 14",
  "max key=None is an error": "BUGS.md 14",
  "sorted checks its key before sorting": "BUGS.md 14",
  "rfind with a huge start index": "BUGS.md 14",
  "unexpected keyword argument is quoted": "BUGS.md 15",
  "string method argument errors": "BUGS.md 16",
  "json errors name the module": "BUGS.md 17",
  "pop from an empty dict with an unhashable key": "BUGS.md 18",
  "float() parses like strconv.ParseFloat": "BUGS.md 19",
  "index beyond 32 bits": "BUGS.md 21",
  "empty sequence times a huge count": "BUGS.md 22",
  "unknown conversion of a non-ASCII byte": "BUGS.md 20",
};

/**
 * Generated programs matching one of these are skipped by the property tests, so a known
 * difference does not mask new ones.
 */
export const KNOWN_BUG_PATTERNS: { pattern: RegExp; bug: string }[] = [
  {
    pattern: /[^\x00-\x7f][^]*\.(capitalize|title|isupper|islower|istitle)\(/,
    bug: "BUGS.md 5, 6",
  },
  { pattern: /range\(.*\)\[.*:.*:/, bug: "BUGS.md 7" },
  { pattern: /for [^\n:]*, in /, bug: "BUGS.md 8" },
  { pattern: /,\s*:/, bug: "BUGS.md 9" },
  { pattern: /\\[^abfnrtv\\'"0-7xuU\n]/, bug: "BUGS.md 10" },
  {
    pattern: /enumerate\(.*=|strip\(None|key=(None|[-\d"'(\[{]|True|False|range)/,
    bug: "BUGS.md 14",
  },
  {
    pattern: /find\(.*1 << 70|index\(.*1 << 70|with\(.*1 << 70|count\(.*1 << 70/,
    bug: "BUGS.md 14",
  },
  { pattern: /\{\}\n[^]*x\.(pop|get|setdefault)\(/, bug: "BUGS.md 18" },
  { pattern: /y = [^\n]*1 << 70[^]*x\[y\]|\[-?\(?1 << 70\)?\]/, bug: "BUGS.md 21" },
  {
    pattern: /x = (\(\)|\[\]|""|1 << 70)\n\s*y = (\(\)|\[\]|""|1 << 70)\n[^]*x \* y/,
    bug: "BUGS.md 22",
  },
  { pattern: /float\("[^"]*[_xXpP]/, bug: "BUGS.md 19" },
  { pattern: /%[^\x00-\x7f]/, bug: "BUGS.md 20" },
  { pattern: /split\(.*None|sorted\(.*, (?!reverse=|key=lambda)/, bug: "BUGS.md 14" },
];

export function knownBug(src: string): string | undefined {
  return KNOWN_BUG_PATTERNS.find((k) => k.pattern.test(src))?.bug;
}
