/**
 * The OpenAPI host end to end: the real mcp-server process (deployed permissions, stdio, the SDK
 * client) exposes the real todo-api, as shipped, through its `/openapi.yaml` (embedded PGlite, a
 * real API key from `MCP_TODO_API_KEY`) and mock-oidc's control plane through its
 * `/openapi.json`; an agent creates, completes and lists todos, mints a token and decodes it in
 * Starlark, and sees API errors with the spec's texts. No host code is involved.
 */
import assert from "node:assert/strict";
import { concurrentSteps } from "@svc/testing";
import { runShipped, startShipped } from "../_shipped.ts";
import { ROOT, runMcp, startStdio } from "./_test_support.ts";
import { startMock } from "../mock-oidc/_test_support.ts";
import { migratedTarget, type Target } from "../todo-api/_test_support.ts";

/** A todo-api command as shipped (`deploy/services.ts` permissions); throws on a non-zero exit. */
async function todoCli(args: string[], env: Record<string, string>) {
  const out = await runShipped("todo-api", { args, env });
  if (out.code !== 0) throw new Error(`todo-api ${args.join(" ")}: ${out.stderr}`);
  return out.stdout.trim();
}

const text = (r: { content: unknown }) => (r.content as Array<{ text: string }>)[0].text;

/** base64url decoding written in Starlark (the language has no base64 module). */
const B64 = `
ALPHA = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

def b64url(s):
  out = []
  acc = 0
  bits = 0
  for c in s.elems():
    acc = (acc << 6) | ALPHA.index(c)
    bits += 6
    if bits >= 8:
      bits -= 8
      out.append(chr((acc >> bits) & 255))
  return "".join(out)
`;

