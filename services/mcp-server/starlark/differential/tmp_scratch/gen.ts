import fc from "fast-check";
import * as g from "/work/wt/starlark/services/mcp-server/starlark/differential/generators.ts";
import {
  buildGoRunner,
  startGoBatch,
} from "/work/wt/starlark/services/mcp-server/starlark/differential/go_runner.ts";
const b = startGoBatch(await buildGoRunner());
for (
  const name of [
    "arithmeticProgram",
    "floatFormatProgram",
    "stringProgram",
    "collectionProgram",
    "jsonProgram",
  ]
) {
  const progs = fc.sample((g as any)[name], { seed: 1, numRuns: 200 });
  const counts: Record<string, number> = {};
  const t0 = performance.now();
  let shown = 0;
  for (const src of progs) {
    const r = await b.run({ src });
    const k = r.ok ? "ok" : r.errorClass + ":" + r.message!.replace(/\d+/g, "N").slice(0, 60);
    counts[k] = (counts[k] ?? 0) + 1;
    if (r.errorClass === "syntax" || r.errorClass === "resolve") {
      if (shown++ < 2) console.log(src, r.message);
    }
  }
  console.log(name, (performance.now() - t0).toFixed(0), "ms", counts);
}
await b.close();
