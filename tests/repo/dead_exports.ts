// deno-lint-ignore-file no-console -- a command-line check talks to its user on the console
/**
 * `deno task dead-exports` (part of `deno task ok` and `.ci/run`): every `export` in the
 * workspace is imported by another module, or is public by design. An export nothing else imports
 * is either dead code or a name that should not be exported; an export only tests import is kept
 * only when it is the module's own unit test (`foo_test.ts` beside `foo.ts`) or it is allowed in
 * `tests/repo/dead_exports_allow.json` with a reason.
 *
 * Public by design (counted as used): the modules a workspace member exports in its `deno.json`
 * (`mod.ts`, `main.ts`, …) and every export of the kit `shared/` (each has JSDoc, which
 * `deno task doc` checks). Modules started by path (workers, child processes, entry files named in
 * `new URL("…", import.meta.url)`) are entry points too.
 *
 * Exported types (`interface`, `type`) the module itself uses are part of its exports' signatures
 * (an exported function's options) and stay exported.
 *
 * The scan reads import and export statements (top-level, as `deno fmt` writes them); it follows
 * `export … from` re-exports to the module that declares the name. `import * as` and
 * `export * from` count every export of their target as used.
 *
 * Usage: deno run --allow-read tests/repo/dead_exports.ts [--json]
 *
 * @module
 */

const ROOT = new URL("../../", import.meta.url);
const SKIP_DIRS = new Set(["node_modules", ".git", ".data", "dist", "cov", "testdata"]);
const ALLOW_FILE = "tests/repo/dead_exports_allow.json";

/** One finding: an export of `file` that no other module justifies. */
export interface Finding {
  file: string;
  name: string;
  /** `unused`: nothing else imports it; `tests-only`: only other modules' tests do. */
  kind: "unused" | "tests-only";
  /** Whether `file` itself still uses the name (then drop `export`; else delete it). */
  usedInFile: boolean;
  /** The test modules importing it (for `tests-only`). */
  importers: string[];
}

/** An entry of the allowlist: a finding accepted for a reason. */
interface Allowed {
  file: string;
  /** A name, or `*` for every export of the file. */
  name: string;
  reason: string;
}

interface Binding {
  /** Name as exported by this module. */
  name: string;
  /** Where it is declared: [file, name there], resolved lazily for re-exports. */
  from?: { spec: string; name: string };
}

interface ModuleInfo {
  file: string;
  text: string;
  /** Names declared and exported here. */
  own: Set<string>;
  /** Of those, the types (`interface`, `type`). */
  types: Set<string>;
  /** `export { a as b } from "x"`: b → (x, a). */
  reexports: Map<string, { target: string | undefined; name: string }>;
  /** `export * from "x"` targets. */
  stars: (string | undefined)[];
  /** Named imports: [target file, name]. */
  imports: { target: string | undefined; name: string }[];
  /** Targets imported whole (`import * as`, dynamic import, referenced by path). */
  whole: (string | undefined)[];
}

async function walk(dir: string, out: string[]): Promise<string[]> {
  for await (const entry of Deno.readDir(new URL(dir || ".", ROOT))) {
    const path = dir + entry.name;
    if (entry.isDirectory) {
      if (!SKIP_DIRS.has(entry.name) && !entry.name.startsWith(".")) await walk(path + "/", out);
    } else if (/\.(ts|tsx)$/.test(entry.name) && !entry.name.endsWith(".d.ts")) out.push(path);
  }
  return out;
}

