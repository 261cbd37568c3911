/**
 * The modules a service loads by URL on first use, read from their declarations: every
 * `lazyModuleAt` of `@svc/shared/lazy-module` records its URL as its module loads. A child process
 * imports the service's entry (nothing starts: entries start only `if (import.meta.main)`), then
 * each declared module in turn, since a module loaded on first use may declare more, until no new
 * one is declared, and prints the list. `deno compile` does not see these modules (their
 * specifiers are computed at run time), so the compile task embeds them with `--include`; the
 * route rows that declare them stay the one place that names them.
 *
 * Run by itself: `deno run --allow-read --allow-env --allow-sys deploy/lazy_modules.ts <entry>`
 * prints the list as JSON, paths relative to the repository root.
 *
 * @module
 */

const ROOT = new URL("../", import.meta.url);
/** The line before the JSON list: a module that prints at import cannot be taken for it. */
const MARK = "lazy-modules:";

/**
 * The repository-relative paths of the modules `entry` (relative to the repository root) and the
 * modules it loads by URL declare with `lazyModuleAt`, in the order declared. URLs that are not
 * files of the repository (`node:` built-ins) are left out: there is nothing to embed.
 *
 * @throws {Error} `Cannot list the modules <entry> loads on first use: …` when a module cannot be
 * imported (a compile must not silently leave one out).
 */
export async function lazyModulesOf(entry: string): Promise<string[]> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-read",
      "--allow-env",
      "--allow-sys",
      "--no-prompt",
      new URL(import.meta.url).pathname,
      entry,
    ],
    cwd: ROOT,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  const at = text.lastIndexOf(`${MARK}\n`);
  if (!out.success || at < 0) {
    const why = new TextDecoder().decode(out.stderr).trim().split("\n").slice(0, 3).join(" ");
    throw new Error(`Cannot list the modules ${entry} loads on first use: ${why}`);
  }
  return JSON.parse(text.slice(at + MARK.length + 1));
}

/** In the child: import `entry` and every module declared by URL, then print the declarations. */
async function listDeclared(entry: string): Promise<string[]> {
  // The same module instance the service's modules record into (`@svc/shared/lazy-module`).
  const { declaredLazyModules } = await import("../shared/lifecycle/lazy_module.ts");
  await import(new URL(entry, ROOT).href);
  const imported = new Set<string>();
  for (;;) {
    const next = declaredLazyModules().filter((u) => u.startsWith("file:") && !imported.has(u));
    if (next.length === 0) break;
    for (const url of next) {
      imported.add(url);
      await import(url);
    }
  }
  return declaredLazyModules().filter((u) => u.startsWith("file:")).map((url) => {
    if (!url.startsWith(ROOT.href)) {
      throw new Error(`${url} is outside the repository: deno compile cannot embed it`);
    }
    return url.slice(ROOT.href.length);
  });
}

if (import.meta.main) {
  const list = await listDeclared(Deno.args[0]);
  await Deno.stdout.write(new TextEncoder().encode(`${MARK}\n${JSON.stringify(list)}\n`));
}
