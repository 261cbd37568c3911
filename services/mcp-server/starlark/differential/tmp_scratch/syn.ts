import fc from "fast-check";
import { syntaxProgram } from "../generators.ts";
import { buildGoRunner, startGoBatch } from "../go_runner.ts";
const b = startGoBatch(await buildGoRunner());
const counts: Record<string, number> = {};
let shown = 0;
for (const src of fc.sample(syntaxProgram, { seed: 3, numRuns: 400 })) {
  const r = await b.run({ src, maxSteps: 1000000 });
  const k = r.ok ? "ok" : r.errorClass + ":" +
    r.message!.replace(/\d+/g, "N").replace(/<program>:N:N: /, "").slice(0, 50);
  counts[k] = (counts[k] ?? 0) + 1;
  if (r.ok && shown++ < 3) console.log(src, "=>", r.repr);
}
console.log(Object.entries(counts).sort((a, b) => b[1] - a[1]).slice(0, 30));
await b.close();
