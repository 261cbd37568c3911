import assert from "node:assert/strict";
import { thrownMessage } from "./thrown.ts";

Deno.test("thrownMessage: an Error's message, or its name when it has none", () => {
  assert.equal(thrownMessage(new Error("boom")), "boom");
  assert.equal(thrownMessage(new TypeError("bad type")), "bad type");
  assert.equal(thrownMessage(new RangeError()), "RangeError");
});

Deno.test("thrownMessage: never [object Object] for a value that is not an Error", () => {
  class ErrnoError {
    constructor(readonly errno: number) {}
  }
  const cases: [unknown, string][] = [
    // What PGlite's Emscripten file system throws (on a data directory that is a file): no
    // message, a WASI errno.
    [{ name: "ErrnoError", errno: 54 }, "ErrnoError (errno 54: ENOTDIR, not a directory)"],
    [new ErrnoError(44), "ErrnoError (errno 44: ENOENT, no such file or directory)"],
    [{ name: "ErrnoError", errno: 999 }, "ErrnoError (errno 999)"],
    [{ code: "ENOTDIR", errno: -20 }, "a value that is not an Error (code ENOTDIR, errno -20)"],
    [{ message: "first line\nsecond line" }, "first line"],
    [{ message: "" }, "a value that is not an Error was thrown"],
    [{}, "a value that is not an Error was thrown"],
    [Object.create(null), "a value that is not an Error was thrown"],
    // Its other contents are never printed: they may hold anything (a URL with a password).
    [{ url: "postgres://u:secret@h/db" }, "a value that is not an Error was thrown"],
    ["plain text", "plain text"],
    ["", "an empty string was thrown"],
    [42, "42 was thrown"],
    [undefined, "undefined was thrown"],
    [null, "null was thrown"],
  ];
  for (const [value, want] of cases) {
    const got = thrownMessage(value);
    assert.equal(got, want);
    assert.doesNotMatch(got, /\[object /);
  }
});
