import assert from "node:assert/strict";
import { Thread } from "../thread.ts";
import { repr } from "../values/repr.ts";
import { decode } from "./json_decode.ts";
import { encode } from "./json_encode.ts";
import { indent } from "./json_indent.ts";
import { Dict, Float, List } from "../values/value.ts";

Deno.test("json.encode sorts keys and prints Starlark float text", () => {
  const d = new Dict();
  d.map.set("y", ["y", new List([1, new Float(1e6)])]);
  d.map.set("x", ["x", null]);
  assert.equal(encode(new Thread(), d), '{"x":null,"y":[1,1e+06]}');
});

Deno.test("json.decode keeps big ints exact and reports offsets", () => {
  assert.equal(
    repr(decode(new Thread(), '[3539537889086624823140625, 1.5, "\\u0123"]')),
    '[3539537889086624823140625, 1.5, "ģ"]'.replace("ģ", "\xc4\xa3"),
  );
  assert.throws(
    () => decode(new Thread(), "truefalse"),
    /json.decode: at offset 4, unexpected character 'f' after value/,
  );
});

Deno.test("json.indent re-lays out tokens like Go's json.Indent", () => {
  assert.equal(
    indent('{"a":[1,2],"b":{}}', "", "  "),
    '{\n  "a": [\n    1,\n    2\n  ],\n  "b": {}\n}',
  );
  assert.throws(() => indent("!x", "", "\t"), /invalid character/);
});
