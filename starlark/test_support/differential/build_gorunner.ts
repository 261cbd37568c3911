/**
 * Builds `gorunner/`, our starlark-go reference runner, offline from Debian's GOPATH sources
 * (golang-go + golang-starlark-dev) into a cache directory keyed by a hash of its sources;
 * nothing is committed. `deno run -A build_gorunner.ts` builds it and prints its path.
 */

const SOURCES = ["main.go", "math.go"];

/** Import paths of starlark-go's json module, oldest layout first. */
const JSON_PACKAGES = ["go.starlark.net/starlarkjson", "go.starlark.net/lib/json"];

function goPath(): string {
  return Deno.env.get("STARLARK_GOPATH") ?? "/usr/share/gocode";
}

function findOnPath(name: string): string | undefined {
  for (const dir of (Deno.env.get("PATH") ?? "").split(":")) {
    try {
      const path = `${dir}/${name}`;
      if (Deno.statSync(path).isFile) return path;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

/** Why the Go runner cannot be built here, or undefined when it can. Synchronous for `ignore`. */
export function goRunnerMissing(): string | undefined {
  if (Deno.env.get("STARLARK_GORUNNER")) return undefined;
  if (!findOnPath("go")) return "needs `go` on PATH (Debian package golang-go)";
  try {
    Deno.statSync(`${goPath()}/src/go.starlark.net/starlark/eval.go`);
  } catch {
    return `needs starlark-go sources under ${goPath()}/src (Debian package golang-starlark-dev)`;
  }
  return undefined;
}

function jsonPackage(): string {
  for (const pkg of JSON_PACKAGES) {
    try {
      Deno.statSync(`${goPath()}/src/${pkg}`);
      return pkg;
    } catch {
      // try the next layout
    }
  }
  return JSON_PACKAGES[0];
}

function jsonModuleSource(pkg: string): string {
  return `package main\n\nimport starlarkjson "${pkg}"\n\nvar jsonModule = starlarkjson.Module\n`;
}

async function sourcesHash(dir: string, extra: string): Promise<string> {
  const parts: Uint8Array[] = [new TextEncoder().encode(extra)];
  for (const name of SOURCES) parts.push(await Deno.readFile(`${dir}/${name}`));
  const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const p of parts) {
    all.set(p, offset);
    offset += p.length;
  }
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", all));
  return Array.from(digest.slice(0, 8), (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * Returns the path of a built Go runner, building it when the cache lacks this source version.
 * `STARLARK_GORUNNER` names a prebuilt binary; `STARLARK_GORUNNER_CACHE` overrides the cache dir.
 */
export async function buildGoRunner(): Promise<string> {
  const prebuilt = Deno.env.get("STARLARK_GORUNNER");
  if (prebuilt) return prebuilt;
  const missing = goRunnerMissing();
  if (missing) throw new Error(`Cannot build the Go reference runner: ${missing}`);
  const srcDir = new URL("./gorunner", import.meta.url).pathname;
  const cache = Deno.env.get("STARLARK_GORUNNER_CACHE") ??
    `${Deno.env.get("TMPDIR") ?? "/tmp"}/starlark-gorunner`;
  await Deno.mkdir(cache, { recursive: true });
  const jsonGo = jsonModuleSource(jsonPackage());
  const hash = await sourcesHash(srcDir, jsonGo);
  const binary = `${cache}/gorunner-${hash}`;
  try {
    await Deno.stat(binary);
    return binary;
  } catch {
    // not built yet
  }
  // Parallel test files may build at once: each stages its own copy and binary, then renames
  // the binary atomically.
  const unique = `${Deno.pid}.${crypto.randomUUID().slice(0, 8)}`;
  const partial = `${binary}.${unique}`;
  const stage = `${cache}/src-${hash}.${unique}`;
  await Deno.mkdir(stage, { recursive: true });
  for (const name of SOURCES) await Deno.copyFile(`${srcDir}/${name}`, `${stage}/${name}`);
  await Deno.writeTextFile(`${stage}/jsonmod.go`, jsonGo);
  const out = await new Deno.Command("go", {
    args: ["build", "-o", partial, "."],
    cwd: stage,
    env: {
      GO111MODULE: "off", // GOPATH mode: imports come from Debian's sources, no network
      GOPATH: goPath(),
      GOCACHE: `${cache}/gocache`,
      GOFLAGS: "",
    },
    stdout: "piped",
    stderr: "piped",
  }).output();
  await Deno.remove(stage, { recursive: true });
  if (!out.success) {
    throw new Error(
      `Cannot build the Go reference runner: ${new TextDecoder().decode(out.stderr)}`,
    );
  }
  await Deno.rename(partial, binary);
  return binary;
}

// `deno run -A build_gorunner.ts` builds (or finds) the runner and prints its path.
if (import.meta.main) {
  Deno.stdout.writeSync(new TextEncoder().encode((await buildGoRunner()) + "\n"));
}
