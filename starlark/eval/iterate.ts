/**
 * The loop driver shared by `for` statements and comprehension clauses: iterates a value,
 * charging one step per element, with the mutation guard starlark-go has on lists and dicts.
 *
 * @module
 */
import { endIteration, mustElements, startIteration } from "../values/seq.ts";
import { Dict, List, Range, type Value } from "../values/value.ts";
import type { Frame } from "./call.ts";
import { BREAK, NORMAL, RETURN } from "./compile_types.ts";

/**
 * Run `body` for each element of `it` until it returns BREAK (stop, NORMAL) or RETURN
 * (propagated); other completion codes continue the loop.
 */
export function forEach(fr: Frame, it: Value, body: (v: Value) => number): number {
  const th = fr.th;
  if (it instanceof Range) {
    const n = it.length;
    if (it.big !== null) {
      for (let k = 0; k < n; k++) {
        if (++th.steps > th.limit) th.slowStep();
        const r = body(it.at(k));
        if (r === BREAK) break;
        if (r === RETURN) return RETURN;
      }
      return NORMAL;
    }
    for (let k = 0, v = it.start; k < n; k++, v += it.step) {
      if (++th.steps > th.limit) th.slowStep();
      const r = body(v);
      if (r === BREAK) break;
      if (r === RETURN) return RETURN;
    }
    return NORMAL;
  }
  let el: Value[];
  if (it instanceof List || it instanceof Dict) {
    el = it instanceof List ? it.elems : mustElements(it);
    it.itercount++;
    try {
      for (let k = 0; k < el.length; k++) {
        if (++th.steps > th.limit) th.slowStep();
        const r = body(el[k]);
        if (r === BREAK) break;
        if (r === RETURN) return RETURN;
      }
    } finally {
      it.itercount--;
    }
    return NORMAL;
  }
  if (it !== null && typeof it === "object" && "iter" in it) {
    // lazily iterated host values (possibly infinite)
    for (const v of (it as unknown as { iter(): Iterable<Value> }).iter()) {
      if (++th.steps > th.limit) th.slowStep();
      const r = body(v);
      if (r === BREAK) break;
      if (r === RETURN) return RETURN;
    }
    return NORMAL;
  }
  el = mustElements(it);
  startIteration(it);
  try {
    for (let k = 0; k < el.length; k++) {
      if (++th.steps > th.limit) th.slowStep();
      const r = body(el[k]);
      if (r === BREAK) break;
      if (r === RETURN) return RETURN;
    }
  } finally {
    endIteration(it);
  }
  return NORMAL;
}