Deno.test({
  name: "OpenAPI host: todo-api via /openapi.yaml and mock-oidc's control plane via /openapi.json",
  sanitizeResources: false,
  async fn(t) {
    // What needs no API starts meanwhile: the --help run and mock-oidc beside todo-api's set-up.
    const helped = runMcp(["--help"]);
    const oidcStarted = startMock();
    // Under ./.data (todo-api's shipped grant reads and writes there only), a copy of a directory
    // `migrate up` made: migrating is tests/todo-api/shipped_test.ts's subject, not this one's, and
    // a fresh PGlite directory costs an initdb (about 8 s of CPU).
    let db: Target | undefined;
    try {
      db = await migratedTarget("pglite", { parent: `${ROOT}.data` });
      const env = db.env;
      const key = await todoCli(["keys", "create", "--subject", "agent", "--role", "user"], env);
      const todo = await startShipped("todo-api", {
        args: ["serve", "--addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0"],
        env,
        listeners: ["api", "metrics"],
      });
      const oidc = await oidcStarted;
      try {
        const apis = [
          "--openapi",
          `todos=${todo.url}/openapi.yaml`,
          "--openapi",
          `oidc=${oidc.url}/openapi.json`,
        ];
        const auth = ["--openapi-auth", "todos=header:X-API-Key:MCP_TODO_API_KEY"];
        // Independent runs of mcp-server (each its own process) side by side.
        const cases: [string, () => Promise<void>][] = [
          [
            "an agent uses both APIs; API errors carry the spec's texts",
            async () => {
              const s = await startStdio([...apis, ...auth], { MCP_TODO_API_KEY: key });
              try {
                const found = await s.call("search_api", { query: "create a todo" });
                assert.equal(
                  (found.structuredContent as { results: Array<{ name: string }> }).results[0].name,
                  "todos.create_todo",
                );
                const described = await s.call("describe_api", { name: "todos.list_todos" });
                assert.deepEqual(
                  (described.structuredContent as { signature: string }).signature,
                  "todos.list_todos(*, limit: int | None, cursor: str | None)",
                );
                const ran = await s.call("execute", {
                  source: `def main():
  a = todos.create_todo(title="write the report")
  b = todos.create_todo(title="ship it")
  done = todos.complete_todo(id=a["id"])
  page = todos.list_todos(limit=10)
  again = todos.get_todo(id=b["id"])
  return {
    "titles": [t["title"] for t in page["todos"]],
    "done": [done["status"], "completedAt" in done],
    "open": [again["status"], "completedAt" in again],
    "more": "nextCursor" in page,
  }
`,
                });
                assert.deepEqual(ran.structuredContent, {
                  result: {
                    titles: ["write the report", "ship it"],
                    done: ["completed", true],
                    open: ["open", false],
                    more: false,
                  },
                }, text(ran));
                const missing = await s.call("execute", {
                  source:
                    'def main():\n  return todos.get_todo(id="00000000-0000-0000-0000-000000000000")\n',
                });
                assert.equal(missing.isError, true);
                assert.match(text(missing), /^capability failed: 404 Not Found: \S/);
                const invalid = await s.call("execute", {
                  source: "def main():\n  return todos.list_todos(limit=1000)\n",
                });
                assert.equal(
                  text(invalid),
                  "capability failed: 422 Unprocessable Content: validation failed",
                );
                const badType = await s.call("execute", {
                  source: 'def main():\n  return todos.list_todos(limit="ten")\n',
                });
                assert.equal(
                  text(badType),
                  "invalid capability arguments: limit: got string, want int",
                );
                const minted = await s.call("execute", {
                  source: `${B64}
def main():
  m = oidc.mint_token(issuer="default", subject="agent-7", audience=["mcp"], expirySeconds=600)
  parts = m["token"].split(".")
  seg = parts[1]
  payload = json.decode(b64url(seg))
  header = json.decode(b64url(parts[0]))
  return {"sub": payload["sub"], "aud": payload["aud"], "alg": header["alg"],
          "ttl": payload["exp"] - payload["iat"], "kid": m["kid"]}
`,
                });
                assert.deepEqual(minted.structuredContent, {
                  result: { sub: "agent-7", aud: "mcp", alg: "RS256", ttl: 600, kid: "default" },
                }, text(minted));
                const badIssuer = await s.call("execute", {
                  source: 'def main():\n  return oidc.mint_token(issuer="_mock")\n',
                });
                assert.match(text(badIssuer), /^capability failed: 4\d\d /);
                const disabled = await s.call("describe_api", { name: "oidc.docs" });
                assert.equal(text(disabled), "capability not found");
              } finally {
                await s.close();
              }
            },
          ],
          [
            "without credentials the API answers 401",
            async () => {
              // without credentials the API answers 401, surfaced with the spec's text
              const noKey = await startStdio(apis);
              try {
                const r = await noKey.call("execute", {
                  source: "def main():\n  return todos.list_todos()\n",
                });
                assert.match(text(r), /^capability failed: 401 Unauthorized/);
              } finally {
                await noKey.close();
              }
            },
          ],
          [
            "--list-capabilities lists enabled signatures and disabled operations",
            async () => {
              // --list-capabilities: enabled signatures and disabled operations with their reasons
              const listed = await runMcp([...apis, "--list-capabilities"]);
              assert.equal(listed.code, 0, listed.stderr);
              assert.match(listed.stdout, /^todos\.create_todo\(\*, title: str\)$/m);
              assert.match(
                listed.stdout,
                /^oidc\.docs \(disabled: response 200 is not JSON \(text\/html\)\)$/m,
              );
              // At start-up they are one info line naming them (expected: the notation's limits),
              // not a warn per operation.
              const summary = listed.stderr.split("\n").filter((l) =>
                l.includes('"msg":"OpenAPI operations disabled"')
              );
              assert.equal(summary.length, 1, listed.stderr);
              const line = JSON.parse(summary[0]);
              assert.equal(line.level, "info");
              assert.ok(line.capabilities.includes("oidc.docs"), summary[0]);
              assert.equal(line.count, line.capabilities.length);
              assert.doesNotMatch(listed.stderr, /"level":"warn"[^\n]*"msg":"OpenAPI operation/);
            },
          ],
          [
            "--help names the OpenAPI flags",
            async () => {
              const help = await helped;
              for (
                const flag of ["openapi", "openapi-base-url", "openapi-auth", "list-capabilities"]
              ) {
                assert.match(help.stdout, new RegExp(`^  --${flag} `, "m"));
              }
            },
          ],
          [
            "start-up errors: one line naming the API and the setting",
            async () => {
              // start-up errors: one line naming the API and the setting
              const unset = await runMcp([...apis, ...auth, "--list-capabilities"]);
              assert.equal(unset.code, 2, unset.stderr);
              assert.match(
                unset.stderr.trim(),
                /^.*Cannot use --openapi-auth for "todos": MCP_TODO_API_KEY is not set \(MCP_OPENAPI_AUTH\).*$/,
              );
              const gone = await runMcp(["--openapi", `todos=${todo.url}/nope.yaml`]);
              assert.notEqual(gone.code, 0);
              assert.match(
                gone.stderr,
                /Cannot load OpenAPI API "todos": cannot fetch http:\/\/127\.0\.0\.1:\d+\/nope\.yaml \(HTTP 404\)/,
              );
            },
          ],
        ];
        await concurrentSteps(t, cases, { concurrency: 3, name: ([n]) => n }, ([, fn]) => fn());
      } finally {
        await todo.stop();
      }
    } finally {
      await helped.catch(() => {});
      await oidcStarted.then((o) => o.stop()).catch(() => {});
      await db?.cleanup();
    }
  },
});
