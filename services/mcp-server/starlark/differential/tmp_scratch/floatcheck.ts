import fc from "fast-check";
import { buildGoRunner, startGoBatch } from "../go_runner.ts";
import { floatLiteral } from "../generators.ts";
import { formatFloat, formatE, formatF, formatG } from "../../values/float_format.ts";
const b = startGoBatch(await buildGoRunner());
const xs = fc.sample(fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e7, max: 1e7 }), fc.integer().map((i) => i / 8), fc.integer({min:-30,max:30}).map(e=> 2.5 * 10 ** e), fc.integer({min:0,max:1000}).map(i => i + 0.5)), { seed: 1, numRuns: 3000 });
let bad = 0;
for (const x of xs) {
  const r = await b.run({ src: `def main():\n    x = ${floatLiteral(x)}\n    return [str(x), "%g" % x, "%e" % x, "%f" % x if abs(x) < 1e25 else "", "%G" % x, "%E" % x]\n` });
  const ours = [formatFloat(x), formatG(x, false), formatE(x), Math.abs(x) < 1e25 ? formatF(x) : "", formatG(x, true), formatE(x, 6, true)];
  const go = r.value as string[];
  if (!go) { console.log("go err", x, r.message); continue; }
  for (const i of [0, 2, 3, 5]) if (ours[i] !== go[i]) { if (bad++ < 20) console.log(x, i, "go", go[i], "ours", ours[i]); }
}
console.log("bad", bad);
await b.close();
