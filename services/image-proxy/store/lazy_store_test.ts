import assert from "node:assert/strict";
import { type DisposableStore, lazyStore } from "./lazy_store.ts";
import type { ObjectMeta } from "./store.ts";

function fakeStore(log: string[]): DisposableStore {
  const meta: ObjectMeta = { size: 1 };
  return {
    head: (key) => {
      log.push(`head ${key}`);
      return Promise.resolve(meta);
    },
    get: (key) => {
      log.push(`get ${key}`);
      return Promise.resolve({ meta, body: new ReadableStream({ start: (c) => c.close() }) });
    },
    destroy: () => void log.push("destroy"),
  };
}

Deno.test("lazyStore: made by the first call, once for concurrent calls", async () => {
  const log: string[] = [];
  let makes = 0;
  const store = lazyStore(() => {
    makes++;
    return Promise.resolve(fakeStore(log));
  });
  assert.equal(makes, 0);
  await Promise.all([store.head("a"), store.get("b")]);
  await store.head("c");
  assert.equal(makes, 1);
  assert.deepEqual(log, ["head a", "get b", "head c"]);
  store.destroy();
  assert.deepEqual(log.at(-1), "destroy");
});

Deno.test("lazyStore: a failed make is tried again by the next call", async () => {
  let makes = 0;
  const store = lazyStore(() => {
    makes++;
    return makes === 1 ? Promise.reject(new Error("boom")) : Promise.resolve(fakeStore([]));
  });
  await assert.rejects(store.head("a"), /boom/);
  assert.equal((await store.head("a")).size, 1);
  assert.equal(makes, 2);
});

Deno.test("lazyStore: destroy before the first call makes nothing; during make releases it", async () => {
  const unused = lazyStore(() => {
    throw new Error("must not be made");
  });
  unused.destroy();
  const log: string[] = [];
  let release!: (s: DisposableStore) => void;
  const store = lazyStore(() => new Promise((r) => release = r));
  const pending = store.head("a");
  store.destroy();
  release(fakeStore(log));
  await pending;
  assert.deepEqual(log, ["destroy", "head a"]);
});

Deno.test("lazyStore: load makes the store ahead of the first call", async () => {
  let makes = 0;
  const store = lazyStore(() => {
    makes++;
    return Promise.resolve(fakeStore([]));
  });
  await store.load();
  assert.equal(makes, 1);
  await store.head("a");
  assert.equal(makes, 1);
});
