import fc from "fast-check";
import { syntaxProgram } from "../generators.ts";
import { buildGoRunner, startGoBatch } from "../go_runner.ts";
import { parseFile } from "../../syntax/parser.ts";
import { resolveFile } from "../../syntax/resolver.ts";
const U = new Set("None True False abs all any bool bytes chr dict dir enumerate fail float getattr hasattr hash int json len list math max min ord print range repr reversed sorted str sum tuple type zip".split(" "));
const b = startGoBatch(await buildGoRunner());
const diffs: Record<string, string> = {};
let n = 0;
for (const src of fc.sample(syntaxProgram, { seed: Number(Deno.args[0] ?? 5), numRuns: 4000 })) {
  const r = await b.run({ src, maxSteps: 1 });
  if (r.errorClass === "syntax" || r.errorClass === "panic") continue;
  let ours: string | undefined;
  try {
    const f = parseFile(src, "<program>");
    const errs = resolveFile(f, { isPredeclared: () => false, isUniversal: (x) => U.has(x) });
    ours = errs[0]?.message;
  } catch (e) { ours = "THROW " + (e as Error).message; }
  const exp = r.errorClass === "resolve" ? r.message : undefined;
  n++;
  if (ours !== exp) {
    const key = `${exp?.replace(/<program>:\d+:\d+/g, "P")} | ${ours?.replace(/<program>:\d+:\d+/g, "P")}`;
    if (!diffs[key] || diffs[key].length > src.length) diffs[key] = src + `\n   go: ${exp}\n   ours: ${ours}`;
  }
}
console.log(n, "programs compared");
for (const [k, v] of Object.entries(diffs)) console.log("=== " + k + "\n" + v);
await b.close();
