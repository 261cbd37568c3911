/** Deep freezing (module globals are frozen after top-level execution). */
import { Dict, Fn, List, Tuple, type Value } from "../values/value.ts";

export function freeze(v: Value): void {
  if (v === null || typeof v !== "object") return;
  if (v instanceof List) {
    if (v.frozen) return;
    v.frozen = true;
    for (const e of v.elems) freeze(e);
  } else if (v instanceof Dict) {
    if (v.frozen) return;
    v.frozen = true;
    for (const [k, x] of v.map.values()) {
      freeze(k);
      freeze(x);
    }
  } else if (v instanceof Tuple) {
    for (const e of v.elems) freeze(e);
  } else if (v instanceof Fn) {
    if (v.frozen) return;
    v.frozen = true;
    for (const d of v.defaults) if (d !== undefined) freeze(d);
    for (const c of v.freevars) if (c.v !== undefined) freeze(c.v);
  } else {
    const f = (v as { freeze?: () => void }).freeze;
    if (f) f.call(v);
  }
}
