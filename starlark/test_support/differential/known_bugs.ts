/**
 * Known differences between our interpreter and starlark-go, found by the differential tests and
 * described in BUGS.md beside this file. Ignored (not deleted) so they show up in every run;
 * remove an entry once the interpreter is fixed.
 */

/** Corpus cases (by name) that currently differ, with the BUGS.md entry. */
export const KNOWN_BUGS: Record<string, string> = {};

/**
 * Generated programs matching one of these are skipped by the property tests, so a known
 * difference does not mask new ones.
 */
const KNOWN_BUG_PATTERNS: { pattern: RegExp; bug: string }[] = [];

export function knownBug(src: string): string | undefined {
  return KNOWN_BUG_PATTERNS.find((k) => k.pattern.test(src))?.bug;
}
