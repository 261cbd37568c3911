/** dict(...) / dict.update(...) argument handling. */
import { EvalError } from "../errors.ts";
import type { Thread } from "../thread.ts";
import { typeName } from "../values/ops.ts";
import { dictSet, elements, len } from "../values/seq.ts";
import { Dict, type Kwargs, type Value } from "../values/value.ts";

export function dictUpdate(th: Thread, d: Dict, args: Value[], kwargs: Kwargs): void {
  if (args.length === 1) {
    const x = args[0];
    if (x instanceof Dict) {
      th.charge(x.map.size >> 3);
      for (const [k, v] of x.map.values()) dictSet(d, k, v);
    } else {
      const el = elements(x, th);
      if (el === null) throw new EvalError(`got ${typeName(x)}, want iterable`);
      th.charge(el.length >> 3);
      for (let i = 0; i < el.length; i++) {
        const pair = el[i];
        const pe = elements(pair);
        if (pe === null || typeof pair === "string") {
          throw new EvalError(
            `dictionary update sequence element #${i} is not iterable (${typeName(pair)})`,
          );
        }
        if (pe.length !== 2) {
          const n = len(pair);
          if (n < 0) {
            throw new EvalError(
              `dictionary update sequence element #${i} has unknown length (${typeName(pair)})`,
            );
          }
          throw new EvalError(`dictionary update sequence element #${i} has length ${n}, want 2`);
        }
        dictSet(d, pe[0], pe[1]);
      }
    }
  }
  if (kwargs !== null) {
    const before = d.map.size;
    for (const [k, v] of kwargs) dictSet(d, k, v);
    if (d.map.size < before + kwargs.length) {
      const seen = new Set<string>();
      for (const [k] of kwargs) {
        if (seen.has(k)) throw new EvalError(`duplicate keyword arg: ${JSON.stringify(k)}`);
        seen.add(k);
      }
    }
  }
}
