/**
 * Property-based run of mock-oidc from its own live `/openapi.json`: for every documented
 * operation, seeded and bounded, requests whose parameters and bodies follow the document or
 * break it. Every answer must be no 5xx, a status the operation documents, its documented content
 * type, and (JSON) valid against the documented schema. A method a path does not document is 405
 * with `Allow`, uniformly. The service runs as deployed (`deploy/services.ts` permissions).
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { type Json, schemaViolations } from "@svc/testing/schema-check";
import { startMock } from "./_test_support.ts";

/** Fixed seed: a failure reproduces; change it to explore. */
const SEED = 20261126;
/** Requests per operation. */
const RUNS = 12;

function deref(doc: Json, node: Json | undefined): Json | undefined {
  let out = node;
  while (typeof out?.$ref === "string") {
    out = (out.$ref as string).replace("#/", "").split("/").reduce(
      (n: Json | undefined, k: string) => n?.[k],
      doc,
    );
  }
  return out;
}

/** Values for a schema: mostly valid, bounded in size; `timeoutMs` kept short. */
function valueOf(doc: Json, schema: Json | undefined, name = "", depth = 0): fc.Arbitrary<unknown> {
  const s = deref(doc, schema) ?? {};
  if (/timeoutMs/i.test(name)) return fc.integer({ min: 0, max: 20 });
  if (Array.isArray(s.enum)) return fc.constantFrom(...s.enum);
  const base: fc.Arbitrary<unknown> = (() => {
    switch (s.type) {
      case "string":
        return fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom("default", "5m", "token"));
      case "integer": {
        // Small values, but inside a documented range that starts above them (a status).
        const min = s.minimum ?? -5;
        return fc.integer({ min, max: Math.max(min, Math.min(s.maximum ?? 100, 100)) });
      }
      case "number":
        return fc.double({ min: -5, max: 100, noNaN: true });
      case "boolean":
        return fc.boolean();
      case "array":
        return depth > 2
          ? fc.constant([])
          : fc.array(valueOf(doc, s.items, "", depth + 1), { maxLength: 3 });
      case "object": {
        if (depth > 2 || !s.properties) {
          return fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), {
            maxKeys: 3,
          });
        }
        const required = new Set<string>(s.required ?? []);
        const shape: Record<string, fc.Arbitrary<unknown>> = {};
        for (const [key, sub] of Object.entries(s.properties as Record<string, Json>)) {
          shape[key] = valueOf(doc, sub, key, depth + 1);
        }
        return fc.record(shape, { requiredKeys: [...required] });
      }
    }
    return fc.jsonValue({ maxDepth: 2 });
  })();
  return s.nullable ? fc.option(base, { nil: null }) : base;
}

/** Anything, for schema-invalid inputs. */
const junk = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.string({ maxLength: 20 }),
  fc.constantFrom("{", "", "null", "[]", "a=b&c"),
);

const ISSUERS = fc.oneof(
  fc.constantFrom("default", "other", "_mock", "_mockx", ".", "..", "a%2Fb", "%", "x".repeat(257)),
  fc.string({ minLength: 1, maxLength: 8 }).map(encodeURIComponent),
);

const FORM_FIELDS = fc.array(
  fc.tuple(
    fc.constantFrom(
      "grant_type",
      "code",
      "client_id",
      "client_secret",
      "redirect_uri",
      "scope",
      "resource",
      "refresh_token",
      "token",
      "user_code",
      "username",
      "response_type",
      "code_verifier",
      "device_code",
      "assertion",
      "subject_token",
      "subject_token_type",
      "audience",
    ),
    fc.oneof(
      fc.string({ maxLength: 10 }),
      fc.constantFrom(
        "authorization_code",
        "client_credentials",
        "refresh_token",
        "password",
        "code",
        "http://127.0.0.1:9/cb",
        "openid mcp",
        "https://a.example/r",
        "x#y",
      ),
    ),
  ),
  { maxLength: 6 },
);

interface Probe {
  url: string;
  init: RequestInit;
}

