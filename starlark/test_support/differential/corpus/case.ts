/** The shape of a corpus case, and the helper that wraps a body in `def main():`. */
export interface CorpusCase {
  name: string;
  src: string;
  /** Error texts legitimately differ (e.g. reworded in newer starlark-go); compare class only. */
  messageMayDiffer?: string;
  /** Runtime-error position differs for a known reason (BUGS.md 23). */
  positionMayDiffer?: string;
  /** Both must fail, but the class may differ (a documented dialect choice). */
  classMayDiffer?: string;
}

export function main(body: string): string {
  return "def main():\n" + body.trim().split("\n").map((l) => "    " + l).join("\n") + "\n";
}
