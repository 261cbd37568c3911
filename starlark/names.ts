/**
 * The dotted names a program mentions below the host's predeclared globals, found statically
 * (parse and resolve, no run): what a host checks before running a program, e.g. that the
 * caller may use every capability the program names.
 *
 * @example
 * ```ts
 * import { predeclaredPaths } from "@svc/starlark";
 * predeclaredPaths("def main():\n    return todos.create(title='x')\n", ["todos"]);
 * // ["todos.create"]
 * ```
 * @module
 */
import { parseFile } from "./syntax/parser.ts";
import { resolveFile } from "./syntax/resolver.ts";
import { universe } from "./eval/exec.ts";
import { utf8Decode, utf8Encode } from "./values/bytes_text.ts";

/**
 * Every chain `root.a.b` the program spells whose `root` is one of `predeclared` (and not a name
 * the program binds itself), sorted and without duplicates. A chain is as long as it is written:
 * `x = todos` names `todos`, `todos.list(...)` names `todos.list`, `getattr(todos, "list")`
 * names `todos`. A host must take a chain to reach everything below it (a name taken as a value
 * can be used in any way); that makes the list an over-approximation, never an
 * under-approximation, of what the program can call. Undefined when the program does not parse
 * or resolve (it cannot run either).
 */
export function predeclaredPaths(
  source: string,
  predeclared: readonly string[],
): string[] | undefined {
  let file;
  try {
    file = parseFile(source, "<program>");
  } catch {
    return undefined;
  }
  const pre = new Set(predeclared.map(utf8Encode));
  const u = universe();
  const errors = resolveFile(file, {
    isPredeclared: (n) => pre.has(n),
    isUniversal: (n) => u.has(n),
  });
  if (errors.length > 0) return undefined;
  const found = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const item of node) visit(item);
      return;
    }
    if (typeof node !== "object" || node === null) return;
    const n = node as { kind?: string } & Record<string, unknown>;
    if (n.kind === "dot") {
      const names: string[] = [];
      let base: unknown = n;
      for (;;) {
        const b = base as { kind?: string; name?: string; object?: unknown; inner?: unknown };
        if (b.kind === "dot") {
          names.unshift(b.name!);
          base = b.object;
        } else if (b.kind === "paren") base = b.inner;
        else break;
      }
      const b = base as { kind?: string; name?: string; binding?: { scope: string } };
      if (b.kind === "ident" && b.binding?.scope === "predeclared") {
        found.add([b.name!, ...names].map(utf8Decode).join("."));
        return;
      }
      visit(base);
      return;
    }
    if (n.kind === "ident") {
      const b = n as { name?: string; binding?: { scope: string } };
      if (b.binding?.scope === "predeclared") found.add(utf8Decode(b.name!));
      return;
    }
    for (const [key, value] of Object.entries(n)) {
      if (key !== "binding" && typeof value === "object") visit(value);
    }
  };
  visit(file);
  return [...found].sort();
}
