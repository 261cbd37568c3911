import fc from "fast-check";
import { syntaxProgram } from "../generators.ts";
import { buildGoRunner, startGoBatch } from "../go_runner.ts";
import { parseFile } from "../../syntax/parser.ts";
import { StarlarkError } from "../../errors.ts";
const b = startGoBatch(await buildGoRunner());
const diffs: Record<string, string> = {};
for (const src of fc.sample(syntaxProgram, { seed: Number(Deno.args[0] ?? 5), numRuns: 3000 })) {
  const r = await b.run({ src, maxSteps: 1 });
  let ours: string | undefined;
  try { parseFile(src, "<program>"); } catch (e) { if (e instanceof StarlarkError) ours = e.kind === "syntax" ? e.message : undefined; else ours = "THROW " + e; }
  const exp = r.errorClass === "syntax" ? r.message : undefined;
  const strip = (m?: string) => m?.replace(/<program>:\d+:\d+: /, "");
  if (Deno.args[1] === "text" ? strip(ours) !== strip(exp) : ours !== exp) {
    const key = `${exp?.replace(/<program>:\d+:\d+: /, "")} | ${ours?.replace(/<program>:\d+:\d+: /, "")}`;
    if (!diffs[key] || diffs[key].length > src.length) diffs[key] = src + `\n   go: ${exp}\n   ours: ${ours}`;
  }
}
for (const [k, v] of Object.entries(diffs)) console.log("=== " + k + "\n" + v);
await b.close();
