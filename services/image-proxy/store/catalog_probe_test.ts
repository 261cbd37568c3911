import assert from "node:assert/strict";
import { memoryStore, object } from "../_test_support.ts";
import { CATALOG_PATH, catalogReasonOf, checkCatalog, MAX_CATALOG_BYTES } from "./catalog_probe.ts";
import { StoreError, type StoreErrorCode } from "./errors.ts";

const INDEX = JSON.stringify({ format: "index:1.0", index: { images: { path: "x" } } });

async function reasonFor(body: string | Uint8Array | undefined, failure?: StoreErrorCode) {
  const store = memoryStore(body === undefined ? {} : { ["m/" + CATALOG_PATH]: object(body) });
  if (failure) store.failures.push(failure);
  try {
    await checkCatalog(store, "m/");
    return "ready";
  } catch (err) {
    return catalogReasonOf(err);
  }
}

Deno.test("checkCatalog() accepts an index:1.0 catalog read with a GET", async () => {
  const store = memoryStore({ ["m/" + CATALOG_PATH]: object(INDEX) });
  await checkCatalog(store, "m/");
  assert.deepEqual(store.calls, ["get m/streams/v1/index.json"]);
});

Deno.test("checkCatalog() failures map to the contract's readiness reasons", async (t) => {
  const cases: [string, string | Uint8Array | undefined, StoreErrorCode | undefined, string][] = [
    ["missing catalog", undefined, undefined, "catalog_missing"],
    ["not JSON", "<html>", undefined, "catalog_missing"],
    [
      "another format",
      JSON.stringify({ format: "products:1.0", index: {} }),
      undefined,
      "catalog_missing",
    ],
    ["no index member", JSON.stringify({ format: "index:1.0" }), undefined, "catalog_missing"],
    ["a JSON string", '"index:1.0"', undefined, "catalog_missing"],
    ["too large", new Uint8Array(MAX_CATALOG_BYTES + 1), undefined, "catalog_missing"],
    ["credentials rejected", INDEX, "denied", "s3_misconfigured"],
    ["bucket missing or wrong region", INDEX, "misconfigured", "s3_misconfigured"],
    ["storage unreachable", INDEX, "unavailable", "s3_unavailable"],
    ["storage timed out", INDEX, "timeout", "s3_unavailable"],
    ["storage failed otherwise", INDEX, "failed", "s3_unavailable"],
  ];
  for (const [name, body, failure, reason] of cases) {
    await t.step(name, async () => assert.equal(await reasonFor(body, failure), reason));
  }
  await t.step("at the size limit it is read", async () => {
    const padded = INDEX + " ".repeat(MAX_CATALOG_BYTES - INDEX.length);
    assert.equal(await reasonFor(padded), "ready");
  });
});

Deno.test("catalogReasonOf() calls anything unexpected s3_unavailable", () => {
  assert.equal(catalogReasonOf(new Error("x")), "s3_unavailable");
  assert.equal(catalogReasonOf(new StoreError("aborted", "x")), "s3_unavailable");
});
