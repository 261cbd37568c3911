import assert from "node:assert/strict";
import { KIT_ON_DEMAND } from "./on_demand.ts";

/**
 * Every `import.meta.resolve("…")` specifier in the kit's code (not its comments: the examples of
 * `lazy_module.ts` show some), with the file it is in.
 */
async function resolvedSpecifiers(dir: URL, found: { spec: string; file: URL }[] = []) {
  for await (const e of Deno.readDir(dir)) {
    const url = new URL(e.name + (e.isDirectory ? "/" : ""), dir);
    if (e.isDirectory) {
      if (e.name !== "testdata") await resolvedSpecifiers(url, found);
    } else if (e.name.endsWith(".ts") && !e.name.endsWith("_test.ts")) {
      const text = (await Deno.readTextFile(url)).split("\n")
        .filter((line) => !/^\s*(\*|\/\/|\/\*\*)/.test(line)).join("\n");
      for (const [, spec] of text.matchAll(/import\.meta\.resolve\("([^"]+)"\)/g)) {
        found.push({ spec, file: url });
      }
    }
  }
  return found;
}

/** The kit's directory, `shared/`. */
const KIT = new URL("../", import.meta.url);

Deno.test("every kit module imported by URL is in KIT_ON_DEMAND, which lists only those", async () => {
  const root = new URL("../../", import.meta.url);
  const local = (await resolvedSpecifiers(KIT))
    .filter(({ spec }) => spec.startsWith("."))
    .map(({ spec, file }) => new URL(spec, file).href.slice(root.href.length));
  assert.deepEqual([...new Set(local)].sort(), [...KIT_ON_DEMAND].sort());
  for (const path of KIT_ON_DEMAND) await Deno.stat(new URL(path, root));
});

Deno.test("every npm package the kit imports by URL is imported by name by a KIT_ON_DEMAND module", async () => {
  const root = new URL("../../", import.meta.url);
  const packages = (await resolvedSpecifiers(KIT))
    .map(({ spec }) => spec).filter((spec) => !spec.startsWith("."));
  assert.ok(packages.includes("yaml"), "yaml is imported by URL");
  const sources = await Promise.all(KIT_ON_DEMAND.map((p) => Deno.readTextFile(new URL(p, root))));
  for (const name of new Set(packages)) {
    assert.ok(
      sources.some((text) => text.includes(`from "${name}"`)),
      `${name}: no KIT_ON_DEMAND module imports it, so deno compile would not embed it`,
    );
  }
});
