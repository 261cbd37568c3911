import assert from "node:assert/strict";
import { classifyStoreError, StoreError, type StoreErrorCode, storeHttpError } from "./errors.ts";

function sdk(name: string, status?: number, code?: string) {
  return Object.assign(new Error(name), {
    name,
    ...(code ? { code } : {}),
    ...(status ? { $metadata: { httpStatusCode: status, attempts: 3 } } : {}),
  });
}

Deno.test("classifyStoreError() maps what client-s3 throws", async (t) => {
  const cases: [string, unknown, StoreErrorCode][] = [
    ["GET missing key", sdk("NoSuchKey", 404), "not_found"],
    ["HEAD missing key", sdk("NotFound", 404), "not_found"],
    ["missing bucket", sdk("NoSuchBucket", 404), "misconfigured"],
    ["bad access key", sdk("InvalidAccessKeyId", 403), "denied"],
    ["bad secret", sdk("SignatureDoesNotMatch", 403), "denied"],
    ["access denied", sdk("AccessDenied", 403), "denied"],
    ["HEAD 403 without body", sdk("Unknown", 403), "denied"],
    ["wrong region header", sdk("AuthorizationHeaderMalformed", 400), "denied"],
    ["wrong region redirect", sdk("PermanentRedirect", 301), "misconfigured"],
    ["redirect 302 (not followed)", sdk("Unknown", 302), "misconfigured"],
    ["redirect 303 (not followed)", sdk("Unknown", 303), "misconfigured"],
    ["redirect 307 (not followed)", sdk("TemporaryRedirect", 307), "misconfigured"],
    ["redirect 308 (not followed)", sdk("Unknown", 308), "misconfigured"],
    ["unexpected 304", sdk("Unknown", 304), "failed"],
    ["client error 400", sdk("InvalidRequest", 400), "failed"],
    ["replaced object (If-Match)", sdk("PreconditionFailed", 412), "changed"],
    ["shrunk object", sdk("InvalidRange", 416), "changed"],
    ["storage 500", sdk("InternalError", 500), "unavailable"],
    ["storage 503", sdk("SlowDown", 503), "unavailable"],
    ["storage 502", sdk("Unknown", 502), "unavailable"],
    ["throttled 429", sdk("Unknown", 429), "unavailable"],
    ["storage 504", sdk("Unknown", 504), "timeout"],
    ["socket timeout", sdk("TimeoutError"), "timeout"],
    ["ETIMEDOUT", sdk("Error", undefined, "ETIMEDOUT"), "timeout"],
    ["connection refused", sdk("Error", undefined, "ECONNREFUSED"), "unavailable"],
    ["connection reset", sdk("Error", undefined, "ECONNRESET"), "unavailable"],
    [
      "reset renamed by the Node handler",
      sdk("TimeoutError", undefined, "ECONNRESET"),
      "unavailable",
    ],
    ["broken pipe renamed too", sdk("TimeoutError", undefined, "EPIPE"), "unavailable"],
    ["socket hang up", new Error("socket hang up"), "unavailable"],
    ["unknown host", sdk("Error", undefined, "ENOTFOUND"), "unavailable"],
    ["aborted", sdk("AbortError"), "aborted"],
    ["no credentials in the chain", sdk("CredentialsProviderError"), "denied"],
    ["other 400", sdk("InvalidArgument", 400), "failed"],
    ["a bug", new TypeError("x is undefined"), "failed"],
    ["not an error", "boom", "failed"],
    ["null", null, "failed"],
    ["already classified", new StoreError("changed", "x"), "changed"],
  ];
  for (const [name, err, want] of cases) {
    await t.step(name, () => assert.equal(classifyStoreError(err), want));
  }
});

Deno.test("storeHttpError() answers with the contract's status table", () => {
  const cases: [StoreErrorCode, number, string, string | null][] = [
    ["not_found", 404, "not_found", null],
    ["denied", 502, "unauthorized_upstream", null],
    ["unavailable", 503, "unavailable", "1"],
    ["changed", 503, "unavailable", "1"],
    ["timeout", 504, "deadline_exceeded", null],
    ["misconfigured", 500, "internal_failure", null],
    ["failed", 500, "internal_failure", null],
  ];
  for (const [storeCode, status, code, retryAfter] of cases) {
    const err = storeHttpError(storeCode);
    assert.equal(err.status, status, storeCode);
    assert.equal(err.code, code, storeCode);
    assert.equal(new Headers(err.headers).get("retry-after"), retryAfter, storeCode);
  }
});
