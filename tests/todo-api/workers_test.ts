/**
 * End-to-end: `serve --workers 2` on a Postgres server. CRUD through the real process, requests
 * spread over both worker isolates and all counted in the one `/metrics` view, readiness and
 * SIGTERM drain across workers, start-up failures, and PGlite refusing more than one worker.
 * Every process runs as shipped (tests/_shipped.ts: the workers load their modules from source
 * under its read grants).
 */
import assert from "node:assert/strict";
import postgres from "postgres";
import { startKeepAliveClients } from "@svc/testing";
import { withoutPostgres } from "../../services/todo-api/_test_support.ts";
import { LISTEN, migratedTarget, run, startServe, target } from "./_test_support.ts";

const WORKERS = ["--workers", "2"];

/** One request on a connection of its own, so the kernel picks a worker for each. */
async function fresh(
  url: string,
  init: RequestInit = {},
): Promise<{ status: number; body: string }> {
  const client = Deno.createHttpClient({});
  try {
    const res = await fetch(url, { ...init, client });
    return { status: res.status, body: await res.text() };
  } finally {
    client.close();
  }
}

/** Sums the series of `name` whose labels include every pair of `match`, by `worker` too. */
function sample(text: string, name: string, match: Record<string, string> = {}) {
  let total = 0;
  const byWorker = new Map<string, number>();
  for (const line of text.split("\n")) {
    const m = new RegExp(`^${name}\\{(.*)\\} (\\d+)$`).exec(line);
    if (!m) continue;
    const labels = Object.fromEntries(
      [...m[1].matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]),
    );
    if (!Object.entries(match).every(([k, v]) => labels[k] === v)) continue;
    total += Number(m[2]);
    if (labels.worker) {
      byWorker.set(labels.worker, (byWorker.get(labels.worker) ?? 0) + Number(m[2]));
    }
  }
  return { total, byWorker };
}

async function setUp() {
  const t = await migratedTarget("postgres");
  const created = await run(["keys", "create", "--subject", "w", "--role", "user"], t.env);
  assert.equal(created.code, 0, created.stderr);
  return { t, key: created.stdout.trim() };
}

Deno.test({
  name: "--workers 2 with the deployed permissions: CRUD works, requests spread over both " +
    "workers and /metrics counts them all",
  ignore: withoutPostgres(import.meta.url),
  sanitizeResources: false,
  async fn() {
    const { t, key } = await setUp();
    try {
      const svc = await startServe([...LISTEN, ...WORKERS], t.env, {
        listeners: ["api", "metrics"],
      });
      try {
        assert.equal(
          (svc.output().match(/"msg":"server_listening"[^\n]*"listener":"api"/g) ?? []).length,
          2,
        );
        const headers = { "x-api-key": key, "content-type": "application/json" };
        const before = await (await fetch(`${svc.urls.metrics}/metrics`)).text();
        const N = 40;
        const ids: string[] = [];
        for (let i = 0; i < N; i++) {
          const res = await fresh(`${svc.url}/v1/todos`, {
            method: "POST",
            headers,
            body: JSON.stringify({ title: `todo ${i}` }),
          });
          assert.equal(res.status, 201);
          ids.push(JSON.parse(res.body).id);
        }
        // every worker sees every todo: they share the database, not memory
        for (const id of ids.slice(0, 6)) {
          const got = await fresh(`${svc.url}/v1/todos/${id}`, { headers });
          assert.equal(got.status, 200);
        }
        const done = await fresh(`${svc.url}/v1/todos/${ids[0]}/complete`, {
          method: "POST",
          headers,
        });
        assert.equal(done.status, 200);
        const page = await fetch(`${svc.url}/v1/todos?limit=100`, { headers });
        assert.equal(page.status, 200);
        const items = (await page.json()).todos as { id: string; status: string }[];
        assert.deepEqual(items.map((i) => i.id).sort(), [...ids].sort());
        assert.equal(items.find((i) => i.id === ids[0])?.status, "completed");

        const text = await (await fetch(`${svc.urls.metrics}/metrics`)).text();
        const posts = { route: "/v1/todos", method: "POST", status: "201" };
        assert.equal(sample(before, "http_requests_total", posts).total, 0);
        assert.equal(
          sample(text, "http_requests_total", posts).total,
          N,
          "every create counted once",
        );
        const byWorker = sample(text, "http_requests_by_worker_total", posts);
        assert.equal(byWorker.total, N);
        assert.deepEqual([...byWorker.byWorker.keys()].sort(), ["1", "2"], "both workers served");
        const gets = sample(text, "http_request_duration_seconds_count", {
          route: "/v1/todos/{id}",
        });
        assert.equal(gets.total, 6, "histograms add up too");
      } finally {
        assert.equal(await svc.stop(), 0, svc.output());
      }
    } finally {
      await t.cleanup();
    }
  },
});

