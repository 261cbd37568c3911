import assert from "node:assert/strict";
import { requestIdOf, withRequestId } from "./request_id.ts";
import { localInfo } from "./handler.ts";

const echo = withRequestId((req) => new Response(requestIdOf(req)), { generate: () => "gen-1" });

async function idFor(value?: string) {
  const headers: Record<string, string> = value === undefined ? {} : { "X-Request-ID": value };
  const res = await echo(new Request("http://x/", { headers }), localInfo());
  const body = await res.text();
  assert.equal(res.headers.get("x-request-id"), body);
  return body;
}

Deno.test("withRequestId() keeps a valid client id", async () => {
  assert.equal(await idFor("abc.DEF_09-z"), "abc.DEF_09-z");
  assert.equal(await idFor("a"), "a");
  assert.equal(await idFor("x".repeat(128)), "x".repeat(128));
});

Deno.test("withRequestId() replaces missing or invalid ids", async () => {
  assert.equal(await idFor(), "gen-1");
  assert.equal(await idFor(""), "gen-1");
  assert.equal(await idFor("x".repeat(129)), "gen-1");
  assert.equal(await idFor("a b"), "gen-1");
  assert.equal(await idFor("a/b"), "gen-1");
  assert.equal(await idFor("ä"), "gen-1");
});

Deno.test("withRequestId() generates UUIDs by default and works on immutable responses", async () => {
  const h = withRequestId(() => Response.redirect("http://x/y", 302));
  const res = await h(new Request("http://x/"), localInfo());
  assert.match(res.headers.get("x-request-id") ?? "", /^[0-9a-f-]{36}$/);
  assert.equal(requestIdOf(new Request("http://x/")), "");
});
