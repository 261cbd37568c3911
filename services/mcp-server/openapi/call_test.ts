import assert from "node:assert/strict";
import fc from "fast-check";
import { BindError } from "../capabilities/bind.ts";
import { CapabilityRegistry } from "../capabilities/registry.ts";
import { connect, errorOf, valueOf } from "../tools/_test_support.ts";
import { parsePolicy, policyAuthorizer } from "../auth/policy.ts";
import { ApiError, apiSpecs, credentialOf, registerDocument } from "./host.ts";
import { parseJson, stringifyJson } from "./call.ts";

type Obj = Record<string, unknown>;

/** One request as the test server saw it. */
interface Seen {
  method: string;
  path: string;
  search: string;
  headers: Headers;
  body: string;
}

const ITEM = {
  type: "object",
  required: ["id", "n"],
  properties: { id: { type: "string" }, n: { type: "integer", format: "int64" } },
};

const DOC: Obj = {
  openapi: "3.0.3",
  info: { title: "t", version: "1" },
  paths: {
    "/items/{id}": {
      parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
      get: {
        operationId: "getItem",
        parameters: [
          { name: "tag", in: "query", schema: { type: "array", items: { type: "string" } } },
          {
            name: "ids",
            in: "query",
            explode: false,
            schema: { type: "array", items: { type: "integer" } },
          },
          {
            name: "filter",
            in: "query",
            style: "deepObject",
            schema: { type: "object", additionalProperties: { type: "string" } },
          },
          { name: "X-Trace", in: "header", schema: { type: "string" } },
        ],
        responses: {
          "200": { description: "", content: { "application/json": { schema: ITEM } } },
        },
      },
      put: {
        operationId: "putItem",
        requestBody: {
          required: true,
          content: {
            "application/json": {
              schema: {
                type: "object",
                required: ["n"],
                properties: { n: { type: "integer", format: "int64" }, note: { type: "string" } },
              },
            },
          },
        },
        responses: {
          "200": { description: "", content: { "application/json": { schema: ITEM } } },
        },
      },
    },
    "/raw": {
      get: {
        operationId: "raw",
        parameters: [{ name: "mode", in: "query", required: true, schema: { type: "string" } }],
        responses: {
          "200": { description: "", content: { "application/json": { schema: ITEM } } },
        },
      },
    },
  },
};

async function withServer(
  handle: (req: Request, seen: Seen) => Response | Promise<Response>,
  fn: (base: string, seen: Seen[]) => Promise<void>,
) {
  const seen: Seen[] = [];
  const hang = new AbortController();
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const url = new URL(req.url);
    const s: Seen = {
      method: req.method,
      path: url.pathname,
      search: url.search,
      headers: req.headers,
      body: await req.text(),
    };
    seen.push(s);
    if (url.searchParams.get("mode") === "hang") {
      await new Promise((r) => hang.signal.addEventListener("abort", r));
      return new Response("late");
    }
    return handle(req, s);
  });
  try {
    await fn(`http://127.0.0.1:${server.addr.port}`, seen);
  } finally {
    hang.abort();
    await server.shutdown();
  }
}

function registry(base: string, env: Obj = {}, auth?: string, maxResponseBytes = 1024) {
  const reg = new CapabilityRegistry();
  const report = registerDocument(
    reg,
    { name: "api", source: "mem", baseUrl: `${base}/v2`, auth },
    { doc: structuredClone(DOC), location: new URL("file:///mem.json") },
    { env: (k) => env[k] as string | undefined, timeoutMs: 300, maxResponseBytes },
  );
  return { reg, report };
}

const json = (v: unknown, status = 200, type = "application/json") =>
  new Response(stringifyJson(v), { status, headers: { "content-type": type } });

