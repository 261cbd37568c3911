import assert from "node:assert/strict";
import { issuerUrlOf } from "./issuer_url.ts";

const req = (headers: Record<string, string>) =>
  new Request("http://127.0.0.1:8080/default/token", { headers });

Deno.test("issuer URL follows the Host header", () => {
  assert.equal(issuerUrlOf(req({ host: "idp.local:9000" }), "a"), "http://idp.local:9000/a");
});

Deno.test("X-Forwarded-Host, -Proto and -Port win; default ports are omitted", () => {
  const headers = {
    host: "internal:8080",
    "x-forwarded-host": "idp.example",
    "x-forwarded-proto": "https",
  };
  assert.equal(issuerUrlOf(req(headers), "a"), "https://idp.example/a");
  assert.equal(
    issuerUrlOf(req({ ...headers, "x-forwarded-port": "443" }), "a"),
    "https://idp.example/a",
  );
  assert.equal(
    issuerUrlOf(req({ ...headers, "x-forwarded-port": "8443" }), "a"),
    "https://idp.example:8443/a",
  );
  assert.equal(
    issuerUrlOf(req({ host: "idp.local:9000", "x-forwarded-port": "80" }), "a"),
    "http://idp.local/a",
  );
});

Deno.test("the first value of a forwarded list is used; junk values are ignored", () => {
  assert.equal(
    issuerUrlOf(req({ "x-forwarded-host": "a.example, b.example", host: "h" }), "i"),
    "http://a.example/i",
  );
  assert.equal(
    issuerUrlOf(
      req({ "x-forwarded-host": "evil/path", "x-forwarded-proto": "gopher", host: "h" }),
      "i",
    ),
    "http://h/i",
  );
});
