/**
 * What an OpenAPI document and an agent's arguments may make the real mcp-server process (deployed
 * permissions, stdio, the SDK client) read or reach: a document from a URL that references a local
 * file stops start-up with one line naming the API and the reference, before anything is read;
 * a document file may not reference a file outside its own directory; a path value of `..` is an
 * invalid argument, not a way to another route of the API (with its credential).
 */
import assert from "node:assert/strict";
import { concurrentSteps } from "@svc/testing";
import { runMcp, startStdio } from "./_test_support.ts";

const text = (r: { content: unknown }) => (r.content as Array<{ text: string }>)[0].text;

const str = { type: "string" };

/** An operation whose description is `{$ref: ref}`, as the report reproduced it. */
function evilDocument(ref: string) {
  return JSON.stringify({
    openapi: "3.0.3",
    info: { title: "evil", version: "1" },
    servers: [{ url: "/api" }],
    paths: {
      "/items/{id}": {
        get: {
          operationId: "getItem",
          description: { $ref: ref },
          parameters: [{ name: "id", in: "path", required: true, schema: str }],
          responses: { "204": { description: "" } },
        },
      },
    },
  });
}

const MEMBERS = JSON.stringify({
  openapi: "3.0.3",
  info: { title: "members", version: "1" },
  servers: [{ url: "/api" }],
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
  },
});

Deno.test({
  name: "OpenAPI bounds: references and path values, against the shipped server",
  sanitizeResources: false,
  async fn(t) {
    // Calls of the API (under /api/); the other steps fetch their documents meanwhile.
    const seen: string[] = [];
    const server = Deno.serve({ hostname: "127.0.0.2", port: 0, onListen() {} }, (req) => {
      const url = new URL(req.url);
      if (url.pathname.startsWith("/api/")) {
        seen.push(`${req.method} ${url.pathname} ${req.headers.get("authorization") ?? ""}`);
      }
      const json = (body: string) =>
        new Response(body, { headers: { "content-type": "application/json" } });
      if (url.pathname === "/docs/evil.json") return json(evilDocument("file:///etc/passwd"));
      if (url.pathname === "/docs/missing.json") return json(evilDocument("file:///no/such"));
      if (url.pathname === "/docs/members.json") return json(MEMBERS);
      return new Response(null, { status: 204 });
    });
    const origin = `http://127.0.0.2:${server.addr.port}`;
    const dir = await Deno.makeTempDir({ prefix: "mcp_openapi_bounds_" });
    try {
      await Deno.mkdir(`${dir}/api`);
      await Deno.writeTextFile(`${dir}/secret.txt`, "a secret");
      await Deno.writeTextFile(`${dir}/api/doc.json`, evilDocument("../secret.txt"));
      const cases: [string, () => Promise<void>][] = [
        [
          "a document from a URL referencing file:///etc/passwd stops start-up; nothing leaks",
          async () => {
            for (const [doc, ref] of [["evil", "/etc/passwd"], ["missing", "/no/such"]]) {
              const out = await runMcp([
                "--openapi",
                `evil=${origin}/docs/${doc}.json`,
                "--list-capabilities",
              ]);
              assert.notEqual(out.code, 0, out.stdout);
              // the same line whether the file exists or not
              assert.match(
                out.stderr,
                new RegExp(
                  `Cannot load OpenAPI API "evil": \\$ref file://${ref} refused: a document ` +
                    `from a URL may reference its own origin \\(${origin}\\) only ` +
                    `\\(--openapi / MCP_OPENAPI\\)`,
                ),
              );
              assert.doesNotMatch(out.stdout + out.stderr, /root:/);
            }
          },
        ],
        [
          "a document file referencing ../secret.txt stops start-up",
          async () => {
            const out = await runMcp([
              "--openapi",
              `f=${dir}/api/doc.json`,
              "--openapi-base-url",
              "f=http://127.0.0.1:9",
              "--list-capabilities",
            ]);
            assert.notEqual(out.code, 0, out.stdout);
            assert.match(
              out.stderr,
              new RegExp(
                `Cannot load OpenAPI API "f": \\$ref file://${dir}/secret.txt refused: a ` +
                  `document file may reference files under its own directory \\(${dir}/api/\\) only`,
              ),
            );
            assert.doesNotMatch(out.stdout + out.stderr, /a secret/);
          },
        ],
        [
          'remove_member(org="..", user="..") is refused; nothing reaches the API',
          async () => {
            const s = await startStdio([
              "--openapi",
              `members=${origin}/docs/members.json`,
              "--openapi-auth",
              "members=bearer:MCP_MEMBERS_TOKEN",
            ], { MCP_MEMBERS_TOKEN: "s3cret" });
            try {
              const dots = await s.call("execute", {
                source: 'def main():\n  return members.remove_member(org="..", user="..")\n',
              });
              assert.equal(
                text(dots),
                'invalid capability arguments: org: a path segment cannot be empty, "." or ".."',
              );
              assert.deepEqual(seen, []);
              const ok = await s.call("execute", {
                source: 'def main():\n  return members.remove_member(org="acme", user="bob")\n',
              });
              assert.deepEqual(ok.structuredContent, { result: {} }, text(ok));
              assert.deepEqual(seen, [
                "DELETE /api/orgs/acme/members/bob Bearer s3cret",
              ]);
            } finally {
              await s.close();
            }
          },
        ],
      ];
      await concurrentSteps(t, cases, { concurrency: 3, name: ([n]) => n }, ([, fn]) => fn());
    } finally {
      await server.shutdown();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
