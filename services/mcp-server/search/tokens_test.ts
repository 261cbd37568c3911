import assert from "node:assert/strict";
import {
  MAX_QUERY_TOKENS,
  normalizeQuery,
  QueryLimitError,
  tokenize,
  trimWhiteSpace,
} from "./tokens.ts";

Deno.test("tokenize splits separators, camel case, acronyms and letter/number runs", () => {
  assert.deepEqual(tokenize("records.lookup"), ["records", "lookup"]);
  assert.deepEqual(tokenize("get_user-name"), ["get", "user", "name"]);
  assert.deepEqual(tokenize("fooBar"), ["foo", "bar"]);
  assert.deepEqual(tokenize("HTTPServer"), ["http", "server"]);
  assert.deepEqual(tokenize("parseJSONValue"), ["parse", "json", "value"]);
  assert.deepEqual(tokenize("v2api"), ["v", "2", "api"]);
  assert.deepEqual(tokenize("sha256sum"), ["sha", "256", "sum"]);
  assert.deepEqual(tokenize("ÜberWeg straße"), ["über", "weg", "straße"]);
  assert.deepEqual(tokenize("日本語テキスト"), ["日本語テキスト"]);
  assert.deepEqual(tokenize("a+b/c@d"), ["a", "b", "c", "d"]);
  assert.deepEqual(tokenize("٣٤abc"), ["٣٤", "abc"]);
});

Deno.test("normalizeQuery trims, drops connectors and duplicates", () => {
  assert.deepEqual(normalizeQuery("  \u3000find the Records for owner\u00a0 ", 1024), [
    "find",
    "records",
    "owner",
  ]);
  assert.deepEqual(normalizeQuery("record RECORD Record", 1024), ["record"]);
  assert.deepEqual(
    normalizeQuery("a an and by for from in of on or the to with", 1024),
    [],
  );
  assert.deepEqual(normalizeQuery("...---___", 1024), []);
  assert.deepEqual(normalizeQuery("", 1024), []);
});

Deno.test("normalizeQuery byte bound counts padding before trimming (at, below, above)", () => {
  assert.deepEqual(normalizeQuery(" ab ", 4), ["ab"]);
  assert.deepEqual(normalizeQuery(" ab", 4), ["ab"]);
  assert.throws(() => normalizeQuery("  ab ", 4), QueryLimitError);
  assert.throws(() => normalizeQuery("é".repeat(3), 5), QueryLimitError); // 6 bytes
  assert.deepEqual(normalizeQuery("é".repeat(2) + "x", 5), ["ééx"]);
});

Deno.test("normalizeQuery allows 16 distinct tokens and refuses 17", () => {
  const words = (n: number) => Array.from({ length: n }, (_, i) => `w${"abcdefghijklmnopq"[i]}x`);
  assert.equal(MAX_QUERY_TOKENS, 16);
  assert.equal(normalizeQuery(words(15).join(" "), 1024).length, 15);
  assert.equal(normalizeQuery(words(16).join(" "), 1024).length, 16);
  assert.throws(() => normalizeQuery(words(17).join(" "), 1024), QueryLimitError);
  // duplicates and connectors do not count
  assert.equal(
    normalizeQuery(`${words(16).join(" ")} the ${words(16).join(" ")}`, 1024).length,
    16,
  );
});

Deno.test("trimWhiteSpace trims exactly Unicode White_Space (U+0085 yes, U+FEFF no)", () => {
  const ws = [
    "\t",
    "\n",
    "\u000b",
    "\f",
    "\r",
    " ",
    "\u0085",
    "\u00a0",
    "\u1680",
    "\u2000",
    "\u200a",
    "\u2028",
    "\u2029",
    "\u202f",
    "\u205f",
    "\u3000",
  ]; // deno-fmt-ignore
  for (const c of ws) assert.equal(trimWhiteSpace(`${c}x.y${c}`), "x.y", JSON.stringify(c));
  assert.equal(trimWhiteSpace("\u0085records.put\u0085"), "records.put");
  // U+FEFF is not White_Space (JS trim() strips it); U+200B and U+180E neither
  assert.equal(trimWhiteSpace("\ufeffrecords.put\ufeff"), "\ufeffrecords.put\ufeff");
  assert.equal(trimWhiteSpace("\u200bx\u180e"), "\u200bx\u180e");
  assert.equal(trimWhiteSpace(" a b "), "a b");
});