/** Bare specifiers of workspace members (`@svc/testing`) → repository paths. */
async function memberExports(): Promise<Map<string, string>> {
  const root = JSON.parse(await Deno.readTextFile(new URL("deno.json", ROOT)));
  const map = new Map<string, string>();
  for (const pattern of root.workspace as string[]) {
    const base = pattern.replace(/^\.\//, "").replace(/\/$/, "");
    const dirs = [base];
    if (base.endsWith("/*")) {
      dirs.length = 0;
      for await (const e of Deno.readDir(new URL(base.slice(0, -1), ROOT))) {
        if (e.isDirectory) dirs.push(`${base.slice(0, -1)}${e.name}`);
      }
    }
    for (const dir of dirs) {
      let config;
      try {
        config = JSON.parse(await Deno.readTextFile(new URL(`${dir}/deno.json`, ROOT)));
      } catch {
        continue;
      }
      if (!config.name) continue;
      const exports = typeof config.exports === "string"
        ? { ".": config.exports }
        : (config.exports ?? {});
      for (const [key, target] of Object.entries(exports as Record<string, string>)) {
        const spec = key === "." ? config.name : `${config.name}/${key.replace(/^\.\//, "")}`;
        map.set(spec, normalize(`${dir}/${target}`));
      }
    }
  }
  return map;
}

function normalize(path: string): string {
  const parts: string[] = [];
  for (const part of path.split("/")) {
    if (part === "." || part === "") continue;
    if (part === "..") parts.pop();
    else parts.push(part);
  }
  return parts.join("/");
}

function resolver(members: Map<string, string>) {
  return (from: string, spec: string): string | undefined => {
    if (spec.startsWith(".")) {
      return normalize(from.split("/").slice(0, -1).join("/") + "/" + spec);
    }
    return members.get(spec);
  };
}

/** `a, type b as c, d` → [[a,a],[b,c],[d,d]] (imported name, local/exported name). */
function names(list: string): [string, string][] {
  return list.split(",").map((s) => s.replace(/\/\/.*$/gm, "").trim()).filter(Boolean)
    .map((s) => s.replace(/^type\s+/, ""))
    .map((s) => {
      const [a, b] = s.split(/\s+as\s+/);
      return [a.trim(), (b ?? a).trim()];
    });
}

function parse(
  file: string,
  text: string,
  resolve: (from: string, spec: string) => string | undefined,
): ModuleInfo {
  const info: ModuleInfo = {
    file,
    text,
    own: new Set(),
    types: new Set(),
    reexports: new Map(),
    stars: [],
    imports: [],
    whole: [],
  };
  const r = (spec: string) => resolve(file, spec);
  for (
    const m of text.matchAll(
      /^export\s+(?:declare\s+)?(?:default\s+)?(?:async\s+)?(?:abstract\s+)?(?:function\*?|const|let|var|class|interface|type|enum|namespace)\s+([A-Za-z_$][\w$]*)/gm,
    )
  ) {
    info.own.add(m[1]);
    if (/\b(interface|type)\s+[\w$]+$/.test(m[0])) info.types.add(m[1]);
  }
  for (const m of text.matchAll(/^export\s+(?:type\s+)?\{([^}]*)\}\s*(?:from\s+"([^"]+)")?/gm)) {
    for (const [inner, outer] of names(m[1])) {
      if (m[2]) info.reexports.set(outer, { target: r(m[2]), name: inner });
      else info.own.add(outer); // `export { local as name }`: declared here
    }
  }
  for (const m of text.matchAll(/^export\s+\*\s+(?:as\s+\w+\s+)?from\s+"([^"]+)"/gm)) {
    info.stars.push(r(m[1]));
  }
  for (
    const m of text.matchAll(
      /^import\s+(?:type\s+)?(?:([\w$]+)\s*,?\s*)?(?:\{([^}]*)\})?\s*(?:\*\s+as\s+[\w$]+\s+)?from\s+"([^"]+)"/gm,
    )
  ) {
    const target = r(m[3]);
    if (/\*\s+as\s/.test(m[0])) info.whole.push(target);
    if (m[1]) info.imports.push({ target, name: "default" });
    for (const [inner] of names(m[2] ?? "")) info.imports.push({ target, name: inner });
  }
  for (const m of text.matchAll(/\bimport\(\s*"([^"]+)"\s*\)/g)) info.whole.push(r(m[1]));
  // Modules started by path: workers, child processes, test harnesses.
  for (const m of text.matchAll(/new URL\(\s*"([^"]+\.ts)"\s*,\s*import\.meta\.url\s*\)/g)) {
    info.whole.push(r(m[1].startsWith(".") ? m[1] : `./${m[1]}`));
  }
  return info;
}

function isTest(file: string): boolean {
  return /_test\.ts$/.test(file);
}

/**
 * Test code: tests, their support modules (`_test_support.ts`, `test_support/`), `tests/`, and
 * the test kit `testing/`.
 */
function isTestCode(file: string): boolean {
  return isTest(file) || /_test_support\.ts$|(^|\/)test_support\//.test(file) ||
    file.startsWith("tests/") || file.startsWith("testing/");
}

function ownUnitTest(file: string): string {
  return file.replace(/\.ts$/, "_test.ts");
}

/** Whether `name` is used in `text` besides its export statement. */
function usedLocally(text: string, name: string): boolean {
  const escaped = name.replace(/\$/g, "\\$");
  // Not a property of something else (`x.name`); a spread (`...name`) is a use.
  const uses = text.match(new RegExp(`(?<![\\w$])(?<![^.]\\.)${escaped}(?![\\w$])`, "g"))?.length ??
    0;
  return uses > 1;
}