Deno.test({
  name: "--workers 2: SIGTERM turns every worker to draining, completes in-flight requests, " +
    "tells keep-alive clients to close, exits 0",
  ignore: withoutPostgres(import.meta.url),
  sanitizeResources: false,
  async fn() {
    const { t, key } = await setUp();
    try {
      const svc = await startServe([...LISTEN, ...WORKERS, "--shutdown-delay", "3s"], t.env, {
        listeners: ["api", "metrics"],
      });
      const headers = { "x-api-key": key, "content-type": "application/json" };
      const locker = postgres(t.env.TODOAPI_DATABASE_URL, { max: 1, onnotice: () => {} });
      let exit: Promise<number> | undefined;
      try {
        const clients = startKeepAliveClients(svc.url, {
          clients: 8,
          paceMs: 30,
          path: "/v1/todos?limit=1",
          headers: [`X-API-Key: ${key}`],
        });
        let inflight: Promise<{ status: number }>[] = [];
        await locker.begin(async (tx) => {
          await tx.unsafe("lock table todos in access exclusive mode");
          // creates blocked inside the database, on fresh connections: spread over both workers
          inflight = Array.from({ length: 8 }, (_, i) =>
            fresh(`${svc.url}/v1/todos`, {
              method: "POST",
              headers,
              body: JSON.stringify({ title: `drained ${i}` }),
            }));
          // real clock: the eight creates reach the workers before the signal
          await new Promise((r) => setTimeout(r, 500));
          exit = svc.stop("SIGTERM");
          // (a worker still opening its pool would say 503 too, without "draining")
          let ready = await fresh(`${svc.url}/readyz`);
          while (JSON.parse(ready.body).reason !== "draining") {
            ready = await fresh(`${svc.url}/readyz`);
          }
          // from now on every worker says draining while still serving
          for (let i = 0; i < 16; i++) {
            const res = await fresh(`${svc.url}/readyz`);
            assert.equal(res.status, 503);
            const body = JSON.parse(res.body);
            assert.equal(body.reason, "draining");
          }
          const text = await (await fetch(`${svc.urls.metrics}/metrics`)).text();
          const draining = sample(text, "http_requests_by_worker_total", {
            route: "/readyz",
            status: "503",
          });
          assert.deepEqual([...draining.byWorker.keys()].sort(), ["1", "2"], "both say draining");
          const blocked = sample(text, "http_requests_by_worker_total", {
            route: "/v1/todos",
            method: "POST",
          });
          assert.equal(blocked.total, 0, "the creates are still in flight");
        });
        for (const res of await Promise.all(inflight)) assert.equal(res.status, 201);
        assert.equal(await exit, 0, svc.output());
        for (const [i, record] of (await clients.ended).entries()) {
          assert.equal(record.failure, undefined, `client ${i}`);
          assert.equal(record.answers.at(-1)?.close, true, `client ${i} was told to close`);
        }
        const [{ count }] = await locker`select count(*)::int as count from todos`;
        assert.equal(count, 8, "every drained create committed");
        assert.match(svc.output(), /"msg":"workers stopped"[^\n]*"forced":false/);
        assert.equal((svc.output().match(/"msg":"datastore closed"/g) ?? []).length, 2);
      } finally {
        await locker.end({ timeout: 5 });
        if (!exit) await svc.stop();
      }
    } finally {
      await t.cleanup();
    }
  },
});

Deno.test({
  name: "--workers 2: an API address in use fails the start with one line naming it, exit 2",
  ignore: withoutPostgres(import.meta.url),
  sanitizeResources: false,
  async fn() {
    // No key needed: the start fails before any request.
    const t = await migratedTarget("postgres");
    try {
      // The three starts are independent (each has its own held port): run them at once.
      const apiInUse = [false, true].map(async (reusePort) => {
        // another process's listener, plain or one that would share the port (SO_REUSEPORT)
        const holder = Deno.listen({ hostname: "127.0.0.1", port: 0, reusePort });
        const addr = `127.0.0.1:${(holder.addr as Deno.NetAddr).port}`;
        try {
          const out = await run(
            ["serve", "--addr", addr, "--metrics-addr", "127.0.0.1:0", ...WORKERS],
            t.env,
          );
          assert.equal(out.code, 2, out.stderr);
          const lines = out.stderr.trim().split("\n");
          assert.deepEqual(lines.slice(-1), [
            `todo-api: Cannot listen on ${addr} (api): the address is already in use ` +
            `(change --addr / TODOAPI_ADDR)`,
          ]);
          assert.doesNotMatch(out.stdout, /"server_listening"/);
        } finally {
          holder.close();
        }
      });
      // the metrics address in use: the workers had started and are ended with the process
      const metricsInUse = (async () => {
        const holder = Deno.listen({ hostname: "127.0.0.1", port: 0 });
        const addr = `127.0.0.1:${(holder.addr as Deno.NetAddr).port}`;
        try {
          const out = await run([
            "serve",
            "--addr",
            "127.0.0.1:0",
            "--metrics-addr",
            addr,
            ...WORKERS,
          ], t.env);
          assert.equal(out.code, 2, out.stderr);
          assert.match(out.stderr, new RegExp(`todo-api: Cannot listen on ${addr} \\(metrics\\)`));
        } finally {
          holder.close();
        }
      })();
      await Promise.all([...apiInUse, metricsInUse]);
    } finally {
      await t.cleanup();
    }
  },
});

Deno.test({
  name:
    "PGlite with --workers 2 (flag or TODOAPI_WORKERS) is refused with a settings error, exit 2",
  sanitizeResources: false,
  async fn() {
    const t = await target("pglite");
    try {
      const outs = await Promise.all([
        run(["serve", ...LISTEN, ...WORKERS], t.env),
        run(["serve", ...LISTEN], { ...t.env, TODOAPI_WORKERS: "2" }),
      ]);
      for (const out of outs) {
        assert.equal(out.code, 2, out.stderr);
        assert.match(out.stderr, /^todo-api: Cannot serve on more than one worker: [^\n]*PGlite/m);
        assert.doesNotMatch(out.stdout + out.stderr, /"server_listening"/);
      }
    } finally {
      await t.cleanup();
    }
  },
});
