import assert from "node:assert/strict";
import { expandTemplates, findMapping } from "./request_mappings.ts";

const input = (params: Record<string, string>, clientId = "c", subject?: string) => ({
  params: new URLSearchParams(params),
  clientId,
  subject,
});

Deno.test("match kinds: * matches anything, exact, and full-string regex", () => {
  const star = { param: "scope", match: "*" };
  const exact = { param: "scope", match: "read write" };
  const regex = { param: "scope", match: "read.*" };
  assert.equal(findMapping([star], input({ scope: "x" })), star);
  assert.equal(findMapping([exact], input({ scope: "read write" })), exact);
  assert.equal(findMapping([exact], input({ scope: "read" })), undefined);
  assert.equal(findMapping([regex], input({ scope: "read write" })), regex);
  // full-string: "xread" does not match "read.*"
  assert.equal(findMapping([regex], input({ scope: "xread" })), undefined);
  // absent parameter never matches, not even "*"
  assert.equal(findMapping([star], input({})), undefined);
});

Deno.test("the first matching mapping wins", () => {
  const a = { param: "client_id", match: "c.*", claims: { n: 1 } };
  const b = { param: "client_id", match: "*", claims: { n: 2 } };
  assert.equal(findMapping([a, b], input({}, "cli")), a);
  assert.equal(findMapping([a, b], input({}, "other")), b);
});

Deno.test("an invalid regex degrades to exact matching", () => {
  const m = { param: "p", match: "a(" };
  assert.equal(findMapping([m], input({ p: "a(" })), m);
  assert.equal(findMapping([m], input({ p: "a" })), undefined);
});

Deno.test("client_id matches Basic-auth clients; subject matches the login username", () => {
  const byClient = { param: "client_id", match: "basic-client" };
  assert.equal(findMapping([byClient], input({}, "basic-client")), byClient);
  const bySubject = { param: "subject", match: "alice" };
  assert.equal(findMapping([bySubject], input({}, "c", "alice")), bySubject);
});

Deno.test("any value of a multi-valued parameter may match", () => {
  const m = { param: "audience", match: "b" };
  const params = new URLSearchParams([["audience", "a"], ["audience", "b"]]);
  assert.equal(findMapping([m], { params, clientId: "c" }), m);
});

Deno.test("templates expand params, clientId and subject recursively; unknown stay verbatim", () => {
  const expanded = expandTemplates(
    {
      sub: "${username}",
      nested: { list: ["${clientId}", "${client_id}", 7], who: "${subject}" },
      scope: "${scope}",
      unknown: "${nope}",
    },
    { params: new URLSearchParams("username=bob&scope=a&scope=b"), clientId: "c1", subject: "s" },
  );
  assert.deepEqual(expanded, {
    sub: "bob",
    nested: { list: ["c1", "c1", 7], who: "s" },
    scope: "a b",
    unknown: "${nope}",
  });
});
