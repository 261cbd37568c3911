/**
 * Runtime import cycles: two modules that import each other, directly or through others, by
 * static value imports. Such a ring has no order in which each module runs after what it
 * imports, so one of them runs first and sees the other's bindings uninitialised; and a ring of
 * modules is one module spread over several files. Type-only imports (`import type`,
 * `export type … from`) vanish at run time and dynamic `import()` runs after both modules have
 * loaded, so neither counts.
 *
 * The graph is Deno's own (`deno info --json`, which resolves workspace members, import maps and
 * `.js` browser modules as `deno run` would): a module's `code` dependencies are its value
 * imports, `type` ones its type-only imports; an import `with { type: "text" }` (or JSON) reads a
 * module as data and does not count either. npm and remote modules are left out (a cycle through
 * a package is not ours to break), so the walk needs neither the registry nor the lock.
 *
 * @module
 */

const SKIP_DIRS = new Set(["node_modules", ".git", ".data", "dist", "cov", "testdata"]);
const SOURCE = /\.(ts|tsx|js|mjs)$/;

/** Module → the modules it imports by static value imports (repository-relative paths). */
export type ModuleGraph = Map<string, Set<string>>;

interface InfoDependency {
  code?: { specifier?: string };
  isDynamic?: boolean;
  /** `with { type: "text" }` and the like: the module is read as data, not run. */
  assertionType?: string;
}

interface InfoModule {
  specifier: string;
  kind?: string;
  error?: string;
  dependencies?: InfoDependency[];
}

/** Every source file under `root` (outside dependencies, generated and test-data directories). */
async function sourceFiles(root: string, dir = ""): Promise<string[]> {
  const files: string[] = [];
  for await (const entry of Deno.readDir(`${root}/${dir}`)) {
    const path = `${dir}${entry.name}`;
    if (entry.isDirectory) {
      if (!SKIP_DIRS.has(entry.name)) files.push(...await sourceFiles(root, `${path}/`));
    } else if (SOURCE.test(entry.name) && !entry.name.endsWith(".d.ts")) files.push(path);
  }
  return files.sort();
}

/** `deno info --json` of one entry, run in `root` (so the workspace's configuration applies). */
async function info(root: string, entry: string): Promise<InfoModule[]> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", "--no-npm", "--no-remote", "--no-lock", entry],
    cwd: root,
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) {
    throw new Error(`deno info ${entry} failed: ${new TextDecoder().decode(out.stderr).trim()}`);
  }
  return (JSON.parse(new TextDecoder().decode(out.stdout)) as { modules: InfoModule[] }).modules;
}

/**
 * The static value imports between the source files under `root` (a directory path), read with
 * `deno info` from every file no earlier graph has already covered.
 */
export async function moduleGraph(root: string): Promise<ModuleGraph> {
  const base = new URL(`file://${root.replace(/\/?$/, "/")}`).href;
  const local = (specifier: string) =>
    specifier.startsWith(base) ? decodeURIComponent(specifier.slice(base.length)) : undefined;
  const graph: ModuleGraph = new Map();
  for (const file of await sourceFiles(root)) {
    if (graph.has(file)) continue;
    for (const module of await info(root, file)) {
      const path = local(module.specifier);
      // Outside the root (npm, node:, remote) or imported as data (text, JSON): not ours.
      if (path === undefined || graph.has(path)) continue;
      if (module.error) throw new Error(`deno info cannot read ${path}: ${module.error}`);
      if (module.kind !== "esm") continue;
      const imports = new Set<string>();
      for (const dependency of module.dependencies ?? []) {
        const target = dependency.code?.specifier && local(dependency.code.specifier);
        if (target !== undefined && !dependency.isDynamic && !dependency.assertionType) {
          imports.add(target);
        }
      }
      graph.set(path, imports);
    }
  }
  return graph;
}

/**
 * The runtime import cycles of `graph`: one per ring of modules (a strongly connected component
 * of two or more, or a module importing itself), each written as a path that starts at the ring's
 * first module by name and comes back to it (`a.ts → b.ts → a.ts`). Sorted.
 */
export function findCycles(graph: ModuleGraph): string[][] {
  // Tarjan's strongly connected components.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const rings: string[][] = [];
  const visit = (module: string) => {
    index.set(module, index.size);
    low.set(module, index.get(module)!);
    stack.push(module);
    onStack.add(module);
    for (const next of graph.get(module) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(module, Math.min(low.get(module)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(module, Math.min(low.get(module)!, index.get(next)!));
      }
    }
    if (low.get(module) !== index.get(module)) return;
    const ring: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      ring.push(member);
    } while (member !== module);
    if (ring.length > 1 || graph.get(module)?.has(module)) rings.push(ring);
  };
  for (const module of [...graph.keys()].sort()) if (!index.has(module)) visit(module);
  return rings.map((ring) => cyclePath(graph, new Set(ring))).sort((a, b) =>
    a.join().localeCompare(b.join())
  );
}

/** A shortest path from the ring's first module (by name) around and back to it. */
function cyclePath(graph: ModuleGraph, ring: Set<string>): string[] {
  const start = [...ring].sort()[0];
  const cameFrom = new Map<string, string>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    for (const next of [...(graph.get(queue[i]) ?? [])].sort()) {
      if (!ring.has(next)) continue;
      if (next === start) {
        const path = [start];
        for (let at = queue[i]; at !== start; at = cameFrom.get(at)!) path.splice(1, 0, at);
        return [...path, start];
      }
      if (!cameFrom.has(next)) {
        cameFrom.set(next, queue[i]);
        queue.push(next);
      }
    }
  }
  throw new Error(`no cycle through ${start}`); // unreachable for a strongly connected ring
}
