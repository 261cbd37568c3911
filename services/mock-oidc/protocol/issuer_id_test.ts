import assert from "node:assert/strict";
import { harness } from "./_test_support.ts";
import { issuerIdProblem, issuerSegment, MAX_ISSUER_ID_LENGTH } from "./issuer_id.ts";

Deno.test("issuer ids no URL can reach are refused with a reason", () => {
  for (
    const [id, reason] of [
      ["", /empty/],
      ["a/b", /single path segment/],
      [".", /dot segment/],
      ["..", /dot segment/],
      ["_mock", /reserved/],
      ["_mockx", /reserved/],
      ["a\u0000b", /control/],
      ["a\nb", /control/],
      ["\u007f", /control/],
      ["\u0085", /control/],
      ["x".repeat(MAX_ISSUER_ID_LENGTH + 1), /at most/],
    ] as const
  ) {
    assert.match(issuerIdProblem(id) ?? "", reason, JSON.stringify(id));
  }
  for (const id of ["default", "a.b", "...", "a%b", "a?b", "a#b", "ü", "x".repeat(256)]) {
    assert.equal(issuerIdProblem(id), undefined, id);
  }
});

Deno.test("issuerSegment encodes what a path segment cannot carry and round-trips", () => {
  assert.equal(issuerSegment("default"), "default");
  assert.equal(issuerSegment("a%b"), "a%25b");
  assert.equal(issuerSegment("a?b#c d"), "a%3Fb%23c%20d");
  assert.equal(issuerSegment("ü"), "%C3%BC");
  assert.equal(issuerSegment("t:1@x!$&'()*+,;="), "t:1@x!$&'()*+,;=");
  for (const id of ["a%b", "a?b#c d", "ü😀", "%2F"]) {
    assert.equal(decodeURIComponent(issuerSegment(id)), id);
    // A URL parser leaves the segment as it is: the issuer URL is stable.
    assert.equal(new URL(`http://h/${issuerSegment(id)}`).pathname, `/${issuerSegment(id)}`);
  }
});

Deno.test("protocol: odd issuer ids are served encoded, unreachable ones are 404", async () => {
  const h = harness();
  const doc = await (await h.call("/a%3Fb%23c%25d/.well-known/openid-configuration")).json();
  assert.equal(doc.issuer, "http://localhost:8080/a%3Fb%23c%25d");
  assert.equal(doc.jwks_uri, "http://localhost:8080/a%3Fb%23c%25d/jwks");
  const jwks = await (await h.call("/a%3Fb%23c%25d/jwks")).json();
  assert.equal(jwks.keys[0].kid, "a?b#c%d");
  for (const path of ["/a%0Ab/jwks", "/a%00b/jwks", "/%7F/jwks", "/a%0D%0AX:1/jwks"]) {
    const res = await h.call(path);
    assert.equal(res.status, 404, path);
    assert.match((await res.json()).detail, /control characters/, path);
  }
});
