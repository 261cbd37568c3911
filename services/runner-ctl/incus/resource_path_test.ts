import assert from "node:assert/strict";
import {
  type IncusCollection,
  isInstanceName,
  MAX_NAME_BYTES,
  resourcePath,
} from "./resource_path.ts";
import { IncusError } from "./transport.ts";

function refused(collection: IncusCollection, name: string) {
  assert.throws(() => resourcePath(collection, name), (e: unknown) => {
    assert.ok(e instanceof IncusError, `${collection} ${JSON.stringify(name)}: ${e}`);
    assert.equal(e.status, 400);
    assert.equal(e.message, `Cannot address Incus ${collection}: not a valid name`);
    return true;
  }, `${collection} ${JSON.stringify(name)} must be refused`);
}

/** Spellings that would leave `/1.0/<collection>/<name>` if they reached the URL unchecked. */
const TRAVERSAL = [
  "",
  ".",
  "..",
  "../..",
  "a/../..",
  "%2e%2e",
  "%2E%2E",
  ".%2e",
  "a\0b",
  "\0",
  "a\nb",
  "a\rb",
  "a\u007fb",
  "a\u0085b",
];

Deno.test("resourcePath() refuses names that would address another path", async (t) => {
  for (const collection of ["profiles", "projects", "images", "images/aliases"] as const) {
    await t.step(collection, () => {
      for (const name of [...TRAVERSAL].filter((n) => !n.includes("%") && !n.includes("/"))) {
        refused(collection, name);
      }
      refused(collection, "x".repeat(MAX_NAME_BYTES + 1));
      refused(collection, "é".repeat(MAX_NAME_BYTES / 2 + 1));
    });
  }
  await t.step("instances: host names only", () => {
    for (
      const name of [
        ...TRAVERSAL,
        "a/b",
        "a\\b",
        "a b",
        "a_b",
        "a.b",
        "-a",
        "a-",
        "123",
        "é",
        "x".repeat(64),
        "a?b",
        "a#b",
        "a%b",
      ]
    ) {
      refused("instances", name);
    }
  });
  await t.step("operations: ids Incus makes (UUIDs) only", () => {
    for (const name of [...TRAVERSAL, "op-1", "6f1c9b2a-3e4d-4f5a-8b6c-7d8e9f0a1b2", "a/b"]) {
      refused("operations", name);
    }
  });
  await t.step("a name that is not a string", () => {
    refused("profiles", undefined as unknown as string);
    refused("instances", 5 as unknown as string);
  });
});

Deno.test("resourcePath() escapes what it accepts into one segment", async (t) => {
  const cases: [IncusCollection, string, string][] = [
    ["instances", "linux-x64-0a1b2c3d", "/1.0/instances/linux-x64-0a1b2c3d"],
    ["instances", "r1", "/1.0/instances/r1"],
    ["instances", "x".repeat(63), `/1.0/instances/${"x".repeat(63)}`],
    ["instances", "1a", "/1.0/instances/1a"],
    [
      "operations",
      "6F1C9B2A-3E4D-4F5A-8B6C-7D8E9F0A1B2C",
      "/1.0/operations/6F1C9B2A-3E4D-4F5A-8B6C-7D8E9F0A1B2C",
    ],
    ["images/aliases", "debian/12", "/1.0/images/aliases/debian%2F12"],
    ["images/aliases", "%2e%2e", "/1.0/images/aliases/%252e%252e"],
    ["profiles", "a..b", "/1.0/profiles/a..b"],
    ["profiles", "../..", "/1.0/profiles/..%2F.."],
    ["profiles", "...", "/1.0/profiles/..."],
    ["profiles", "a b?c#d", "/1.0/profiles/a%20b%3Fc%23d"],
    ["profiles", "x".repeat(MAX_NAME_BYTES), `/1.0/profiles/${"x".repeat(MAX_NAME_BYTES)}`],
    ["projects", "default", "/1.0/projects/default"],
    ["images", "a".repeat(64), `/1.0/images/${"a".repeat(64)}`],
  ];
  for (const [collection, name, path] of cases) {
    await t.step(`${collection} ${name.slice(0, 40)}`, () => {
      assert.equal(resourcePath(collection, name), path);
      // What the transport sends: the URL parser must leave the path as it is.
      assert.equal(new URL(`http://incus${path}`).pathname, path);
    });
  }
  await t.step("sub-resources", () => {
    assert.equal(resourcePath("instances", "r1", "state"), "/1.0/instances/r1/state");
    assert.equal(resourcePath("instances", "r1", "console"), "/1.0/instances/r1/console");
    const id = "6f1c9b2a-3e4d-4f5a-8b6c-7d8e9f0a1b2c";
    assert.equal(resourcePath("operations", id, "wait"), `/1.0/operations/${id}/wait`);
  });
});

Deno.test("isInstanceName() is Incus's host-name rule", () => {
  assert.ok(isInstanceName("a"));
  assert.ok(isInstanceName("a-b-1"));
  assert.ok(isInstanceName("x".repeat(63)));
  assert.ok(!isInstanceName("x".repeat(64)));
  assert.ok(!isInstanceName("42"));
  assert.ok(!isInstanceName("a--"));
  assert.ok(!isInstanceName(""));
});
