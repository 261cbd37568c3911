/**
 * Line patches applied (in memory) to starlark-go test files before running them. Each
 * replaces a substring on one line (or blanks it: to = null) so that line numbers hold.
 * Only uses of features our dialect excludes are patched; the reason says why.
 */
export interface Patch {
  file: string;
  line: number;
  from: string;
  to: string | null;
  reason: string;
}

const SET = "set is excluded by the dialect";

export const PATCHES: Patch[] = [
  // builtins.star: `x in set(...)`/len/iteration behave the same on a tuple
  { file: "starlark/testdata/builtins.star", line: 65, from: "set(", to: "tuple(", reason: SET },
  { file: "starlark/testdata/builtins.star", line: 66, from: "set(", to: "tuple(", reason: SET },
  { file: "starlark/testdata/builtins.star", line: 67, from: "set(", to: "tuple(", reason: SET },
  { file: "starlark/testdata/builtins.star", line: 68, from: "set(", to: "tuple(", reason: SET },
  // builtins.star: dir/hasattr/getattr on a set value (method "union")
  ...[183, 184, 185, 186, 187, 188, 189].map((line) => ({
    file: "starlark/testdata/builtins.star",
    line,
    from: "",
    to: null,
    reason: SET,
  })),
  // float.star: the expected-types table is compared as a collection; a list works the same
  { file: "starlark/testdata/float.star", line: 472, from: "set(", to: "list(", reason: SET },
  // function.star: identity of bound methods checked through set(); len() of a list is the same
  { file: "starlark/testdata/function.star", line: 114, from: "set(", to: "list(", reason: SET },
  // string.star: set(str) and set union errors
  { file: "starlark/testdata/string.star", line: 408, from: "set(", to: null, reason: SET },
  { file: "starlark/testdata/string.star", line: 409, from: "set(", to: null, reason: SET },
];
