import assert from "node:assert/strict";
import { HttpError } from "@svc/shared/problem";
import { TRAVERSAL_CORPUS } from "./_test_support.ts";
import { MAX_KEY_BYTES, normalizePrefix, objectKeyOf, rawPathOf } from "./target.ts";

function rejects(path: string) {
  assert.throws(() => objectKeyOf(path, "p/"), (e: unknown) => {
    assert.ok(e instanceof HttpError, `expected HttpError for ${JSON.stringify(path)}`);
    assert.equal(e.status, 400);
    assert.equal(e.code, "invalid_input");
    assert.ok(!e.message.includes(path), "the message never echoes the path");
    return true;
  }, `expected ${JSON.stringify(path)} to be rejected`);
}

Deno.test("objectKeyOf() rejects every path of the traversal corpus with 400 invalid_input", () => {
  for (const path of TRAVERSAL_CORPUS) rejects(path);
});

Deno.test("objectKeyOf() maps legal paths to keys under the prefix", async (t) => {
  const cases: [string, string][] = [
    ["/streams/v1/index.json", "p/streams/v1/index.json"],
    [
      "/images/debian/12/amd64/default/20250824_13:00/rootfs.squashfs",
      "p/images/debian/12/amd64/default/20250824_13:00/rootfs.squashfs",
    ],
    ["/images/20250816_23%3A08/rootfs.tar.xz", "p/images/20250816_23:08/rootfs.tar.xz"],
    ["/images/20250816_23%3a08/x", "p/images/20250816_23:08/x"],
    ["/a%20b", "p/a b"],
    ["/a%25b", "p/a%b"],
    ["/a%252Fb", "p/a%2Fb"],
    ["/caf%C3%A9", "p/café"],
    ["/...", "p/..."],
    ["/a..b/.c/d.", "p/a..b/.c/d."],
    ["/~user/x@y/a+b=c;d,e!$&'()*", "p/~user/x@y/a+b=c;d,e!$&'()*"],
  ];
  for (const [path, key] of cases) {
    await t.step(path, () => assert.equal(objectKeyOf(path, "p/"), key));
  }
  await t.step("empty prefix", () => assert.equal(objectKeyOf("/a/b", ""), "a/b"));
});

Deno.test("objectKeyOf() bounds the key at 1024 bytes", async (t) => {
  const prefix = "p/";
  await t.step("at the limit", () => {
    const path = "/" + "a".repeat(MAX_KEY_BYTES - prefix.length);
    assert.equal(objectKeyOf(path, prefix).length, MAX_KEY_BYTES);
  });
  await t.step("below the limit", () => {
    const path = "/" + "a".repeat(MAX_KEY_BYTES - prefix.length - 1);
    assert.equal(objectKeyOf(path, prefix).length, MAX_KEY_BYTES - 1);
  });
  await t.step("above the limit", () => rejects("/" + "a".repeat(MAX_KEY_BYTES - 1)));
  await t.step("counts UTF-8 bytes, not characters", () => {
    rejects("/" + "%C3%A9".repeat(512));
    assert.ok(objectKeyOf("/" + "%C3%A9".repeat(511), prefix));
  });
});

Deno.test("rawPathOf() keeps the raw path and drops the query", () => {
  assert.equal(rawPathOf("http://h/a/../b"), "/a/../b");
  assert.equal(rawPathOf("http://h:80/a%2Fb?x=/../y"), "/a%2Fb");
  assert.equal(rawPathOf("http://h"), "/");
  assert.equal(rawPathOf("http://h/a#f"), "/a");
  assert.equal(rawPathOf("http://h/a\\b"), "/a\\b");
});

Deno.test("normalizePrefix() ends a non-empty prefix with one slash", () => {
  assert.equal(normalizePrefix(""), "");
  assert.equal(normalizePrefix("/"), "");
  assert.equal(normalizePrefix("mirror"), "mirror/");
  assert.equal(normalizePrefix("/mirror//"), "mirror/");
  assert.equal(normalizePrefix("a/b"), "a/b/");
});

Deno.test("objectKeyOf() never yields a key outside the prefix, whatever the spelling", () => {
  // Seeded combinations of every piece a bypass is made of: each path is refused, or its key is
  // the prefix followed by plain segments (no empty, `.` or `..` one, no `\` or NUL).
  const pieces = [
    "a",
    ".",
    "..",
    "/",
    "%2e",
    "%2E",
    "%252e",
    "%2f",
    "%252F",
    "\\",
    "%5c",
    "%00",
    "%",
    "%C0%AE",
    "%E0%80%AE",
    ":",
    "%3A",
    "~",
  ];
  let seed = 20261;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % pieces.length;
  let accepted = 0;
  for (let i = 0; i < 20_000; i++) {
    let path = "/";
    for (let n = 1 + (i % 8); n > 0; n--) path += pieces[next()];
    let key: string;
    try {
      key = objectKeyOf(path, "p/");
    } catch (e) {
      assert.ok(e instanceof HttpError && e.status === 400, JSON.stringify(path));
      continue;
    }
    accepted++;
    assert.ok(key.startsWith("p/"), JSON.stringify(path));
    for (const segment of key.slice(2).split("/")) {
      assert.ok(segment !== "" && segment !== "." && segment !== "..", JSON.stringify(path));
    }
    assert.ok(!key.includes("\\") && !key.includes("\0"), JSON.stringify(path));
  }
  assert.ok(accepted > 1000, `only ${accepted} accepted: the generator must reach legal keys`);
});
