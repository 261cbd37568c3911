import assert from "node:assert/strict";
import { ActionsError } from "./errors.ts";
import { MAX_SEGMENT_LENGTH, type PathSegment, serviceUrl } from "./service_url.ts";

const what = "test";

function refused(base: string, segments: readonly PathSegment[] = []) {
  assert.throws(() => serviceUrl(base, { what, segments }), (e: unknown) => {
    assert.ok(e instanceof ActionsError, `${base} ${JSON.stringify(segments)}: ${e}`);
    assert.equal(e.code, "bad_response");
    assert.ok(!e.message.includes("evil") && !e.message.includes("secret"), "nothing echoed");
    return true;
  }, `${base} ${JSON.stringify(segments)} must be refused`);
}

Deno.test("serviceUrl appends segments to the base path and adds api-version on request", () => {
  assert.equal(
    serviceUrl("https://h/tenant/1/", {
      what,
      segments: ["_apis", "runtime", "runnerscalesets"],
      query: { name: "a b" },
      apiVersion: true,
    }),
    "https://h/tenant/1/_apis/runtime/runnerscalesets?name=a+b&api-version=6.0-preview",
  );
  assert.equal(
    serviceUrl("https://h/rest?api-version=7.0", { what, segments: ["x"], apiVersion: true }),
    "https://h/rest/x?api-version=7.0",
    "an api-version of the base is kept",
  );
  assert.equal(
    serviceUrl("https://h/r", { what, segments: ["_apis", "runtime", "runnergroups", ""] }),
    "https://h/r/_apis/runtime/runnergroups/",
    "a final empty segment keeps the trailing slash",
  );
  assert.equal(
    serviceUrl("https://broker.example/q/1?sig=a%2Bb", { what, segments: [42] }),
    "https://broker.example/q/1/42?sig=a%2Bb",
    "the queue URL's own query is kept as written",
  );
  assert.equal(
    serviceUrl("https://broker.example/q/1", { what, query: { lastMessageId: "9" } }),
    "https://broker.example/q/1?lastMessageId=9",
    "no api-version unless asked (the queue)",
  );
});

Deno.test("serviceUrl accepts the hosts GitHub hands back, over https only", async (t) => {
  for (
    const base of [
      "https://broker.actions.githubusercontent.com/rest/",
      "https://pipelines.actions.githubusercontent.com/AbC123/",
      "https://ghes.example.com:8443/_services/pipelines/",
      "https://127.0.0.1:4443/tenant/1/",
    ]
  ) {
    await t.step(`accepted: ${base}`, () => assert.ok(serviceUrl(base, { what }).startsWith(base)));
  }
  for (
    const base of [
      "http://broker.actions.githubusercontent.com/rest/",
      "http://127.0.0.1/tenant/",
      "HTTP://evil.example/",
      "https://user:secret@broker.example/rest/",
      "https://secret@broker.example/rest/",
      "https://broker.example/rest/#frag",
      "ws://evil.example/",
      "file:///etc/passwd",
      "data:text/plain,evil",
      "javascript:alert(1)",
      "//evil.example/rest/",
      "/rest/",
      "not a url",
      "",
    ]
  ) {
    await t.step(`refused: ${base}`, () => refused(base));
  }
});

Deno.test("serviceUrl keeps every value from an answer inside its own path segment", async (t) => {
  const base = "https://h/tenant/";
  const fine: PathSegment[] = [
    0,
    1,
    2 ** 53 - 1,
    "6f1c9b2a-3e4d-4f5a-8b6c-7d8e9f0a1b2c",
    "a.b~c_d-E",
  ];
  for (const segment of fine) {
    await t.step(`accepted: ${String(segment)}`, () => {
      assert.equal(
        serviceUrl(base, { what, segments: ["s", segment, "t"] }),
        `${base}s/${segment}/t`,
      );
    });
  }
  await t.step(`accepted: ${MAX_SEGMENT_LENGTH} characters`, () => {
    const long = "x".repeat(MAX_SEGMENT_LENGTH);
    assert.equal(serviceUrl(base, { what, segments: [long] }), `${base}${long}`);
  });
  const bad: PathSegment[] = [
    "..",
    ".",
    "../../../../distributedtask/pools/0/agents/5",
    "..%2F..%2Fx",
    "%2e%2e",
    "%2E%2E",
    "a/b",
    "a%2Fb",
    "a\\b",
    "a\0b",
    "a?api-version=1",
    "a#b",
    "a b",
    ".hidden",
    "x".repeat(MAX_SEGMENT_LENGTH + 1),
    -1,
    1.5,
    NaN,
    Infinity,
    2 ** 53,
  ];
  for (const segment of bad) {
    await t.step(`refused: ${JSON.stringify(String(segment)).slice(0, 60)}`, () => {
      refused(base, ["s", segment, "t"]);
    });
  }
  await t.step("refused: an empty segment before the last", () => refused(base, ["s", "", "t"]));
  await t.step("refused: a segment that is neither string nor number", () => {
    refused(base, ["s", null as unknown as string]);
    refused(base, ["s", { toString: () => "x" } as unknown as string]);
  });
});
