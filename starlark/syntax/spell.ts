/**
 * starlark-go's `internal/spell.Nearest`: the candidate closest to a misspelt name, ignoring case
 * and underscores, allowing up to 50% typos. Used for "did you mean" hints by the resolver
 * (undefined names) and the evaluator (unknown attributes).
 * @module
 */

/** The nearest of `names` (in their order; the first of equal distance wins), or undefined. */
export function spell(name: string, names: readonly string[]): string | undefined {
  const fold = (s: string) => s.replace(/_/g, "").toLowerCase();
  const x = fold(name);
  let best: string | undefined, bestD = Math.floor((x.length + 1) / 2);
  for (const n of names) {
    const d = editDistance(x, fold(n));
    if (d < bestD) {
      bestD = d;
      best = n;
    }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  const dp = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = dp[0];
    dp[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = dp[j];
      dp[j] = Math.min(dp[j] + 1, dp[j - 1] + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return dp[b.length];
}
