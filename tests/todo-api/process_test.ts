/**
 * End-to-end: the real `main.ts` processes (migrate, keys, serve) driven with fetch, on PGlite
 * and on a Postgres server. `migrate up` runs here on the first test's Postgres database (serve
 * does not migrate; an operator migrates while it runs); the others start from a migrated copy
 * (`migratedTarget`, made by the same command). Every process runs as shipped
 * (tests/_shipped.ts), its PGlite directory under `./.data`.
 */
import assert from "node:assert/strict";
import SwaggerParser from "@apidevtools/swagger-parser";
import postgres from "postgres";
import { parse as parseYaml } from "yaml";
import { waitUntil } from "@svc/testing";
import { schemaViolations } from "@svc/testing/schema-check";
import { withoutPostgres } from "../../services/todo-api/_test_support.ts";
import { LISTEN, migratedTarget, run, startServe, target } from "./_test_support.ts";

for (const backend of ["pglite", "postgres"] as const) {
  const ignore = backend === "postgres" && withoutPostgres(import.meta.url, "postgres backend");

  Deno.test({
    name: `serve never migrates and is not ready while migrations are pending [${backend}]`,
    ignore,
    sanitizeResources: false,
    async fn() {
      // PGlite: a directory initdb already ran in, no migration applied.
      const t = await target(backend, { initdb: true });
      try {
        const svc = await startServe(LISTEN, t.env);
        try {
          const health = await fetch(`${svc.url}/healthz`);
          assert.equal(health.status, 200);
          await health.body?.cancel();
          // The datastore opens behind the listener; until then readiness says so.
          let body!: { checks: Record<string, { status: string; error?: string }> };
          await waitUntil(async () => {
            const ready = await fetch(`${svc.url}/readyz`);
            assert.equal(ready.status, 503);
            body = await ready.json();
            if (body.checks.datastore.status === "ok") return true;
            assert.equal(body.checks.datastore.error, "the datastore is still opening");
            return false;
          }, { what: "the datastore to open", timeoutMs: 60_000 });
          assert.equal(body.checks.migrations.status, "fail");
          assert.match(body.checks.migrations.error ?? "", /4 pending/);
          assert.equal(body.checks.datastore.status, "ok");
          const early = await fetch(`${svc.url}/v1/todos`, { headers: { "x-api-key": "todo_x" } });
          assert.equal(early.status, 503);
          await early.body?.cancel();
          if (backend === "postgres") {
            // with a server, an operator migrates while the service runs and it becomes ready
            assert.equal((await run(["migrate", "up"], t.env)).code, 0);
            const after = await fetch(`${svc.url}/readyz`);
            assert.equal(after.status, 200);
            await after.body?.cancel();
          }
        } finally {
          assert.equal(await svc.stop(), 0);
        }
        if (backend === "pglite") {
          const status = await run(["migrate", "status", "--exit-code"], t.env);
          assert.equal(status.code, 3, status.stderr);
          assert.match(status.stdout, /Pending: 4/);
        }
      } finally {
        await t.cleanup();
      }
    },
  });

  Deno.test({
    name: `keys, todos, metrics, OpenAPI and graceful drain through real processes [${backend}]`,
    ignore,
    sanitizeResources: false,
    async fn() {
      const t = await migratedTarget(backend);
      try {
        const created = await run(
          ["keys", "create", "--subject", "alice", "--role", "user"],
          t.env,
        );
        assert.equal(created.code, 0, created.stderr);
        const key = created.stdout.trim();
        assert.match(created.stderr, /shown only now/);
        const svc = await startServe(LISTEN, t.env, { listeners: ["api", "metrics"] });
        let stopped = false;
        let inflight: Promise<Response> | undefined;
        let exit: Promise<number> | undefined;
        try {
          const api = (path: string, init: RequestInit = {}) =>
            fetch(`${svc.url}${path}`, {
              ...init,
              headers: { "x-api-key": key, "content-type": "application/json", ...init.headers },
            });
          const yamlRes = await fetch(`${svc.url}/openapi.yaml`);
          assert.equal(yamlRes.status, 200);
          const doc = parseYaml(await yamlRes.text());
          await SwaggerParser.validate(structuredClone(doc));
          assert.equal(doc.openapi, "3.0.3");
          const jsonDoc = await (await fetch(`${svc.url}/openapi.json`).catch((e) => {
            throw new Error(svc.output(), { cause: e });
          })).json();
          assert.deepEqual(jsonDoc, doc);
          const docs = await fetch(`${svc.url}/docs`);
          assert.equal(docs.status, 200);
          await docs.body?.cancel();

          // documented vs actual: every response below must be documented with a matching body
          const seen: [string, string, Response][] = [];
          const record = async (method: string, template: string, res: Promise<Response>) => {
            const r = await res;
            seen.push([method, template, r]);
            return r;
          };
          const todo = await (await record(
            "post",
            "/v1/todos",
            api("/v1/todos", { method: "POST", body: JSON.stringify({ title: "e2e" }) }),
          )).clone().json();
          await record("get", "/v1/todos", api("/v1/todos?limit=1"));
          await record("post", "/v1/todos", api("/v1/todos", { method: "POST", body: "{" }));
          await record("post", "/v1/todos", api("/v1/todos", { method: "POST", body: "{}" }));
          await record("get", "/v1/todos", api("/v1/todos?limit=0"));
          await record("get", "/v1/todos", api("/v1/todos?cursor=nope"));
          await record("get", "/v1/todos", fetch(`${svc.url}/v1/todos`));
          await record("get", "/v1/todos/{id}", api(`/v1/todos/${todo.id}`));
          await record("get", "/v1/todos/{id}", api(`/v1/todos/${crypto.randomUUID()}`));
          await record(
            "post",
            "/v1/todos/{id}/complete",
            api(`/v1/todos/${todo.id}/complete`, { method: "POST" }),
          );
          await record("get", "/healthz", fetch(`${svc.url}/healthz`));
          await record("get", "/readyz", fetch(`${svc.url}/readyz`));
          for (const [method, template, res] of seen) {
            const op = doc.paths[template][method];
            const documented = op.responses[String(res.status)];
            assert.ok(documented, `${method} ${template} ${res.status} is not documented`);
            const type = res.headers.get("content-type")!;
            const media = documented.content[type];
            assert.ok(media, `${method} ${template} ${res.status} ${type} is not documented`);
            const problems = schemaViolations(await res.json(), media.schema, doc);
            assert.deepEqual(problems, [], `${method} ${template} ${res.status}`);
          }

          const metrics = await (await fetch(`${svc.urls.metrics}/metrics`)).text();
          assert.match(metrics, /http_requests_total\{[^}]*route="\/v1\/todos"/);

          if (backend === "postgres") {
            // graceful drain: a create blocked inside the database when SIGTERM arrives still
            // completes (the table is locked from another session, then released)
            const locker = postgres(t.env.TODOAPI_DATABASE_URL, { max: 1, onnotice: () => {} });
            try {
              await locker.begin(async (tx) => {
                await tx.unsafe("lock table todos in access exclusive mode");
                inflight = api("/v1/todos", {
                  method: "POST",
                  body: JSON.stringify({ title: "drained" }),
                });
                // real clock: the create reaches the locked table before the signal
                await new Promise((r) => setTimeout(r, 300));
                exit = svc.stop("SIGTERM");
                stopped = true;
                // real clock: the drain is under way while the lock is still held
                await new Promise((r) => setTimeout(r, 300));
              });
            } finally {
              await locker.end({ timeout: 5 });
            }
            const res = await inflight!;
            assert.equal(res.status, 201, svc.output());
            assert.equal((await res.json()).title, "drained");
          } else {
            exit = svc.stop("SIGTERM");
            stopped = true;
          }
          assert.equal(await exit, 0);
          assert.match(svc.output(), /datastore closed/);
        } finally {
          if (!stopped) await svc.stop();
        }
        // after a clean shutdown the datastore opens again (PGlite: lock released, checkpointed)
        const list = await run(["keys", "list"], t.env);
        assert.equal(list.code, 0, list.stderr);
        assert.match(list.stdout, /alice\tuser/);
      } finally {
        await t.cleanup();
      }
    },
  });
}

