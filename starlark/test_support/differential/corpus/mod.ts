/**
 * Hand-written differential corpus: each program runs through our interpreter and the Go
 * reference runner and must give the same value, or the same error class (and, unless noted,
 * the same message).
 *
 * Written for the Debian starlark-go snapshot (2021-01): it has no `bytes` type, no
 * `str.removeprefix/removesuffix`, no dict `|` union, so those are not exercised here (the
 * conformance harness covers them from the newer test files where available), except where a case
 * records the newest starlark-go's outcome (`newest`: `+` of bytes literals).
 */
import type { CorpusCase } from "./case.ts";
import { PROGRAM_CASES } from "./programs.ts";
import { VALUE_CASES } from "./values.ts";

export type { CorpusCase } from "./case.ts";

export const CORPUS: CorpusCase[] = [...VALUE_CASES, ...PROGRAM_CASES];