function requestsFor(doc: Json, base: string, path: string, method: string, op: Json) {
  const params = [...(op.parameters ?? [])].map((p: Json) => deref(doc, p)!);
  const pathArbs: Record<string, fc.Arbitrary<string>> = {};
  const queryArbs: Record<string, fc.Arbitrary<unknown>> = {};
  const headerArbs: Record<string, fc.Arbitrary<unknown>> = {};
  for (const p of params) {
    if (p.in === "path") {
      pathArbs[p.name] = p.name === "issuer"
        ? ISSUERS
        : fc.string({ minLength: 1, maxLength: 10 }).map(encodeURIComponent);
    } else if (p.in === "query") {
      queryArbs[p.name] = fc.oneof(valueOf(doc, p.schema, p.name), fc.string({ maxLength: 6 }));
    } else if (p.in === "header") {
      headerArbs[p.name] = fc.constantFrom("127.0.0.1", "example.test", "https", "bad host!");
    }
  }
  const content = deref(doc, op.requestBody)?.content as Record<string, Json> | undefined;
  const bodyArb: fc.Arbitrary<{ type?: string; body?: string }> = !content
    ? fc.constant({})
    : fc.oneof(
      ...Object.entries(content).map(([type, media]) =>
        type === "application/json"
          ? fc.oneof(valueOf(doc, media.schema), junk).map((v) => ({
            type,
            body: typeof v === "string" && v.length < 3 ? v : JSON.stringify(v),
          }))
          : FORM_FIELDS.map((fields) => ({ type, body: new URLSearchParams(fields).toString() }))
      ),
      junk.map((v) => ({ type: "text/plain", body: String(v) })),
    );
  return fc.record({
    path: fc.record(pathArbs),
    query: fc.record(queryArbs, { requiredKeys: [] }),
    headers: fc.record(headerArbs, { requiredKeys: [] }),
    body: bodyArb,
  }).map(({ path: values, query, headers, body }): Probe => {
    const concrete = path.replace(/\{(\w+)\}/g, (_, name) => values[name] ?? "x");
    const url = new URL(base + concrete);
    for (const [k, v] of Object.entries(query)) url.searchParams.set(k, String(v));
    const h: Record<string, string> = {};
    for (const [k, v] of Object.entries(headers)) h[k] = String(v);
    if (body.type) h["content-type"] = body.type;
    return {
      url: url.href,
      init: { method: method.toUpperCase(), headers: h, body: body.body, redirect: "manual" },
    };
  });
}

Deno.test("every operation of the live /openapi.json answers as documented", async (t) => {
  // A static root, so `/static/*` is served and documented too.
  const assets = await Deno.makeTempDir();
  await Deno.writeTextFile(`${assets}/x`, "static file");
  const mock = await startMock({
    env: { JSON_CONFIG: JSON.stringify({ staticAssetsPath: assets }) },
  });
  try {
    const doc: Json = await (await fetch(`${mock.url}/openapi.json`)).json();
    let operations = 0;
    for (const [path, item] of Object.entries(doc.paths as Record<string, Json>)) {
      for (const [method, op] of Object.entries(item)) {
        operations++;
        await t.step(`${method.toUpperCase()} ${path}`, async () => {
          await fc.assert(
            fc.asyncProperty(requestsFor(doc, mock.url, path, method, op), async (probe) => {
              const res = await fetch(probe.url, probe.init);
              const text = await res.text();
              const where = `${probe.init.method} ${probe.url} ${String(probe.init.body ?? "")}`
                .slice(0, 300);
              assert.ok(res.status < 500, `${where} answered ${res.status}: ${text.slice(0, 200)}`);
              const documented = deref(doc, op.responses?.[String(res.status)]);
              assert.ok(
                documented,
                `${where} answered undocumented ${res.status}: ${text.slice(0, 200)}`,
              );
              const media = Object.entries((documented.content ?? {}) as Record<string, Json>);
              if (media.length === 0 || text === "") return;
              const type = (res.headers.get("content-type") ?? "").split(";")[0].trim();
              const match = media.find(([m]) => m === type);
              assert.ok(
                match,
                `${where} ${res.status} is ${type}, documented ${media.map(([m]) => m)}`,
              );
              if (type.endsWith("json")) {
                const violations = schemaViolations(JSON.parse(text), match[1].schema ?? {}, doc);
                assert.deepEqual(violations, [], `${where} ${res.status}`);
              }
            }),
            { seed: SEED, numRuns: RUNS, endOnFailure: true },
          );
        });
      }
    }
    assert.ok(operations > 30, `${operations} operations`);
    assert.ok("/static/{path}" in doc.paths);
    await t.step("a method a path does not document is 405 with Allow", async () => {
      for (const [path, item] of Object.entries(doc.paths as Record<string, Json>)) {
        const concrete = path.replace(
          /\{(\w+)\}/g,
          (_, name) => name === "issuer" ? "default" : "x",
        );
        for (const method of ["PUT", "DELETE", "PATCH"]) {
          if (item[method.toLowerCase()]) continue;
          const res = await fetch(`${mock.url}${concrete}`, { method });
          await res.body?.cancel();
          assert.equal(res.status, 405, `${method} ${concrete}`);
          assert.ok(res.headers.get("allow"), `${method} ${concrete} names Allow`);
        }
      }
    });
  } finally {
    await mock.stop();
    await Deno.remove(assets, { recursive: true });
  }
});
