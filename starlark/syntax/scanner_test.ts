import assert from "node:assert/strict";
import { scan } from "./scanner.ts";

const kinds = (src: string) => scan(src, "t").map((t) => t.kind).join(" ");

Deno.test("scanner emits indent/outdent around blocks and no newline inside brackets", () => {
  assert.equal(
    kinds("def f():\n  x = (1,\n 2)\n"),
    "def ident ( ) : newline indent ident = ( int , int ) newline outdent eof",
  );
});

Deno.test("scanner decodes literal forms into byte strings and numbers", () => {
  const v = (src: string) => scan(src, "t")[0].value;
  assert.equal(v("'\\x41\\101\\n'"), "AA\n");
  assert.equal(v('"Ω"'), "\xce\xa9"); // UTF-8 bytes, one char per byte
  assert.equal(v("r'a\\nb'"), "a\\nb");
  assert.equal(v("0x10"), 16);
  assert.equal(v("0o17"), 15);
  assert.equal(v("0b101"), 5);
  assert.equal(v("123456789012345678901234567890"), 123456789012345678901234567890n);
  assert.equal(v("1.5e3"), 1500);
  assert.equal(scan("b'\\xff'", "t")[0].kind, "bytes");
});

Deno.test("scanner treats a tab as advancing to the next multiple of 8", () => {
  // tab (col 8) and 8 spaces are the same indentation level
  assert.equal(
    kinds("def f():\n\tx\n        y\n"),
    "def ident ( ) : newline indent ident newline ident newline outdent eof",
  );
});

Deno.test("scanner errors become an error token with starlark-go's text", () => {
  const last = (src: string) => scan(src, "t").at(-1)!;
  assert.equal(last("x = 0755").error?.message, "t:1:9: obsolete form of octal literal; use 0o755");
  assert.equal(last("x = 'abc").error?.msg, "unexpected EOF in string");
  assert.equal(last("x = \\ y").error?.msg, "stray backslash in program");
  assert.equal(last("'\\q'").error?.msg, "invalid escape sequence \\q");
});

Deno.test("tokens carry their start and end positions and all share one shape", () => {
  const tokens = scan("x = 10\n", "t");
  assert.deepEqual(
    tokens.map((t) => [t.kind, t.line, t.col, t.endLine, t.endCol]),
    [
      ["ident", 1, 1, 1, 2],
      ["=", 1, 3, 1, 4],
      ["int", 1, 5, 1, 7],
      ["newline", 1, 7, 2, 1], // a newline ends at the start of the next line
      ["eof", 2, 1, 2, 1],
    ],
  );
  // the parser reads tokens in a hot loop: same keys in the same order (no `error` key)
  const keys = new Set(tokens.map((t) => Object.keys(t).join(",")));
  assert.deepEqual([...keys], ["kind,value,line,col,endLine,endCol"]);
});
