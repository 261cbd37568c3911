import assert from "node:assert/strict";
import { ProofError } from "./errors.ts";
import { buildPayload, isRfc3339Utc, validatePayload } from "./payload.ts";
import { samplePayload } from "./_test_support.ts";

const badPayload = (e: unknown) => e instanceof ProofError && e.code === "bad_payload";

Deno.test("validatePayload", async (t) => {
  await t.step("accepts the sample and buildPayload keeps the documented key order", () => {
    const { version: _, ...fields } = samplePayload();
    const built = buildPayload(fields);
    assert.deepEqual(validatePayload(samplePayload()), samplePayload());
    assert.deepEqual(Object.keys(built), [
      "version",
      "host_id",
      "scale_set",
      "runner",
      "instance",
      "job",
      "times",
    ]);
  });
  await t.step("rejects each missing key, at top level and nested", () => {
    const p = samplePayload() as unknown as Record<string, Record<string, unknown>>;
    for (const key of Object.keys(p)) {
      const copy = structuredClone(p);
      delete copy[key];
      assert.throws(() => validatePayload(copy), badPayload, key);
      if (typeof p[key] === "object") {
        for (const inner of Object.keys(p[key])) {
          const c2 = structuredClone(p);
          delete c2[key][inner];
          assert.throws(() => validatePayload(c2), /missing field payload\./, `${key}.${inner}`);
        }
      }
    }
  });
  await t.step("rejects extra keys, at top level and nested", () => {
    assert.throws(
      () => validatePayload({ ...samplePayload(), extra: 1 }),
      /unknown field payload\.extra/,
    );
    const p = samplePayload() as unknown as Record<string, Record<string, unknown>>;
    p.job.extra = "x";
    assert.throws(() => validatePayload(p), /unknown field payload\.job\.extra/);
  });
  await t.step("rejects wrong types and forms", () => {
    // deno-lint-ignore no-explicit-any
    const cases: [string, (p: Record<string, any>) => void][] = [
      ["version 2", (p) => (p.version = 2)],
      ["version string", (p) => (p.version = "1")],
      ["id as string", (p) => (p.runner.id = "42")],
      ["negative id", (p) => (p.scale_set.id = -1)],
      ["fractional id", (p) => (p.job.workflow_run_id = 1.5)],
      ["unsafe id", (p) => (p.job.runner_request_id = 2 ** 53)],
      ["empty host", (p) => (p.host_id = "")],
      ["repository without owner", (p) => (p.job.repository = "hello")],
      ["repository with two slashes", (p) => (p.job.repository = "a/b/c")],
      ["time with offset", (p) => (p.times.queued_at = "2026-11-23T10:00:00+01:00")],
      ["time lowercase z", (p) => (p.times.queued_at = "2026-11-23T10:00:00z")],
      ["time impossible date", (p) => (p.times.signed_at = "2026-02-30T10:00:00Z")],
      ["time hour 24", (p) => (p.times.signed_at = "2026-02-03T24:00:00Z")],
      ["times array", (p) => (p.times = [])],
      ["null object", (p) => (p.runner = null)],
    ];
    for (const [name, mutate] of cases) {
      // deno-lint-ignore no-explicit-any
      const p = structuredClone(samplePayload()) as Record<string, any>;
      mutate(p);
      assert.throws(() => validatePayload(p), badPayload, name);
    }
    assert.throws(() => validatePayload([]), badPayload);
    assert.throws(() => validatePayload("x"), badPayload);
  });
  await t.step("isRfc3339Utc", () => {
    assert.equal(isRfc3339Utc("2024-02-29T23:59:59.999Z"), true);
    assert.equal(isRfc3339Utc("0001-01-01T00:00:00Z"), true); // GitHub's "unset" time
    assert.equal(isRfc3339Utc("2024-01-01T00:00:00.0000000Z"), true); // .NET's 7 digits
    assert.equal(isRfc3339Utc("2023-02-29T23:59:59Z"), false);
    assert.equal(isRfc3339Utc("2023-02-01 23:59:59Z"), false);
    assert.equal(isRfc3339Utc("2023-02-01T23:59:59.Z"), false);
  });
});