/** Runs the scan over the workspace; returns what no importer or rule justifies. */
export async function findDeadExports(): Promise<Finding[]> {
  const files = await walk("", []);
  const resolve = resolver(await memberExports());
  const modules = new Map<string, ModuleInfo>();
  for (const file of files) {
    modules.set(file, parse(file, await Deno.readTextFile(new URL(file, ROOT)), resolve));
  }
  // Public: what members export, and the entry files a process starts with.
  const publicFiles = new Set([
    ...(await memberExports()).values(),
    ...files.filter((f) => /(^|\/)(main|cli)\.ts$/.test(f)),
  ]);
  /** "file\0name" → importing files. */
  const users = new Map<string, Set<string>>();
  const wholeUsers = new Map<string, Set<string>>();

  function origin(
    file: string | undefined,
    name: string,
    seen = new Set<string>(),
  ): [string, string] | undefined {
    if (!file || seen.has(file)) return undefined;
    seen.add(file);
    const mod = modules.get(file);
    if (!mod) return undefined;
    if (mod.own.has(name)) return [file, name];
    const re = mod.reexports.get(name);
    if (re) return origin(re.target, re.name, seen);
    for (const star of mod.stars) {
      const found = origin(star, name, seen);
      if (found) return found;
    }
    return undefined;
  }

  function markWhole(file: string | undefined, by: string, seen = new Set<string>()) {
    if (!file || seen.has(file)) return;
    seen.add(file);
    const set = wholeUsers.get(file) ?? new Set();
    set.add(by);
    wholeUsers.set(file, set);
    const mod = modules.get(file);
    if (!mod) return;
    for (const star of mod.stars) markWhole(star, by, seen);
    for (const { target } of mod.reexports.values()) markWhole(target, by, seen);
  }

  for (const mod of modules.values()) {
    for (const { target, name } of mod.imports) {
      const found = origin(target, name);
      if (!found) continue;
      const key = `${found[0]}\0${found[1]}`;
      const set = users.get(key) ?? new Set();
      set.add(mod.file);
      users.set(key, set);
    }
    for (const target of mod.whole) markWhole(target, mod.file);
    for (const star of mod.stars) if (publicFiles.has(mod.file)) markWhole(star, mod.file);
    // A public module's re-exports are public API.
    if (publicFiles.has(mod.file)) {
      for (const [name] of mod.reexports) {
        const found = origin(mod.file, name);
        if (found) {
          const key = `${found[0]}\0${found[1]}`;
          const set = users.get(key) ?? new Set();
          set.add(`${mod.file} (public)`);
          users.set(key, set);
        }
      }
    }
  }

  const findings: Finding[] = [];
  for (const mod of modules.values()) {
    if (publicFiles.has(mod.file) || mod.file.startsWith("shared/") && !isTestCode(mod.file)) {
      continue; // public API by design
    }
    for (const name of mod.own) {
      const importers = new Set([
        ...(users.get(`${mod.file}\0${name}`) ?? []),
        ...(wholeUsers.get(mod.file) ?? []),
      ]);
      importers.delete(mod.file);
      const nonTest = [...importers].filter((f) => !isTestCode(f));
      if (nonTest.length > 0) continue;
      const inFile = usedLocally(mod.text, name);
      // A type the module's own exports mention is part of their signature: callers may need
      // to name it (the options of an exported function), so it stays exported.
      if (mod.types.has(name) && inFile) continue;
      const tests = [...importers].filter(isTestCode);
      if (tests.length > 0 && (isTestCode(mod.file) || tests.includes(ownUnitTest(mod.file)))) {
        continue; // test code shared by tests, or the module's own unit test
      }
      findings.push({
        file: mod.file,
        name,
        kind: tests.length > 0 ? "tests-only" : "unused",
        usedInFile: inFile,
        importers: tests.sort(),
      });
    }
  }
  return findings.sort((a, b) => a.file.localeCompare(b.file) || a.name.localeCompare(b.name));
}

/** The allowlist: findings accepted, each with its reason. */
export async function readAllowlist(): Promise<Allowed[]> {
  const list = JSON.parse(await Deno.readTextFile(new URL(ALLOW_FILE, ROOT))) as Allowed[];
  for (const entry of list) {
    if (!entry.file || !entry.name || !entry.reason?.trim()) {
      throw new Error(`Cannot read ${ALLOW_FILE}: every entry needs file, name and reason`);
    }
  }
  return list;
}

/** Findings the allowlist does not cover, and allowlist entries that match nothing any more. */
export function check(
  findings: Finding[],
  allowed: Allowed[],
): { dead: Finding[]; stale: Allowed[] } {
  const covers = (a: Allowed, f: Finding) =>
    (a.file === f.file || (a.file.endsWith("/") && f.file.startsWith(a.file))) &&
    (a.name === "*" || a.name === f.name);
  return {
    dead: findings.filter((f) => !allowed.some((a) => covers(a, f))),
    stale: allowed.filter((a) => !findings.some((f) => covers(a, f))),
  };
}

if (import.meta.main) {
  const findings = await findDeadExports();
  if (Deno.args.includes("--json")) {
    console.log(JSON.stringify(findings, null, 1));
    Deno.exit(0);
  }
  const { dead, stale } = check(findings, await readAllowlist());
  for (const f of dead) {
    const fix = f.usedInFile ? "drop `export`" : "delete it";
    const who = f.kind === "tests-only" ? ` (imported only by ${f.importers.join(", ")})` : "";
    console.error(`${f.file}: export ${f.name} is ${f.kind}${who}: ${fix}`);
  }
  for (const a of stale) {
    console.error(`${ALLOW_FILE}: ${a.file} ${a.name} matches no finding any more: remove it`);
  }
  if (dead.length || stale.length) {
    console.error(`dead exports: ${dead.length} export(s), ${stale.length} stale allowance(s)`);
    Deno.exit(1);
  }
  console.log(`dead exports: none (${findings.length} allowed in ${ALLOW_FILE})`);
}
