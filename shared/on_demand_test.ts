import assert from "node:assert/strict";
import { KIT_ON_DEMAND } from "./on_demand.ts";

Deno.test("every kit module imported by URL is in KIT_ON_DEMAND, which lists only those", async () => {
  const root = new URL("../", import.meta.url);
  const found: string[] = [];
  const walk = async (dir: URL) => {
    for await (const e of Deno.readDir(dir)) {
      const url = new URL(e.name + (e.isDirectory ? "/" : ""), dir);
      if (e.isDirectory) {
        if (e.name !== "testdata") await walk(url);
      } else if (e.name.endsWith(".ts") && !e.name.endsWith("_test.ts")) {
        const text = await Deno.readTextFile(url);
        for (const [, spec] of text.matchAll(/import\.meta\.resolve\("([^"]+)"\)/g)) {
          found.push(new URL(spec, url).href.slice(root.href.length));
        }
      }
    }
  };
  await walk(new URL("./", import.meta.url));
  assert.deepEqual([...new Set(found)].sort(), [...KIT_ON_DEMAND].sort());
  for (const path of KIT_ON_DEMAND) await Deno.stat(new URL(path, root));
});
