import assert from "node:assert/strict";
import { HttpError } from "@svc/shared/problem";
import { parseCreateTodo, parseListQuery, unstorableText } from "./validate.ts";
import { SCHEMAS, STORABLE_TEXT_PATTERN } from "../http/schemas.ts";

const enc = (v: unknown) => JSON.stringify(v);

function fails(fn: () => unknown, status: number): HttpError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof HttpError);
    assert.equal(err.status, status);
    return err;
  }
  throw new Error("did not throw");
}

Deno.test("title length counts characters: 1 and 200 pass, 0 and 201 fail", () => {
  assert.equal(parseCreateTodo(enc({ title: "a" })).title, "a");
  assert.equal(parseCreateTodo(enc({ title: "𝄞".repeat(200) })).title.length, 400);
  assert.equal(parseCreateTodo(enc({ title: "b".repeat(199) })).title.length, 199);
  fails(() => parseCreateTodo(enc({ title: "" })), 422);
  fails(() => parseCreateTodo(enc({ title: "𝄞".repeat(201) })), 422);
});

Deno.test("$schema is accepted as a string and rejected otherwise", () => {
  assert.equal(parseCreateTodo(enc({ title: "a", $schema: "x" })).title, "a");
  const err = fails(() => parseCreateTodo(enc({ title: "a", $schema: 1 })), 422);
  assert.equal(err.errors?.[0].location, "body.$schema");
});

Deno.test("null, numbers and strings as body are 422 expected object", () => {
  for (const v of [null, 1, "s", true]) {
    const err = fails(() => parseCreateTodo(enc(v)), 422);
    assert.equal(err.errors?.[0].message, "expected object");
  }
});

Deno.test("limit: absent and empty default to 20; 1..100 pass; 0, 101 fail", () => {
  const q = (s: string) => parseListQuery(new URL(`http://x/v1/todos${s}`));
  assert.equal(q("").limit, 20);
  assert.equal(q("?limit=").limit, 20);
  assert.equal(q("?limit=1").limit, 1);
  assert.equal(q("?limit=100").limit, 100);
  assert.equal(q("?cursor=abc").cursor, "abc");
  assert.equal(q("?cursor=").cursor, undefined);
  fails(() => q("?limit=0"), 422);
  fails(() => q("?limit=101"), 422);
  fails(() => q("?limit=1e2"), 422);
});

Deno.test("titles with NUL or unpaired surrogates are 422 at body.title; paired ones pass", () => {
  for (const title of ["a\u0000", "\ud83d", "x\ude00y"]) {
    const err = fails(() => parseCreateTodo(enc({ title })), 422);
    assert.equal(err.errors?.[0].location, "body.title");
  }
  assert.equal(parseCreateTodo(enc({ title: "\ud83d\ude00" })).title, "😀");
  assert.equal(parseCreateTodo(enc({ title: "\ufeff" })).title, "\ufeff");
});

Deno.test("a rejected limit is echoed as sent, a string, never a rounded number", () => {
  const q = (s: string) => parseListQuery(new URL(`http://x/v1/todos${s}`));
  for (
    const raw of [
      "99999999999999999999",
      "101",
      "0",
      "-1",
      "00000",
      "1e2",
      "9007199254740993",
    ]
  ) {
    const err = fails(() => q(`?limit=${raw}`), 422);
    assert.equal(err.errors?.[0].value, raw);
  }
  assert.equal(fails(() => q("?limit=%2B101"), 422).errors?.[0].value, "+101", "decoded once");
  assert.equal(q("?limit=0100").limit, 100, "leading zeros: still 100, at the bound");
});

Deno.test("the schema's title pattern and the validator's rule agree on the same inputs", () => {
  const pattern = new RegExp(STORABLE_TEXT_PATTERN);
  const unicode = new RegExp(STORABLE_TEXT_PATTERN, "u");
  const inputs = [
    "a",
    "",
    "\u0000",
    "a\u0000b",
    "\u0001",
    "\ud800",
    "\udbff",
    "\udc00",
    "\udfff",
    "a\ud800b",
    "\ud800\udc00",
    "\udbff\udfff",
    "\udc00\ud800",
    "\ud83d\ude00\ud83d",
    "😀",
    "\ufeff",
    "\uffff",
    "\ud7ff",
    "\ue000",
  ];
  for (const text of inputs) {
    const ok = unstorableText(text) === undefined;
    assert.equal(pattern.test(text), ok, JSON.stringify(text));
    assert.equal(unicode.test(text), ok, `u flag: ${JSON.stringify(text)}`);
  }
  const title = (SCHEMAS.CreateTodoInputBody.properties as Record<string, { pattern: string }>)
    .title;
  assert.equal(title.pattern, STORABLE_TEXT_PATTERN);
});

Deno.test("title length counts code points as [...title] does: pairs one, lone surrogates one", () => {
  assert.equal(parseCreateTodo(enc({ title: "𝄞".repeat(199) + "a" })).title.length, 399);
  const over = fails(() => parseCreateTodo(enc({ title: "𝄞".repeat(199) + "ab" })), 422);
  assert.deepEqual(over.errors?.map((e) => e.message), ["expected length <= 200"]);
  const messages = (title: string) =>
    fails(() => parseCreateTodo(enc({ title })), 422).errors?.map((e) => e.message);
  const unpaired = "expected valid Unicode (unpaired surrogate)";
  // 200 lone or reversed surrogates are 200 code points (only unstorable), 201 are too long.
  assert.deepEqual(messages("\ud800".repeat(200)), [unpaired]);
  assert.deepEqual(messages("\udc00\ud800".repeat(100)), [unpaired]);
  assert.deepEqual(messages("\ud800".repeat(201)), ["expected length <= 200", unpaired]);
  assert.deepEqual(messages("𝄞".repeat(199) + "\ud800\ud800"), [
    "expected length <= 200",
    unpaired,
  ]);
  assert.deepEqual(messages("𝄞".repeat(199) + "\ud800"), [unpaired]);
});