Deno.test("calls: path templating, query styles, header parameters, JSON body with int64", async () => {
  await withServer((req, s) => {
    if (req.method === "PUT") {
      return new Response(
        `{"id":"a","n":${JSON.parse(s.body).n === 1 ? 1 : "9223372036854775807"}}`,
        {
          headers: { "content-type": "application/json" },
        },
      );
    }
    return json({ id: "a b/c", n: 2 });
  }, async (base, seen) => {
    const { reg } = registry(base);
    const c = await connect({ registry: reg });
    try {
      const out = valueOf(
        await c.call("execute", {
          source: `def main():
  a = api.get_item(id="a b/c", tag=["x", "y z"], ids=[1, 2], filter={"k": "v"}, x_trace="t1")
  b = api.put_item(id="a", n=9223372036854775807, note="hi")
  return [a, b["id"], str(b["n"])]
`,
        }),
      );
      assert.deepEqual(out.result, [{ id: "a b/c", n: 2 }, "a", "9223372036854775807"]);
      assert.equal(seen[0].method, "GET");
      assert.equal(seen[0].path, "/v2/items/a%20b%2Fc");
      assert.equal(seen[0].search, "?tag=x&tag=y%20z&ids=1,2&filter%5Bk%5D=v");
      assert.equal(seen[0].headers.get("x-trace"), "t1");
      assert.equal(seen[1].method, "PUT");
      assert.equal(seen[1].headers.get("content-type"), "application/json");
      assert.equal(seen[1].body, '{"n":9223372036854775807,"note":"hi"}');
    } finally {
      await c.close();
    }
  });
});

Deno.test("calls: credentials from MCP_* variables (bearer, basic, header, query)", async () => {
  await withServer(() => json({ id: "x", n: 1 }), async (base, seen) => {
    const env = { MCP_T: "s3cret", MCP_UP: "me:pw" };
    for (const auth of ["bearer:MCP_T", "basic:MCP_UP", "header:X-Key:MCP_T", "query:key:MCP_T"]) {
      const { reg } = registry(base, env, auth);
      const c = await connect({ registry: reg });
      try {
        valueOf(await c.call("execute", { source: 'def main():\n  return api.raw(mode="ok")\n' }));
      } finally {
        await c.close();
      }
    }
    assert.equal(seen[0].headers.get("authorization"), "Bearer s3cret");
    assert.equal(seen[1].headers.get("authorization"), `Basic ${btoa("me:pw")}`);
    assert.equal(seen[2].headers.get("x-key"), "s3cret");
    assert.equal(seen[3].search, "?mode=ok&key=s3cret");
  });
  assert.throws(
    () => credentialOf("gh", "bearer:GITHUB_TOKEN", () => "x"),
    new ApiError(
      'Cannot use --openapi-auth for "gh": the variable must be named MCP_<NAME> (got "GITHUB_TOKEN") (MCP_OPENAPI_AUTH)',
    ),
  );
  assert.throws(
    () => credentialOf("gh", "bearer:MCP_GH", () => undefined),
    /MCP_GH is not set/,
  );
  assert.throws(() => credentialOf("gh", "digest:MCP_GH", () => "x"), /want bearer:VAR/);
  assert.throws(() => credentialOf("gh", "basic:MCP_GH", () => "nocolon"), /user:password/);
});

Deno.test("calls: non-2xx texts, response bound at/below/above, schema mismatch, timeout", async () => {
  const limit = 1024;
  await withServer((req) => {
    const mode = new URL(req.url).searchParams.get("mode");
    const pad = (n: number) => {
      const base = '{"id":"","n":1}';
      return `{"id":"${"x".repeat(n - base.length)}","n":1}`;
    };
    switch (mode) {
      case "problem":
        return json(
          { title: "Not Found", detail: "no such item\u0000here" },
          404,
          "application/problem+json",
        );
      case "text":
        return new Response("rate limited\nsecond line", {
          status: 429,
          headers: { "content-type": "text/plain" },
        });
      case "bare":
        return new Response("<html>", {
          status: 502,
          statusText: "Bad Gateway",
          headers: { "content-type": "text/html" },
        });
      case "at":
        return new Response(pad(limit), { headers: { "content-type": "application/json" } });
      case "above":
        return new Response(pad(limit + 1), { headers: { "content-type": "application/json" } });
      case "mismatch":
        return json({ id: 5, n: 1 });
      case "float":
        return json({ id: "a", n: 1.5 });
      default:
        return json({ id: "a", n: 1 });
    }
  }, async (base) => {
    const { reg } = registry(base, {}, undefined, limit);
    const c = await connect({ registry: reg });
    const run = async (mode: string) =>
      await c.call("execute", { source: `def main():\n  return api.raw(mode="${mode}")\n` });
    try {
      assert.equal(
        errorOf(await run("problem")),
        "capability failed: 404 Not Found: no such item here",
      );
      assert.equal(errorOf(await run("text")), "capability failed: 429 rate limited");
      assert.equal(errorOf(await run("bare")), "capability failed: 502 Bad Gateway");
      assert.equal((valueOf(await run("at")).result as Obj).n, 1);
      assert.equal(
        errorOf(await run("above")),
        `capability failed: response larger than ${limit} bytes`,
      );
      assert.equal(errorOf(await run("mismatch")), "capability failed");
      assert.equal(errorOf(await run("float")), "capability failed");
      assert.equal(errorOf(await run("hang")), "capability failed: no answer within 300 ms");
    } finally {
      await c.close();
    }
  });
});

