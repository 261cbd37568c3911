/**
 * Whether the interpreter can run programs yet. The evaluator lands after the embedding API;
 * until then the tests that need it are ignored with this reason instead of failing.
 */
import { run } from "../mod.ts";

export async function evaluatorMissing(): Promise<string | undefined> {
  try {
    const r = await run("def main():\n    return 1 + 1\n");
    return r.ok && r.value === 2 ? undefined : "the evaluator cannot run `return 1 + 1` yet";
  } catch (err) {
    return `the evaluator is not available: ${err instanceof Error ? err.message : err}`;
  }
}
