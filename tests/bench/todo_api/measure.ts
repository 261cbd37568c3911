/**
 * What the todo-api benchmarks measure with: a process's CPU time from `/proc`, and the order
 * statistics they report.
 */

/** µs in one tick of `/proc/<pid>/stat` (USER_HZ is 100 on Linux). */
export const TICK_US = 1e6 / 100;

/** CPU time `pid` has used (utime + stime, fields 14 and 15 of `/proc/<pid>/stat`), in ticks. */
export function cpuTicks(pid: number): number {
  const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(fields[11]) + Number(fields[12]);
}

function sorted(xs: readonly number[]): number[] {
  return [...xs].sort((a, b) => a - b);
}

/** The median (of an even count, the mean of the two middle values). */
export function median(xs: readonly number[]): number {
  const s = sorted(xs);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/** The first quartile (the lower values are the ones a busy shared machine did not inflate). */
export function quartile1(xs: readonly number[]): number {
  return sorted(xs)[Math.floor(xs.length / 4)];
}