Deno.test("the policy file authorizes OpenAPI capabilities like any other", async () => {
  await withServer(() => json({ id: "a", n: 1 }), async (base) => {
    const { reg } = registry(base);
    const policy = parsePolicy(
      JSON.stringify({ rules: [{ subjects: ["*"], capabilities: ["api.raw"] }] }),
    );
    const c = await connect({ registry: reg, authorizer: policyAuthorizer(policy) });
    try {
      valueOf(await c.call("execute", { source: 'def main():\n  return api.raw(mode="x")\n' }));
      assert.equal(
        errorOf(
          await c.call("execute", { source: 'def main():\n  return api.get_item(id="x")\n' }),
        ),
        "permission denied",
      );
    } finally {
      await c.close();
    }
  });
});

Deno.test("settings: NAME=VALUE pairs, reserved and invalid API names, unknown APIs", () => {
  assert.deepEqual(
    apiSpecs(["gh=https://x/o.json"], ["gh=https://api.example"], ["gh=bearer:MCP_T"]),
    [
      {
        name: "gh",
        source: "https://x/o.json",
        baseUrl: "https://api.example",
        auth: "bearer:MCP_T",
      },
    ],
  );
  assert.throws(
    () => apiSpecs(["json=x.yaml"]),
    /Cannot load OpenAPI API "json": the name root "json" is reserved/,
  );
  assert.throws(() => apiSpecs(["my-api=x.yaml"]), /is not a Starlark identifier/);
  assert.throws(() => apiSpecs(["x.yaml"]), /want NAME=URL\|FILE/);
  assert.throws(() => apiSpecs(["a=1", "a=2"]), /given twice/);
  assert.throws(() => apiSpecs([], ["b=https://x"]), /no --openapi b=/);
  assert.throws(() => apiSpecs(["b=x"], ["b=ftp://x"]), /not an http\(s\) URL/);
});

Deno.test("parseJson keeps integers beyond 2^53 exact", () => {
  assert.deepEqual(parseJson('{"a":9007199254740993,"b":-9223372036854775808,"c":1.5,"d":2}'), {
    a: 9007199254740993n,
    b: -9223372036854775808n,
    c: 1.5,
    d: 2,
  });
});

// ---------------------------------------------------------------------------------------------
// A path value never changes which route a call reaches (docs/mcp-server.md#calls).

