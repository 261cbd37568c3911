import assert from "node:assert/strict";
import { resolveSettings } from "../settings.ts";
import { baseUrlOf, curlOf, keysCallOf, lockedAdvice, shQuote } from "./keys_api.ts";

Deno.test("shQuote leaves plain words and single-quotes the rest, ' included", () => {
  assert.equal(shQuote("http://localhost:8080/v1/keys"), "http://localhost:8080/v1/keys");
  assert.equal(shQuote("a b"), "'a b'");
  assert.equal(shQuote(`{"s":"o'b"}`), `'{"s":"o'\\''b"}'`);
  assert.equal(shQuote("$HOME"), "'$HOME'");
});

Deno.test("baseUrlOf: wildcard and empty hosts become localhost", () => {
  assert.equal(baseUrlOf(":8080"), "http://localhost:8080");
  assert.equal(baseUrlOf("0.0.0.0:80"), "http://localhost:80");
  assert.equal(baseUrlOf("[::]:9"), "http://localhost:9");
  assert.equal(baseUrlOf("127.0.0.1:5"), "http://127.0.0.1:5");
  assert.equal(baseUrlOf("[::1]:5"), "http://[::1]:5");
});

Deno.test("each keys command maps to one API call and its curl line", () => {
  const cfg = (args: string[]) => resolveSettings(args, () => undefined).settings;
  const create = keysCallOf(
    ["create"],
    cfg(["--subject", "al", "--role", "user,admin", "--expires-at", "2031-01-01T00:00:00Z"]),
  );
  assert.deepEqual(create, {
    method: "POST",
    path: "/v1/keys",
    body: { subject: "al", roles: ["user", "admin"], expiresAt: "2031-01-01T00:00:00Z" },
  });
  assert.equal(
    curlOf(create as never, "http://localhost:8080"),
    `curl -sS -w '\\n' -X POST -H "X-API-Key: $TODOAPI_API_KEY" -H 'Content-Type: application/json' ` +
      `-d '{"subject":"al","roles":["user","admin"],"expiresAt":"2031-01-01T00:00:00Z"}' ` +
      "http://localhost:8080/v1/keys",
  );
  const list = keysCallOf(["list"], cfg([]));
  assert.equal(
    curlOf(list as never, "http://localhost:8080/"),
    `curl -sS -w '\\n' -X GET -H "X-API-Key: $TODOAPI_API_KEY" 'http://localhost:8080/v1/keys?limit=100'`,
  );
  assert.deepEqual(keysCallOf(["revoke", "a/b"], cfg([])), {
    method: "POST",
    path: "/v1/keys/a%2Fb/revoke",
  });
  assert.ok("usage" in keysCallOf(["revoke"], cfg([])));
  assert.ok("usage" in keysCallOf(["create"], cfg(["--subject", "x"])));
  assert.ok("usage" in keysCallOf(["nope"], cfg([])));
  assert.equal(lockedAdvice(["nope"], cfg([])), undefined);
  assert.match(lockedAdvice(["list"], cfg([]))!, /--url http:\/\/localhost:8080 /);
  // Where the server said it answers (the lock file) wins over --addr.
  const advice = lockedAdvice(
    ["create"],
    cfg(["--subject", "me", "--role", "user"]),
    "http://127.0.0.1:8081",
  )!;
  assert.match(advice, /--url http:\/\/127\.0\.0\.1:8081 /);
  assert.match(advice, / http:\/\/127\.0\.0\.1:8081\/v1\/keys$/m);
  assert.doesNotMatch(advice, /8080/);
});
