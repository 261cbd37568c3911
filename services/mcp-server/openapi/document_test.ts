import assert from "node:assert/strict";
import { nextTurn } from "@svc/testing";
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

Deno.test("a document from a URL names a server on its own origin, else --openapi-base-url", async () => {
  const docAt = (server: string) => () =>
    Promise.resolve(
      new Response(JSON.stringify({ openapi: "3.0.3", servers: [{ url: server }], paths: {} })),
    );
  const register = (server: string, baseUrl?: string) =>
    registerOpenApis(
      new CapabilityRegistry(),
      [{ name: "d", source: "http://127.0.0.1:9/docs/o.json", baseUrl }],
      { env: () => undefined, fetch: docAt(server) },
    );
  for (const server of ["/api", "api/v1", "http://127.0.0.1:9/api", "HTTP://127.0.0.1:9"]) {
    assert.deepEqual(await register(server), [{ name: "d", enabled: [], disabled: [] }], server);
  }
  for (
    const [server, origin] of [
      ["https://evil.example/api", "https://evil.example"],
      ["http://127.0.0.1:10/api", "http://127.0.0.1:10"],
      ["https://127.0.0.1:9/api", "https://127.0.0.1:9"],
      ["//127.0.0.2:9/api", "http://127.0.0.2:9"],
    ]
  ) {
    await assert.rejects(
      () => register(server),
      new ApiError(
        `Cannot load OpenAPI API "d": the document's server ${origin} is not its own origin ` +
          "(http://127.0.0.1:9); set --openapi-base-url d=URL to call it (MCP_OPENAPI_BASE_URL)",
      ),
      server,
    );
  }
  // the operator's base URL decides; a document file's server is the operator's too
  assert.equal((await register("https://evil.example/api", "https://api.example")).length, 1);
  await withFiles(
    { "f.json": '{"openapi":"3.0.0","servers":[{"url":"https://api.example"}],"paths":{}}' },
    async (dir) => {
      const loaded = await loadDocument(`${dir}/f.json`);
      registerDocument(new CapabilityRegistry(), { name: "f", source: "f.json" }, loaded, {
        env: () => undefined,
      });
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

// ---------------------------------------------------------------------------------------------
// External $refs stay where the document's own location allows (docs/mcp-server.md#references).

/** A server on a loopback address; every request's path is recorded in `hits`. */
interface Peer {
  origin: string;
  hits: string[];
  stop(): Promise<void>;
}

function servePeer(
  hostname: string,
  routes: Record<string, (req: Request) => Response | Promise<Response>> = {},
): Peer {
  const hits: string[] = [];
  const stalled = new AbortController();
  const server = Deno.serve({ hostname, port: 0, onListen() {} }, async (req) => {
    const path = new URL(req.url).pathname;
    hits.push(path);
    if (path.endsWith("/stall.json")) {
      await new Promise((r) => stalled.signal.addEventListener("abort", r));
      return new Response("{}");
    }
    const route = routes[path];
    return route ? await route(req) : new Response("not found", { status: 404 });
  });
  return {
    origin: `http://${hostname}:${server.addr.port}`,
    hits,
    async stop() {
      stalled.abort();
      await server.shutdown();
    },
  };
}

/** A document whose one operation's description and response schema may be references. */
function refDoc(description: unknown, schema: unknown = { type: "object" }) {
  return JSON.stringify({
    openapi: "3.0.3",
    info: { title: "r", version: "1" },
    servers: [{ url: "/api" }],
    paths: {
      "/items/{id}": {
        get: {
          operationId: "getItem",
          description,
          parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
          responses: {
            "200": { description: "ok", content: { "application/json": { schema } } },
          },
        },
      },
    },
  });
}

const json = (text: string) =>
  new Response(text, { headers: { "content-type": "application/json" } });
const SCHEMAS = JSON.stringify({
  T: { type: "object", required: ["id"], properties: { id: { type: "string" } } },
  Text: "a description from a referenced document",
});

Deno.test("a document from a URL references its own origin only", async (t) => {
  const other = servePeer("127.0.0.3", { "/x.json": () => json(SCHEMAS) });
  const port = servePeer("127.0.0.2", { "/x.json": () => json(SCHEMAS) });
  const routes: Record<string, (req: Request) => Response | Promise<Response>> = {
    "/docs/schemas.json": () => json(SCHEMAS),
    "/docs/sub/more.json": () => json(SCHEMAS),
    "/docs/big.json": () => json(JSON.stringify({ T: "x".repeat(4000) })),
    "/docs/redir.json": () =>
      new Response(null, { status: 302, headers: { location: `${other.origin}/x.json` } }),
    "/docs/again.json": () =>
      new Response(null, { status: 307, headers: { location: "/docs/schemas.json" } }),
  };
  const docs = new Map<string, string>();
  const home = servePeer("127.0.0.2", {
    ...routes,
    "/docs/main.json": (req) => json(docs.get(new URL(req.url).search.slice(1))!),
  });
  const hostPort = new URL(home.origin).port;
  let n = 0;
  /** Loads a document from `home` whose description is `{$ref: ref}`. */
  const load = (ref: string, options: { maxBytes?: number; timeoutMs?: number } = {}) => {
    const key = String(++n);
    docs.set(key, refDoc({ $ref: ref }));
    return loadDocument(`${home.origin}/docs/main.json?${key}`, options);
  };
  const refused = (resolved: string) =>
    new DocumentError(
      `$ref ${resolved} refused: a document from a URL may reference its own origin ` +
        `(${home.origin}) only`,
    );
  try {
    await t.step(
      "allowed: relative, root-relative and absolute references on the origin",
      async () => {
        for (
          const ref of [
            "schemas.json#/Text",
            "./sub/more.json#/Text",
            "/docs/schemas.json#/Text",
            `${home.origin}/docs/sub/../schemas.json#/Text`,
            `http://127.0.0.2:${hostPort}/docs/schemas.json#/Text`,
          ]
        ) {
          const loaded = await load(ref);
          const registry = new CapabilityRegistry();
          registerDocument(registry, { name: "r", source: "x" }, loaded, { env: () => undefined });
          assert.match(
            registry.get("r.get_item")!.description,
            /^a description from a referenced document/,
            ref,
          );
        }
      },
    );

    await t.step(
      "refused before any read: file:, other hosts, ports, schemes, aliases",
      async () => {
        const cases: Array<[string, string]> = [
          ["file:///etc/passwd", "file:///etc/passwd"],
          ["file:///no/such/file", "file:///no/such/file"],
          ["file:/etc/passwd", "file:///etc/passwd"],
          ["file://localhost/etc/passwd", "file:///etc/passwd"],
          [`${other.origin}/x.json`, `${other.origin}/x.json`],
          [`//127.0.0.3:${new URL(other.origin).port}/x.json`, `${other.origin}/x.json`],
          [`http://0x7f.0.0.3:${new URL(other.origin).port}/x.json`, `${other.origin}/x.json`],
          [`${port.origin}/x.json`, `${port.origin}/x.json`],
          [
            `https://127.0.0.2:${hostPort}/docs/schemas.json`,
            `https://127.0.0.2:${hostPort}/docs/schemas.json`,
          ],
          [
            `http://localhost:${hostPort}/docs/schemas.json`,
            `http://localhost:${hostPort}/docs/schemas.json`,
          ],
          [
            `http://[::ffff:127.0.0.2]:${hostPort}/docs/schemas.json`,
            `http://[::ffff:7f00:2]:${hostPort}/docs/schemas.json`,
          ],
          ["data:application/json,%7B%7D", "data:application/json,%7B%7D"],
        ];
        for (const [ref, resolved] of cases) {
          await assert.rejects(() => load(ref), refused(resolved), ref);
        }
        assert.deepEqual(other.hits, []);
        assert.deepEqual(port.hits, []);
      },
    );

    await t.step("a redirect is not followed, not even on the same origin", async () => {
      await assert.rejects(
        () => load("redir.json"),
        new DocumentError(
          `$ref ${home.origin}/docs/redir.json: HTTP 302, redirects are not followed`,
        ),
      );
      await assert.rejects(
        () => load("again.json"),
        new DocumentError(
          `$ref ${home.origin}/docs/again.json: HTTP 307, redirects are not followed`,
        ),
      );
      assert.deepEqual(other.hits, []);
    });

    await t.step("a referenced document counts against the size bound, at and above", async () => {
      const main = refDoc({ $ref: "big.json#/T" });
      // The bound covers the document and everything it references together.
      const total = main.length + JSON.stringify({ T: "x".repeat(4000) }).length;
      for (const maxBytes of [total, total + 1]) {
        const loaded = await load("big.json#/T", { maxBytes });
        assert.equal(
          resolvePointer(loaded.doc, "#/paths/~1items~1{id}/get/description"),
          "x".repeat(4000),
        );
      }
      await assert.rejects(
        () => load("big.json#/T", { maxBytes: total - 1 }),
        new DocumentError(
          `$ref ${home.origin}/docs/big.json: the document and its references are larger ` +
            `than ${total - 1} bytes`,
        ),
      );
    });

    await t.step("a referenced document that does not answer in time", async () => {
      await assert.rejects(
        () => load("stall.json", { timeoutMs: 200 }),
        new DocumentError(`$ref ${home.origin}/docs/stall.json: no answer within 200 ms`),
      );
    });

    await t.step("referenced documents are read four at a time", async () => {
      // A fetch that holds every part until four are waiting, then one more turn of the event
      // loop (in which a fifth would arrive if it could), then answers them all.
      let inFlight = 0;
      let peak = 0;
      const gate = Promise.withResolvers<void>();
      const counting: typeof fetch = async (input, init) => {
        const url = String(input);
        if (!url.includes("/part")) return await fetch(input, init);
        peak = Math.max(peak, ++inFlight);
        if (inFlight === 4) nextTurn().then(() => gate.resolve());
        await gate.promise;
        inFlight--;
        return json(JSON.stringify({ Text: `part ${url.match(/part(\d)/)![1]}` }));
      };
      const key = String(++n);
      const parts = Array.from({ length: 6 }, (_, i) => ({ $ref: `part${i}.json#/Text` }));
      docs.set(key, refDoc("d", { type: "object", properties: { p: { allOf: parts } } }));
      const loaded = await loadDocument(`${home.origin}/docs/main.json?${key}`, {
        fetch: counting,
      });
      assert.equal(peak, 4);
      assert.match(JSON.stringify(loaded.doc), /part 5/);
    });

    await t.step("the start-up line names the API and the reference", async () => {
      docs.set("api", refDoc({ $ref: "file:///etc/passwd" }));
      await assert.rejects(
        () =>
          registerOpenApis(
            new CapabilityRegistry(),
            [{ name: "evil", source: `${home.origin}/docs/main.json?api` }],
            { env: () => undefined },
          ),
        new ApiError(
          `Cannot load OpenAPI API "evil": $ref file:///etc/passwd refused: a document from a ` +
            `URL may reference its own origin (${home.origin}) only (--openapi / MCP_OPENAPI)`,
        ),
      );
    });
  } finally {
    await Promise.all([home.stop(), other.stop(), port.stop()]);
  }
});

Deno.test("a document file references files under its own directory only", async (t) => {
  const base = await Deno.makeTempDir({ prefix: "openapi_refs_" });
  const dir = `${base}/api`;
  try {
    await Deno.mkdir(`${dir}/sub`, { recursive: true });
    await Deno.mkdir(`${base}/outside`);
    await Deno.writeTextFile(`${dir}/schemas.json`, SCHEMAS);
    await Deno.writeTextFile(`${dir}/sub/more.json`, SCHEMAS);
    await Deno.writeTextFile(`${base}/outside/secret.json`, '{"Text":"a secret"}');
    await Deno.symlink(`${base}/outside`, `${dir}/link`);
    await Deno.symlink(`${base}/outside/secret.json`, `${dir}/secret.json`);
    await Deno.symlink(`${dir}/schemas.json`, `${dir}/sub/inside.json`);
    let n = 0;
    const load = async (ref: string) => {
      const path = `${dir}/main${++n}.json`;
      await Deno.writeTextFile(path, refDoc({ $ref: ref }));
      return await loadDocument(path);
    };
    const refused = (resolved: string) =>
      new DocumentError(
        `$ref ${resolved} refused: a document file may reference files under its own ` +
          `directory (${dir}/) only`,
      );

    await t.step("allowed: the same directory, a subdirectory, a symlink inside", async () => {
      for (
        const ref of [
          "schemas.json#/Text",
          "./sub/more.json#/Text",
          "sub/../schemas.json#/Text",
          "sub/inside.json#/Text",
          `file://${dir}/schemas.json#/Text`,
          `${dir}/sub/more.json#/Text`,
        ]
      ) {
        const loaded = await load(ref);
        const registry = new CapabilityRegistry();
        registerDocument(
          registry,
          { name: "r", source: "x", baseUrl: "http://127.0.0.1:9" },
          loaded,
          {
            env: () => undefined,
          },
        );
        assert.match(
          registry.get("r.get_item")!.description,
          /^a description from a referenced document/,
          ref,
        );
      }
    });

    await t.step(
      "refused: absolute paths elsewhere, .., %2e%2e, encoded slashes, URLs",
      async () => {
        const cases: Array<[string, string]> = [
          ["file:///etc/passwd", "file:///etc/passwd"],
          ["/etc/passwd", "file:///etc/passwd"],
          ["/no/such/file", "file:///no/such/file"],
          ["../outside/secret.json", `file://${base}/outside/secret.json`],
          ["../outside/missing.json", `file://${base}/outside/missing.json`],
          ["sub/../../outside/secret.json", `file://${base}/outside/secret.json`],
          ["%2e%2e/outside/secret.json", `file://${base}/outside/secret.json`],
          ["sub/%2E%2E/%2E%2E/outside/secret.json", `file://${base}/outside/secret.json`],
          [".%2e/outside/secret.json", `file://${base}/outside/secret.json`],
          ["..%2Foutside/secret.json", `file://${dir}/..%2Foutside/secret.json`],
          [
            "sub%2F..%2F..%2Foutside/secret.json",
            `file://${dir}/sub%2F..%2F..%2Foutside/secret.json`,
          ],
          ["..%5Coutside/secret.json", `file://${dir}/..%5Coutside/secret.json`],
          ["http://127.0.0.1:9/x.json", "http://127.0.0.1:9/x.json"],
          ["file://otherhost/etc/passwd", "file://otherhost/etc/passwd"],
        ];
        for (const [ref, resolved] of cases) {
          await assert.rejects(() => load(ref), refused(resolved), ref);
        }
      },
    );

    await t.step("refused: a symlink inside that leads outside, existing or not", async () => {
      for (
        const [ref, resolved] of [
          ["link/secret.json#/Text", `file://${dir}/link/secret.json`],
          ["link/missing.json#/Text", `file://${dir}/link/missing.json`],
          ["link/deeper/missing.json#/Text", `file://${dir}/link/deeper/missing.json`],
          ["secret.json#/Text", `file://${dir}/secret.json`],
        ]
      ) {
        await assert.rejects(() => load(ref), refused(resolved), ref);
      }
    });

    await t.step("a missing file inside the directory is named as such", async () => {
      await assert.rejects(
        () => load("sub/missing.json"),
        new DocumentError(
          `$ref file://${dir}/sub/missing.json: cannot read ${dir}/sub/missing.json (NotFound)`,
        ),
      );
    });
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("a document path is literal: %, ? and # in file names, relative paths", async () => {
  await withFiles({ "a%2Fb ?#.json": '{"openapi":"3.0.0","paths":{}}' }, async (dir) => {
    const loaded = await loadDocument(`${dir}/a%2Fb ?#.json`);
    assert.equal(loaded.location.href, `file://${dir}/a%252Fb%20%3F%23.json`);
    const cwd = Deno.cwd();
    Deno.chdir(dir);
    try {
      const relative = await loadDocument("./x/../a%2Fb ?#.json");
      assert.equal(relative.location.href, loaded.location.href);
    } finally {
      Deno.chdir(cwd);
    }
  });
});

Deno.test("the document itself: a redirect is not followed, a file URL names a local path", async () => {
  const inits: RequestInit[] = [];
  const moved: typeof fetch = (_url, init) => {
    inits.push(init!);
    return Promise.resolve(
      new Response(null, { status: 301, headers: { location: "http://127.0.0.3/o.json" } }),
    );
  };
  await assert.rejects(
    () => loadDocument("http://127.0.0.2:9/o.json", { fetch: moved, waitMs: 5000 }),
    new DocumentError(
      "cannot fetch http://127.0.0.2:9/o.json (HTTP 301, redirects are not followed)",
    ),
  );
  assert.deepEqual(inits.map((i) => i.redirect), ["manual"]);
  await assert.rejects(
    () => loadDocument("file://otherhost/o.json"),
    new DocumentError("cannot read file://otherhost/o.json (not a local file path)"),
  );
});

Deno.test("GET and HEAD operations are reads; every operation reaches outside the server", async () => {
  const ops = ["get", "head", "post", "put", "patch", "delete", "options"].map((m) =>
    `    ${m}:\n      operationId: ${m}It\n      responses: {"204": {description: ok}}`
  ).join("\n");
  const doc = `openapi: 3.1.0
info: {title: y, version: "1"}
servers: [{url: "https://example.org"}]
paths:
  /a:
${ops}
`;
  await withFiles({ "a.yaml": doc }, async (dir) => {
    const loaded = await loadDocument(`${dir}/a.yaml`);
    const registry = new CapabilityRegistry();
    const report = registerDocument(registry, { name: "y", source: "a.yaml" }, loaded, {
      env: () => undefined,
    });
    assert.equal(report.enabled.length, 7);
    const reads = registry.enabled().filter((c) => c.readOnly).map((c) => c.name);
    assert.deepEqual(reads.sort(), ["y.get_it", "y.head_it"]);
    assert.ok(registry.enabled().every((c) => c.openWorld));
  });
});
