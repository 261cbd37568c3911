import assert from "node:assert/strict";
import { CapabilityRegistry } from "../capabilities/registry.ts";
import { DocumentError, loadDocument, resolvePointer } from "./document.ts";
import { ApiError, registerDocument, registerOpenApis } from "./host.ts";

const YAML_DOC = `openapi: 3.1.0
info: {title: y, version: "1"}
servers: [{url: "https://{host}/api", variables: {host: {default: example.org}}}]
paths:
  /a:
    get:
      operationId: getA
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {$ref: "#/components/schemas/A"}
components:
  schemas:
    A: {type: object, required: [n], properties: {n: {type: [integer, "null"]}}}
`;

async function withFiles(files: Record<string, string>, fn: (dir: string) => Promise<void>) {
  const dir = await Deno.makeTempDir({ prefix: "openapi_doc_" });
  try {
    for (const [name, text] of Object.entries(files)) {
      await Deno.writeTextFile(`${dir}/${name}`, text);
    }
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("loadDocument: YAML 3.1 file, servers with variables, JSON pointers", async () => {
  await withFiles({ "a.yaml": YAML_DOC }, async (dir) => {
    const loaded = await loadDocument(`${dir}/a.yaml`);
    assert.equal(loaded.doc.openapi, "3.1.0");
    assert.equal(loaded.location.protocol, "file:");
    assert.deepEqual(resolvePointer(loaded.doc, "#/components/schemas/A/required"), ["n"]);
    assert.equal(resolvePointer(loaded.doc, "#/components/nope"), undefined);
    const registry = new CapabilityRegistry();
    const report = registerDocument(registry, { name: "y", source: "a.yaml" }, loaded, {
      env: () => undefined,
    });
    assert.deepEqual(report.enabled, ["y.get_a"]);
    assert.equal(registry.get("y.get_a")!.signature, "y.get_a()");
  });
});

Deno.test("loadDocument: unreadable, not JSON/YAML, not OpenAPI 3 — one-line reasons", async () => {
  await withFiles({
    "bad.json": "{ nope",
    "v2.json": '{"swagger":"2.0","paths":{}}',
    "list.yaml": "- 1\n- 2\n",
  }, async (dir) => {
    await assert.rejects(() => loadDocument(`${dir}/missing.json`), (e: Error) => {
      assert.ok(e instanceof DocumentError);
      assert.equal(e.message, `cannot read ${dir}/missing.json (NotFound)`);
      return true;
    });
    await assert.rejects(
      () => loadDocument(`${dir}/bad.json`),
      /^DocumentError: not JSON or YAML \(/,
    );
    await assert.rejects(
      () => loadDocument(`${dir}/v2.json`),
      /not an OpenAPI 3\.0 or 3\.1 document \(openapi: null\)/,
    );
    await assert.rejects(() => loadDocument(`${dir}/list.yaml`), /want an object/);
    await assert.rejects(
      () =>
        registerOpenApis(new CapabilityRegistry(), [{ name: "x", source: `${dir}/v2.json` }], {
          env: () => undefined,
        }),
      (e: Error) => {
        assert.ok(e instanceof ApiError);
        assert.equal(
          e.message,
          'Cannot load OpenAPI API "x": not an OpenAPI 3.0 or 3.1 document (openapi: null) ' +
            "(--openapi / MCP_OPENAPI)",
        );
        return true;
      },
    );
  });
});

Deno.test("loadDocument: external $refs are bundled by swagger-parser", async () => {
  await withFiles({
    "main.json": JSON.stringify({
      openapi: "3.0.3",
      info: { title: "m", version: "1" },
      servers: [{ url: "http://127.0.0.1:9" }],
      paths: {
        "/t": {
          get: {
            operationId: "getT",
            responses: {
              "200": {
                description: "ok",
                content: { "application/json": { schema: { $ref: "schemas.json#/T" } } },
              },
            },
          },
        },
      },
    }),
    "schemas.json": JSON.stringify({
      T: { type: "object", required: ["id"], properties: { id: { type: "string" } } },
    }),
  }, async (dir) => {
    const loaded = await loadDocument(`${dir}/main.json`);
    const registry = new CapabilityRegistry();
    const report = registerDocument(registry, { name: "m", source: "main.json" }, loaded, {
      env: () => undefined,
    });
    assert.deepEqual(report, { name: "m", enabled: ["m.get_t"], disabled: [] });
    assert.deepEqual(registry.get("m.get_t")!.output.map((f) => f.name), ["id"]);
  });
});

Deno.test("a document with no absolute server URL needs --openapi-base-url", async () => {
  await withFiles(
    { "rel.json": '{"openapi":"3.0.0","servers":[{"url":"/"}],"paths":{}}' },
    async (dir) => {
      const loaded = await loadDocument(`${dir}/rel.json`);
      assert.throws(
        () =>
          registerDocument(new CapabilityRegistry(), { name: "r", source: "rel.json" }, loaded, {
            env: () => undefined,
          }),
        /Cannot load OpenAPI API "r": the document names no http\(s\) server URL; set --openapi-base-url r=URL/,
      );
      const ok = registerDocument(
        new CapabilityRegistry(),
        { name: "r", source: "rel.json", baseUrl: "http://127.0.0.1:9" },
        loaded,
        { env: () => undefined },
      );
      assert.deepEqual(ok.enabled, []);
    },
  );
});

Deno.test("loadDocument retries an unreachable URL until --openapi-wait, then one line", async () => {
  let clock = 0;
  let calls = 0;
  const doc = '{"openapi":"3.0.3","paths":{}}';
  const flaky: typeof fetch = () => {
    calls++;
    if (calls === 1) return Promise.reject(new TypeError("connection refused"));
    if (calls === 2) return Promise.resolve(new Response("", { status: 503 }));
    return Promise.resolve(new Response(doc));
  };
  const options = { now: () => clock, pause: () => Promise.resolve(void (clock += 250)) };
  const loaded = await loadDocument("http://127.0.0.1:9/o.json", {
    ...options,
    fetch: flaky,
    waitMs: 1000,
  });
  assert.equal(loaded.doc.openapi, "3.0.3");
  assert.equal(calls, 3);
  // at the bound: the last try fails, the error names the URL and the reason
  clock = 0;
  const down: typeof fetch = () => Promise.reject(new TypeError("connection refused"));
  await assert.rejects(
    () => loadDocument("http://127.0.0.1:9/o.json", { ...options, fetch: down, waitMs: 500 }),
    /^DocumentError: cannot fetch http:\/\/127\.0\.0\.1:9\/o\.json \(connection refused\)$/,
  );
  assert.equal(clock, 500);
  // a 404 is not retried
  clock = 0;
  let n = 0;
  const missing: typeof fetch = () => Promise.resolve((n++, new Response("", { status: 404 })));
  await assert.rejects(
    () => loadDocument("http://127.0.0.1:9/o.json", { ...options, fetch: missing, waitMs: 5000 }),
    /\(HTTP 404\)$/,
  );
  assert.equal(n, 1);
  // over the size bound
  await assert.rejects(
    () =>
      loadDocument("http://127.0.0.1:9/o.json", {
        fetch: () => Promise.resolve(new Response(doc)),
        maxBytes: doc.length - 1,
      }),
    new DocumentError(`larger than ${doc.length - 1} bytes`),
  );
  const exact = await loadDocument("http://127.0.0.1:9/o.json", {
    fetch: () => Promise.resolve(new Response(doc)),
    maxBytes: doc.length,
  });
  assert.equal(exact.doc.openapi, "3.0.3");
});
