/**
 * Durability under `kill -9`: concurrent writers create todos against the real process, it is
 * killed with SIGKILL mid-stream, restarted on the same database, and every todo whose creation
 * was acknowledged (201) must be there, on both backends. (A process kill leaves the OS page
 * cache intact; power-loss durability of PGlite is covered by the fsync test in
 * `services/todo-api/store/durable_fs_test.ts`.) The process runs as shipped (tests/_shipped.ts),
 * its PGlite directory under `./.data`.
 */
import assert from "node:assert/strict";
import { withoutPostgres } from "../../services/todo-api/_test_support.ts";
import { LISTEN, migratedTarget, run, startServe } from "./_test_support.ts";
import { waitUntil } from "@svc/testing";

const WRITERS = 8;
/**
 * Acknowledged writes to wait for before the kill. The claim is about the writes in flight when
 * the process dies (WRITERS of them, always), not about how many came before: 100 gives every
 * writer a dozen commits, enough that the kill lands mid-stream.
 */
const BEFORE_KILL = 100;

async function listAll(url: string, key: string): Promise<Set<string>> {
  const ids = new Set<string>();
  let cursor = "";
  for (;;) {
    const res = await fetch(`${url}/v1/todos?limit=100${cursor ? `&cursor=${cursor}` : ""}`, {
      headers: { "x-api-key": key },
    });
    assert.equal(res.status, 200);
    const page = await res.json();
    for (const t of page.todos) ids.add(t.id);
    if (!page.nextCursor) return ids;
    cursor = encodeURIComponent(page.nextCursor);
  }
}

for (const backend of ["pglite", "postgres"] as const) {
  Deno.test({
    name: `every acknowledged todo survives kill -9 under concurrent writers [${backend}]`,
    ignore: backend === "postgres" && withoutPostgres(import.meta.url, "postgres backend"),
    sanitizeResources: false,
    sanitizeOps: false,
    async fn() {
      const db = await migratedTarget(backend);
      try {
        const made = await run(["keys", "create", "--subject", "w", "--role", "user"], db.env);
        assert.equal(made.code, 0, made.stderr);
        const key = made.stdout.trim();
        const start = () => startServe(LISTEN, db.env);
        const svc = await start();
        const acknowledged: string[] = [];
        let stop = false;
        const writer = async (w: number) => {
          for (let i = 0; !stop; i++) {
            try {
              const res = await fetch(`${svc.url}/v1/todos`, {
                method: "POST",
                headers: { "x-api-key": key, "content-type": "application/json" },
                body: JSON.stringify({ title: `w${w}-${i}` }),
              });
              if (res.status === 201) acknowledged.push((await res.json()).id);
              else await res.body?.cancel();
            } catch {
              return; // the process is gone: this write was never acknowledged
            }
          }
        };
        const writers = Array.from({ length: WRITERS }, (_, w) => writer(w));
        // Kill once a good number of writes are acknowledged (no wall-clock assumption).
        await waitUntil(() => acknowledged.length >= BEFORE_KILL, {
          what: `${BEFORE_KILL} acknowledged writes`,
          timeoutMs: 120_000,
        }).catch(() => {}); // fewer on a slow machine: the kill then comes with what there is
        assert.ok(acknowledged.length > 0, "some writes were acknowledged before the kill");
        const code = await svc.stop("SIGKILL");
        stop = true;
        await Promise.all(writers);
        assert.notEqual(code, 0, "the process was killed, not stopped");
        const again = await start();
        try {
          const present = await listAll(again.url, key);
          const lost = acknowledged.filter((id) => !present.has(id));
          assert.deepEqual(lost, [], `${lost.length} of ${acknowledged.length} acknowledged lost`);
          assert.ok(present.size >= acknowledged.length);
        } finally {
          assert.equal(await again.stop(), 0);
        }
      } finally {
        await db.cleanup();
      }
    },
  });
}
