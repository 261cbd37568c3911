/**
 * Corpus cases where our interpreter is known to differ from starlark-go, by case name, each
 * with the reason. They are ignored (not deleted) so they show up in every test run; details in
 * BUGS.md beside this file. Remove an entry once the interpreter is fixed.
 */
export const KNOWN_BUGS: Record<string, string> = {};