const str = { type: "string" };
const PATHS_DOC: Obj = {
  openapi: "3.0.3",
  info: { title: "p", version: "1" },
  paths: {
    "/orgs/{org}/members/{user}": {
      delete: {
        operationId: "removeMember",
        parameters: [
          { name: "org", in: "path", required: true, schema: str },
          { name: "user", in: "path", required: true, schema: str },
        ],
        responses: { "204": { description: "" } },
      },
    },
    "/items/{id}": {
      get: {
        operationId: "getItem",
        parameters: [{ name: "id", in: "path", required: true, schema: str }],
        responses: { "204": { description: "" } },
      },
    },
    "/tags/{tags}/x": {
      get: {
        operationId: "getTags",
        parameters: [
          { name: "tags", in: "path", required: true, schema: { type: "array", items: str } },
        ],
        responses: { "204": { description: "" } },
      },
    },
    "/files/{name}.{ext}": {
      get: {
        operationId: "getFile",
        parameters: [
          { name: "name", in: "path", required: true, schema: str },
          { name: "ext", in: "path", required: true, schema: str },
        ],
        responses: { "204": { description: "" } },
      },
    },
    "/pair/{a}{b}/end": {
      get: {
        operationId: "getPair",
        parameters: [
          { name: "a", in: "path", required: true, schema: str },
          { name: "b", in: "path", required: true, schema: str },
        ],
        responses: { "204": { description: "" } },
      },
    },
  },
};

Deno.test("calls: a path value of . or .. (or empty) never reaches another route", async () => {
  await withServer(() => new Response(null, { status: 204 }), async (base, seen) => {
    const reg = new CapabilityRegistry();
    registerDocument(
      reg,
      { name: "api", source: "mem", baseUrl: `${base}/api`, auth: "bearer:MCP_T" },
      { doc: structuredClone(PATHS_DOC), location: new URL("file:///mem.json") },
      { env: () => "s3cret", timeoutMs: 1000, maxResponseBytes: 1024 },
    );
    const c = await connect({ registry: reg });
    const run = async (call: string) =>
      errorOf(await c.call("execute", { source: `def main():\n  return ${call}\n` }));
    const segment = 'a path segment cannot be empty, "." or ".."';
    try {
      for (
        const [call, want] of [
          ['api.remove_member(org="..", user="..")', `org: ${segment}`],
          ['api.remove_member(org="acme", user="..")', `user: ${segment}`],
          ['api.remove_member(org=".", user="x")', `org: ${segment}`],
          ['api.get_item(id="..")', `id: ${segment}`],
          ['api.get_item(id=".")', `id: ${segment}`],
          ['api.get_item(id="")', `id: ${segment}`],
          ['api.get_tags(tags=[".."])', `tags: ${segment}`],
          ["api.get_tags(tags=[])", `tags: ${segment}`],
          ['api.get_pair(a=".", b=".")', `a: ${segment}`],
          ['api.get_pair(a="", b="")', `a: ${segment}`],
        ]
      ) {
        assert.equal(await run(call), `invalid capability arguments: ${want}`, call);
      }
      assert.equal(seen.length, 0, "nothing was sent");
      // Dots inside a value, or next to other text in the segment, are ordinary characters.
      for (
        const call of [
          'api.get_item(id="...")',
          'api.get_item(id="..a")',
          'api.get_item(id="%2e%2e")',
          'api.get_tags(tags=["..", ".."])',
          'api.get_file(name="..", ext="")',
          'api.get_pair(a=".", b="a")',
        ]
      ) {
        const out = await c.call("execute", { source: `def main():\n  return ${call}\n` });
        assert.deepEqual(valueOf(out).result, {}, call); // 204, no output fields
      }
    } finally {
      await c.close();
    }
    assert.deepEqual(seen.map((s) => s.path), [
      "/api/items/...",
      "/api/items/..a",
      "/api/items/%252e%252e",
      "/api/tags/..,../x",
      "/api/files/...",
      "/api/pair/.a/end",
    ]);
  });
});

Deno.test("calls: a path template of the document cannot leave the base URL's origin", async () => {
  const other: string[] = [];
  const elsewhere = Deno.serve({ hostname: "127.0.0.3", port: 0, onListen() {} }, (req) => {
    other.push(`${req.method} ${new URL(req.url).pathname} ${req.headers.get("authorization")}`);
    return new Response(null, { status: 204 });
  });
  const port = elsewhere.addr.port;
  try {
    await withServer(() => new Response(null, { status: 204 }), async (base, seen) => {
      const doc = {
        openapi: "3.0.3",
        paths: {
          [`@127.0.0.3:${port}/x`]: {
            get: { operationId: "escape", responses: { "204": { description: "" } } },
          },
        },
      };
      const reg = new CapabilityRegistry();
      registerDocument(
        reg,
        { name: "api", source: "mem", baseUrl: base, auth: "bearer:MCP_T" },
        { doc, location: new URL("file:///mem.json") },
        { env: () => "s3cret", timeoutMs: 1000, maxResponseBytes: 1024 },
      );
      const c = await connect({ registry: reg });
      try {
        const out = await c.call("execute", { source: "def main():\n  return api.escape()\n" });
        assert.equal(errorOf(out), "capability failed");
      } finally {
        await c.close();
      }
      assert.deepEqual([seen.length, other], [0, []]);
    });
  } finally {
    await elsewhere.shutdown();
  }
});

