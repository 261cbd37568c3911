import assert from "node:assert/strict";
import { bodySizeOf, dropBody, holdBody, leaseBody } from "./captured_body.ts";
import type { CapturedRequest } from "./request_log.ts";

function entryWith(body: string): { entry: CapturedRequest; bytes: Uint8Array } {
  const entry: CapturedRequest = {
    id: "1",
    receivedAt: new Date(0).toISOString(),
    issuer: "a",
    method: "POST",
    path: "/a/token",
    url: "http://x/a/token",
  };
  const bytes = new TextEncoder().encode(body);
  holdBody(entry, bytes);
  return { entry, bytes };
}

Deno.test("holdBody keeps the bytes as they are and derives base64 and text when read", () => {
  const { entry, bytes } = entryWith("a=%2B+ü");
  assert.equal(bodySizeOf(entry), bytes.byteLength);
  assert.equal(entry.bodyBase64, btoa(String.fromCharCode(...bytes)));
  assert.equal(entry.body, "a=%2B+ü");
  assert.deepEqual(Object.keys(JSON.parse(JSON.stringify(entry))).slice(-2), [
    "bodyBase64",
    "body",
  ]);
});

Deno.test("holdBody copies a view so no larger buffer stays behind the body", () => {
  const big = new Uint8Array(1000).fill(65);
  const entry = { id: "1", receivedAt: "", issuer: "a", method: "POST", path: "/", url: "" };
  holdBody(entry, big.subarray(10, 14));
  assert.equal(bodySizeOf(entry), 4);
  assert.equal((entry as CapturedRequest).body, "AAAA");
  dropBody(entry);
  assert.equal(big.byteLength, 1000, "the caller's buffer is left alone");
});

Deno.test("dropBody frees the bytes at once when nobody holds a lease", () => {
  const { entry, bytes } = entryWith("x".repeat(1024));
  dropBody(entry);
  assert.equal((bytes.buffer as ArrayBuffer).detached, true);
  assert.equal(bodySizeOf(entry), 0);
  assert.equal(entry.bodyBase64, undefined);
  assert.equal(entry.body, undefined);
  dropBody(entry); // twice is harmless
});

Deno.test("a leased body outlives dropBody until its last lease ends", () => {
  const { entry, bytes } = entryWith("grant_type=client_credentials");
  const first = leaseBody(entry);
  const second = leaseBody(entry);
  dropBody(entry);
  assert.equal((bytes.buffer as ArrayBuffer).detached, false);
  assert.equal(entry.body, "grant_type=client_credentials");
  first();
  first(); // ending a lease twice does not end another's
  assert.equal((bytes.buffer as ArrayBuffer).detached, false);
  second();
  assert.equal((bytes.buffer as ArrayBuffer).detached, true);
});

Deno.test("a lease alone never frees: only a dropped body is freed", () => {
  const { entry, bytes } = entryWith("kept");
  leaseBody(entry)();
  assert.equal((bytes.buffer as ArrayBuffer).detached, false);
  assert.equal(entry.body, "kept");
});

Deno.test("entries without a held body are left alone", () => {
  const entry = { id: "1", receivedAt: "", issuer: "a", method: "GET", path: "/", url: "" };
  assert.equal(bodySizeOf(entry), undefined);
  leaseBody(entry)();
  dropBody(entry);
  assert.equal("bodyBase64" in entry, false);
});
