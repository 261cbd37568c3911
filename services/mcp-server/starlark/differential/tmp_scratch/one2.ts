import { buildGoRunner, startGoBatch } from "../go_runner.ts";
import { parseFile } from "../../syntax/parser.ts";
import { resolveFile } from "../../syntax/resolver.ts";
const U = new Set("None True False abs all any bool bytes chr dict dir enumerate fail float getattr hasattr hash int json len list math max min ord print range repr reversed sorted str sum tuple type zip".split(" "));
const b = startGoBatch(await buildGoRunner());
for (const src of Deno.args.length ? Deno.args : [
  "x = a\ndef main():\n    return b\n",
  "def main():\n    counter = 1\n    return countr\n",
  "def f():\n    return [y for x in z]\n",
]) {
  const r = await b.run({ src, maxSteps: 1 });
  let ours = "no error";
  try { const f = parseFile(src, "<program>"); ours = resolveFile(f, { isPredeclared: () => false, isUniversal: (x) => U.has(x) })[0]?.message ?? "no error"; } catch (e) { ours = (e as Error).message; }
  console.log(JSON.stringify(src), "\n  go:  ", r.message, "\n  ours:", ours);
}
await b.close();