/** Path values to try: dot segments and their spellings, separators, unicode, empty. */
const pathValue = fc.oneof(
  fc.constantFrom("", ".", "..", "...", "%2e", "%2E%2E", ".%2e", "/", "../..", "?", "#", "a/b"),
  fc.string({ unit: fc.constantFrom(".", "/", "%", "2", "e", "E", "?", "#", "\\", ";", ",", "a") }),
  fc.string({ unit: "grapheme", maxLength: 4 }),
  fc.string({ unit: "binary", maxLength: 4 }),
);

Deno.test("property: the request path always has the operation template's shape", async () => {
  const reg = new CapabilityRegistry();
  const last: { sent?: URL } = {};
  const fetchSpy: typeof fetch = (input) => {
    last.sent = new URL(String(input));
    return Promise.resolve(new Response(null, { status: 204 }));
  };
  registerDocument(
    reg,
    { name: "api", source: "mem", baseUrl: "https://api.example/base" },
    { doc: structuredClone(PATHS_DOC), location: new URL("file:///mem.json") },
    { env: () => undefined, fetch: fetchSpy, timeoutMs: 1000, maxResponseBytes: 1024 },
  );
  const cases: Array<[string, string, fc.Arbitrary<Record<string, unknown>>]> = [
    [
      "api.remove_member",
      "/orgs/{org}/members/{user}",
      fc.record({ org: pathValue, user: pathValue }),
    ],
    ["api.get_item", "/items/{id}", fc.record({ id: pathValue })],
    ["api.get_tags", "/tags/{tags}/x", fc.record({ tags: fc.array(pathValue, { maxLength: 3 }) })],
    ["api.get_file", "/files/{name}.{ext}", fc.record({ name: pathValue, ext: pathValue })],
    ["api.get_pair", "/pair/{a}{b}/end", fc.record({ a: pathValue, b: pathValue })],
  ];
  const context = { subject: { id: "t" }, signal: new AbortController().signal };
  for (const [name, template, args] of cases) {
    const handler = reg.get(name)!.handler;
    await fc.assert(
      fc.asyncProperty(args, async (values) => {
        // Each template segment as the values fill it in, unencoded.
        const want = `/base${template}`.split("/").map((seg) =>
          seg.replace(/\{(\w+)\}/g, (_, p) => {
            const v = values[p];
            return Array.isArray(v) ? v.join(",") : String(v);
          })
        );
        const templated = `/base${template}`.split("/").map((seg) => seg.includes("{"));
        const bad = want.some((seg, i) => templated[i] && ["", ".", ".."].includes(seg));
        last.sent = undefined;
        try {
          await handler(values, context);
        } catch (err) {
          assert.ok(err instanceof BindError, String(err));
          assert.ok(bad, `refused ${JSON.stringify(values)}: ${err.message}`);
          assert.equal(last.sent, undefined);
          return;
        }
        const sent = last.sent as URL | undefined;
        assert.ok(sent, "a request was sent");
        assert.ok(!bad, `sent ${sent.pathname} for ${JSON.stringify(values)}`);
        assert.equal(sent.origin, "https://api.example");
        assert.equal(sent.search, "");
        assert.equal(sent.hash, "");
        const got = sent.pathname.split("/");
        assert.equal(got.length, want.length, sent.pathname);
        got.forEach((seg, i) => assert.equal(decodeURIComponent(seg), want[i], sent.pathname));
      }),
      { numRuns: 300 },
    );
  }
});