Deno.test({
  name: "a second process on the same PGlite directory fails clearly instead of corrupting it",
  sanitizeResources: false,
  async fn() {
    const t = await migratedTarget("pglite");
    try {
      // The datastore opens behind the listener: wait for it.
      const svc = await startServe(LISTEN, t.env, { healthPath: "/readyz" });
      try {
        // Three would-be second processes at once: each is refused on its own.
        const attempts = [["migrate", "status"], ["keys", "list"], ["serve", ...LISTEN]];
        const seconds = await Promise.all(attempts.map((args) => run(args, t.env)));
        for (const [i, second] of seconds.entries()) {
          assert.equal(second.code, 1, attempts[i].join(" "));
          assert.match(second.stderr, /in use by another process \(pid \d+\)/);
        }
        const ready = await fetch(`${svc.url}/readyz`);
        assert.equal(ready.status, 200);
        await ready.body?.cancel();
      } finally {
        assert.equal(await svc.stop(), 0);
      }
      const after = await run(["migrate", "status"], t.env);
      assert.equal(after.code, 0, after.stderr);
      assert.match(after.stdout, /Applied: 4/);
    } finally {
      await t.cleanup();
    }
  },
});

Deno.test({
  name:
    "after SIGTERM serve keeps serving for --shutdown-delay with /readyz draining, then exits 0",
  sanitizeResources: false,
  async fn() {
    const t = await migratedTarget("pglite");
    try {
      // Long enough for the three requests below, which start as soon as /readyz turns.
      // The datastore opens behind the listener: wait for it.
      const svc = await startServe([...LISTEN, "--shutdown-delay", "2s"], t.env, {
        healthPath: "/readyz",
      });
      const ready = await fetch(`${svc.url}/readyz`);
      assert.equal(ready.status, 200);
      await ready.body?.cancel();
      const exit = svc.stop("SIGTERM");
      // The signal is delivered asynchronously: wait for the readiness answer to turn.
      let draining!: Response;
      await waitUntil(async () => {
        draining = await fetch(`${svc.url}/readyz`);
        if (draining.status === 503) return true;
        await draining.body?.cancel();
        return false;
      }, { what: "/readyz to answer 503" });
      const [health, api] = await Promise.all([
        fetch(`${svc.url}/healthz`),
        fetch(`${svc.url}/v1/todos`),
      ]);
      assert.equal(draining.status, 503);
      assert.deepEqual(await draining.json(), {
        status: "not_ready",
        reason: "draining",
        checks: {},
      });
      assert.equal(health.status, 200, "liveness holds during the delay");
      await health.body?.cancel();
      assert.equal(api.status, 401, "the API is still served during the delay");
      await api.body?.cancel();
      assert.equal(await exit, 0);
      assert.match(svc.output(), /"msg":"shutdown_started".*"delay_ms":2000/);
      assert.match(svc.output(), /"msg":"datastore closed"/);
    } finally {
      await t.cleanup();
    }
  },
});
