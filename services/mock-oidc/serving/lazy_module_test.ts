import assert from "node:assert/strict";
import { lazyModule } from "./lazy_module.ts";

Deno.test("lazyModule loads once and hands every caller the same module", async () => {
  let loads = 0;
  const load = lazyModule(() => {
    loads++;
    return Promise.resolve({ n: loads });
  });
  assert.equal(loads, 0, "nothing loads before the first use");
  const [a, b] = await Promise.all([load(), load()]);
  assert.equal(loads, 1);
  assert.equal(a, b);
  assert.equal(await load(), a);
  assert.equal(loads, 1);
});

Deno.test("lazyModule rejects on a failed load and tries again on the next use", async () => {
  let loads = 0;
  const load = lazyModule(() => {
    loads++;
    return loads === 1 ? Promise.reject(new Error("no such module")) : Promise.resolve("ok");
  });
  await assert.rejects(load(), /no such module/);
  assert.equal(await load(), "ok");
  assert.equal(loads, 2);
});

Deno.test("lazyModule passes a failed dynamic import on as a rejection", async () => {
  const load = lazyModule(() => import(String(new URL("./missing_module.ts", import.meta.url))));
  await assert.rejects(load());
});
