/**
 * End-to-end: key management while the service runs, with the deployed permissions.
 * - PGlite: `keys create` while `serve` holds the embedded database prints the exact `curl` call
 *   at the address the server answers on (from the lock file, `--addr` or not); that call, run
 *   verbatim by bash, creates the key; `keys … --url` performs create, list and
 *   revoke through the API; a revoked key is refused on the next request.
 * - Postgres, `--workers 2`: a key revoked through the API is refused on the next request
 *   through each worker (fresh connections, counted per worker in /metrics), despite a long
 *   key cache TTL.
 */
import assert from "node:assert/strict";
import { TEST_DATABASE_URL } from "../../services/todo-api/_test_support.ts";
import { LISTEN, migratedTarget, run, startServe } from "./_test_support.ts";

async function bash(script: string, env: Record<string, string>) {
  const out = await new Deno.Command("bash", {
    args: ["-euo", "pipefail", "-c", script],
    env,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

/** One request on a connection of its own, so the kernel picks a worker for each. */
async function fresh(url: string, init: RequestInit = {}) {
  const client = Deno.createHttpClient({});
  try {
    const res = await fetch(url, { ...init, client });
    return { status: res.status, body: await res.text() };
  } finally {
    client.close();
  }
}

Deno.test({
  name: "PGlite held by serve: keys prints the exact curl call, which works; --url does it " +
    "itself; a revoked key is 401 on the next request",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    // Under ./.data (the default): the deployed permissions grant the service nothing else.
    const t = await migratedTarget("pglite");
    try {
      const boot = await run(["keys", "create", "--subject", "ops", "--role", "admin"], t.env);
      assert.equal(boot.code, 0, boot.stderr);
      const admin = boot.stdout.trim();
      const svc = await startServe([...LISTEN, "--key-cache-ttl", "1h"], t.env);
      try {
        const addr = new URL(svc.url).host;
        const locked = await run(
          ["keys", "create", "--subject", "o'brien", "--role", "user", "--addr", addr],
          t.env,
        );
        assert.equal(locked.code, 1);
        assert.equal(locked.stdout, "");
        assert.match(locked.stderr, /in use by another process \(pid \d+\)/);
        const curl = /^ {2}(curl .*)$/m.exec(locked.stderr)?.[1];
        assert.ok(curl, locked.stderr);
        assert.equal(
          curl,
          `curl -sS -w '\\n' -X POST -H "X-API-Key: $TODOAPI_API_KEY" ` +
            `-H 'Content-Type: application/json' ` +
            `-d '{"subject":"o'\\''brien","roles":["user"]}' http://${addr}/v1/keys`,
        );
        assert.match(locked.stderr, new RegExp(`--url http://${addr} `));
        // Without --addr, the advice names where the server said it answers (its lock file), not
        // the default :8080.
        const unaddressed = await run(["keys", "list"], t.env);
        assert.equal(unaddressed.code, 1);
        assert.match(unaddressed.stderr, new RegExp(`--url http://${addr} `));
        assert.match(unaddressed.stderr, new RegExp(` 'http://${addr}/v1/keys\\?limit=100'$`, "m"));
        assert.doesNotMatch(unaddressed.stderr, /8080/);
        const viaCurl = await bash(curl, { TODOAPI_API_KEY: admin, PATH: Deno.env.get("PATH")! });
        assert.equal(viaCurl.code, 0, viaCurl.stderr);
        const made = JSON.parse(viaCurl.stdout);
        assert.equal(made.subject, "o'brien");
        assert.match(made.key, /^todo_/);

        const env = { ...t.env, TODOAPI_API_KEY: admin };
        const created = await run(
          ["keys", "create", "--subject", "bob", "--role", "user", "--url", svc.url],
          env,
        );
        assert.equal(created.code, 0, created.stderr);
        const bob = created.stdout.trim();
        assert.match(bob, /^todo_[A-Za-z0-9_-]{43}$/);
        const headers = { "x-api-key": bob };
        assert.equal((await fresh(`${svc.url}/v1/todos`, { headers })).status, 200);

        const listed = await run(["keys", "list", "--url", svc.url], env);
        assert.equal(listed.code, 0, listed.stderr);
        const rows = listed.stdout.trim().split("\n");
        assert.equal(rows.length, 4, listed.stdout); // header, ops, o'brien, bob
        assert.equal(listed.stdout.includes(bob), false);
        const bobId = rows.find((r) => r.split("\t")[1] === "bob")!.split("\t")[0];

        const revoked = await run(["keys", "revoke", bobId, "--url", svc.url], env);
        assert.equal(revoked.code, 0, revoked.stderr);
        assert.equal(revoked.stdout.trim(), `revoked ${bobId}`);
        assert.equal((await fresh(`${svc.url}/v1/todos`, { headers })).status, 401);

        const [noKey, asUser] = await Promise.all([
          run(["keys", "list", "--url", svc.url], t.env),
          run(["keys", "list", "--url", svc.url], { ...t.env, TODOAPI_API_KEY: made.key }),
        ]);
        assert.equal(noKey.code, 2);
        assert.match(noKey.stderr, /TODOAPI_API_KEY/);
        assert.equal(asUser.code, 1);
        assert.match(asUser.stderr, /403 the key's roles do not permit keys\.list/);
        assert.equal(svc.output().includes(bob), false, "no key in the server's log");
        assert.match(svc.output(), /"audit":"api_key","action":"revoke"/);
      } finally {
        assert.equal(await svc.stop(), 0, svc.output());
      }
    } finally {
      await t.cleanup();
    }
  },
});

Deno.test({
  name: "--workers 2: a key revoked through the API is 401 on the next request through each " +
    "worker, despite a 1 h key cache",
  ignore: !TEST_DATABASE_URL,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const t = await migratedTarget("postgres");
    try {
      const boot = await run(["keys", "create", "--subject", "ops", "--role", "admin"], t.env);
      assert.equal(boot.code, 0, boot.stderr);
      const admin = { "x-api-key": boot.stdout.trim(), "content-type": "application/json" };
      const svc = await startServe(
        [...LISTEN, "--workers", "2", "--key-cache-ttl", "1h"],
        t.env,
        { listeners: ["api", "metrics"] },
      );
      try {
        const made = JSON.parse(
          (await fresh(`${svc.url}/v1/keys`, {
            method: "POST",
            headers: admin,
            body: JSON.stringify({ subject: "bob", roles: ["user"] }),
          })).body,
        );
        const headers = { "x-api-key": made.key };
        const N = 24;
        for (let i = 0; i < N; i++) {
          assert.equal((await fresh(`${svc.url}/v1/todos`, { headers })).status, 200);
        }
        const revoked = await fresh(`${svc.url}/v1/keys/${made.id}/revoke`, {
          method: "POST",
          headers: admin,
        });
        assert.equal(revoked.status, 200);
        for (let i = 0; i < N; i++) {
          assert.equal((await fresh(`${svc.url}/v1/todos`, { headers })).status, 401, `#${i}`);
        }
        const text = await (await fetch(`${svc.urls.metrics}/metrics`)).text();
        const by = (status: string) => {
          const workers = new Set<string>();
          for (const line of text.split("\n")) {
            if (
              line.startsWith("http_requests_by_worker_total{") &&
              line.includes('route="/v1/todos"') && line.includes(`status="${status}"`)
            ) workers.add(/worker="(\d+)"/.exec(line)![1]);
          }
          return [...workers].sort();
        };
        assert.deepEqual(by("200"), ["1", "2"], "both workers had the key cached");
        assert.deepEqual(by("401"), ["1", "2"], "both workers refused it next");
      } finally {
        assert.equal(await svc.stop(), 0, svc.output());
      }
    } finally {
      await t.cleanup();
    }
  },
});

Deno.test({
  name: "two instances on one Postgres database: a key revoked through one (or by the CLI) is " +
    "refused by the other once the NOTIFY arrives, long before its 1 h key cache expires",
  ignore: !TEST_DATABASE_URL,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const t = await migratedTarget("postgres");
    try {
      const boot = await run(["keys", "create", "--subject", "ops", "--role", "admin"], t.env);
      assert.equal(boot.code, 0, boot.stderr);
      const admin = { "x-api-key": boot.stdout.trim(), "content-type": "application/json" };
      const start = () => startServe([...LISTEN, "--workers", "1", "--key-cache-ttl", "1h"], t.env);
      const [a, b] = await Promise.all([start(), start()]);
      try {
        /** Requests to `url` until it answers 401; the time it took, bounded by `limitMs`. */
        const until401 = async (url: string, key: string, limitMs: number) => {
          const t0 = performance.now();
          while (performance.now() - t0 < limitMs) {
            const res = await fresh(url, { headers: { "x-api-key": key } });
            if (res.status === 401) return performance.now() - t0;
            assert.equal(res.status, 200);
          }
          throw new Error(`still accepted after ${limitMs} ms`);
        };
        const make = async (subject: string) =>
          JSON.parse(
            (await fresh(`${a.url}/v1/keys`, {
              method: "POST",
              headers: admin,
              body: JSON.stringify({ subject, roles: ["user"] }),
            })).body,
          );
        // Through the other instance's API.
        const bob = await make("bob");
        const cached = await fresh(`${b.url}/v1/todos`, { headers: { "x-api-key": bob.key } });
        assert.equal(cached.status, 200, "cached by B");
        const revoked = await fresh(`${a.url}/v1/keys/${bob.id}/revoke`, {
          method: "POST",
          headers: admin,
        });
        assert.equal(revoked.status, 200);
        const tookMs = await until401(`${b.url}/v1/todos`, bob.key, 10_000);
        assert.ok(tookMs < 10_000, `B refused the key after ${tookMs} ms`);

        // By the command line, on the database, while both serve.
        const carl = await make("carl");
        for (const svc of [a, b]) {
          const ok = await fresh(`${svc.url}/v1/todos`, { headers: { "x-api-key": carl.key } });
          assert.equal(ok.status, 200);
        }
        const cli = await run(["keys", "revoke", carl.id], t.env);
        assert.equal(cli.code, 0, cli.stderr);
        for (const svc of [a, b]) await until401(`${svc.url}/v1/todos`, carl.key, 10_000);
      } finally {
        assert.equal(await a.stop(), 0, a.output());
        assert.equal(await b.stop(), 0, b.output());
      }
    } finally {
      await t.cleanup();
    }
  },
});
