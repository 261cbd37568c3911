/**
 * How `deno task dev` keeps its services, as compose does: the first one to exit on its own is
 * reported (`<service> exited with code N`), the others are stopped, and dev ends non-zero. A stop
 * asked for (Ctrl-C, SIGTERM) stops them all and ends with their worst exit code.
 *
 * @module
 */

/** One started service. */
export interface Supervised {
  name: string;
  child: Deno.ChildProcess;
  /** Resolves once the child's output has been copied out (awaited before returning). */
  drained?: Promise<unknown>;
}

/** Options of {@linkcode supervise}. */
export interface SuperviseOptions {
  /** Where the `exited with code N` lines go. */
  report: (line: string) => void;
  /** Resolves when the user asks for a stop (signals); never resolving means only exits end it. */
  stopRequested?: Promise<unknown>;
  /** How long a service may take to stop after SIGTERM before it is killed. @default {15000} */
  killAfterMs?: number;
}

/** Waits until a service exits or a stop is asked for, stops the rest; returns dev's exit code. */
export async function supervise(
  services: readonly Supervised[],
  options: SuperviseOptions,
): Promise<number> {
  const statuses = services.map((s) => s.child.status);
  const first = await Promise.race([
    ...statuses.map((status, i) => status.then((st) => ({ i, code: st.code }))),
    (options.stopRequested ?? new Promise<never>(() => {})).then(() => undefined),
  ]);
  let code = 0;
  if (first) {
    options.report(`${services[first.i].name} exited with code ${first.code}`);
    // A service that ends by itself, even with 0, leaves the stack incomplete: dev fails.
    code = first.code === 0 ? 1 : first.code;
  }
  const done = new Set<number>(first ? [first.i] : []);
  for (const [i, s] of services.entries()) {
    if (!done.has(i)) signal(s.child, "SIGTERM");
  }
  const killer = setTimeout(() => {
    for (const s of services) signal(s.child, "SIGKILL");
  }, options.killAfterMs ?? 15_000);
  try {
    const all = await Promise.all(statuses);
    for (const [i, st] of all.entries()) {
      if (done.has(i)) continue;
      options.report(`${services[i].name} exited with code ${st.code}`);
      if (!first && st.code !== 0 && code === 0) code = st.code;
    }
  } finally {
    clearTimeout(killer);
  }
  await Promise.all(services.map((s) => s.drained));
  return code;
}

function signal(child: Deno.ChildProcess, sig: Deno.Signal) {
  try {
    child.kill(sig);
  } catch { /* already gone */ }
}
