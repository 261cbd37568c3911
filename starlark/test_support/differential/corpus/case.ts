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
  /**
   * The reference runner (Debian's 2021 snapshot) cannot run this program (it has no bytes): the
   * outcome the newest starlark-go gives, compared instead (value, or error text and position).
   */
  newest?: { value: unknown } | { message: string; line: number; col: number };
}

export function main(body: string): string {
  return "def main():\n" + body.trim().split("\n").map((l) => "    " + l).join("\n") + "\n";
}
