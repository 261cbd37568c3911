// deno-lint-ignore-file no-console -- a command-line tool talks to its user on the console
/**
 * `deno task compile [service...] [--out DIR] [--no-build-info] [--payload-only]`: one
 * self-contained binary per service under `dist/` (or DIR), with the service's explicit permissions
 * baked in, and the release version, commit and date in services that print them
 * (`deploy/build_info.ts`). `deno compile` needs the `denort` runtime of the same Deno version; it
 * downloads it, or takes it from `DENORT_BIN` when the download is not possible (this workplace has
 * no route to the download host). A `DENORT_BIN` that is not that runtime is refused with one line
 * saying why ({@linkcode denortProblem}): any executable would do for `deno compile`, and the
 * "binary" would then be that program with the payload appended, which runs nothing of ours.
 * `--payload-only` takes any executable as `DENORT_BIN` all the same, to check everything a binary
 * would embed (modules, npm packages, permissions) where no denort can be had, and says the files
 * it writes do not run.
 *
 * @module
 */
import { releaseBuildInfo, withBuildInfo } from "./build_info.ts";
import { existingServices, type ServiceDeployment } from "./services.ts";
import { KIT_ON_DEMAND } from "../shared/lifecycle/on_demand.ts";
import { lazyModulesOf } from "./lazy_modules.ts";

const root = new URL("../", import.meta.url);

function cachedDenort(): boolean {
  const version = Deno.version.deno;
  const home = Deno.env.get("DENO_DIR") ?? `${Deno.env.get("HOME")}/.cache/deno`;
  try {
    return Deno.statSync(`${home}/dl/release/v${version}/denort-${Deno.build.target}.zip`).isFile;
  } catch {
    return false;
  }
}

/** The first bytes of an executable of this platform. */
const EXECUTABLE_MAGIC: Record<string, number[][]> = {
  linux: [[0x7f, 0x45, 0x4c, 0x46]], // ELF
  darwin: [[0xcf, 0xfa, 0xed, 0xfe], [0xfe, 0xed, 0xfa, 0xcf], [0xca, 0xfe, 0xba, 0xbe]], // Mach-O
  windows: [[0x4d, 0x5a]], // MZ
};

function indexOfBytes(haystack: Uint8Array, needle: Uint8Array, from = 0): number {
  for (let i = haystack.indexOf(needle[0], from); i >= 0; i = haystack.indexOf(needle[0], i + 1)) {
    if (i + needle.length > haystack.length) return -1;
    let j = 1;
    while (j < needle.length && haystack[i + j] === needle[j]) j++;
    if (j === needle.length) return i;
  }
  return -1;
}

/** The `x.y.z` versions a binary names in Deno's user agent (`Deno/x.y.z`). */
function denoVersionsIn(binary: Uint8Array): Set<string> {
  const found = new Set<string>();
  const agent = new TextEncoder().encode("Deno/");
  for (let at = indexOfBytes(binary, agent); at >= 0; at = indexOfBytes(binary, agent, at + 1)) {
    const tail = new TextDecoder("latin1").decode(binary.subarray(at + 5, at + 25));
    const version = /^(\d+\.\d+\.\d+)(?![\d.])/.exec(tail)?.[1];
    if (version) found.add(version);
  }
  return found;
}

/**
 * Why `path` is not the `denort` runtime of Deno `version` for this platform, in a few words; or
 * `undefined` when it is. A denort is an executable of this platform that carries Deno's version
 * in its user agent (`Deno/<version>`, as the CLI does) and, unlike the CLI, not the compile
 * code (which reads `DENORT_BIN`): `/bin/true`, a script, another version's runtime or the `deno`
 * CLI itself are refused.
 */
export async function denortProblem(
  path: string,
  version: string = Deno.version.deno,
): Promise<string | undefined> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(path);
  } catch (err) {
    return err instanceof Deno.errors.NotFound ? "no such file" : (err as Error).message;
  }
  if (!info.isFile) return "not a file";
  if (Deno.build.os !== "windows" && ((info.mode ?? 0) & 0o111) === 0) return "not executable";
  const binary = await Deno.readFile(path);
  const magic = EXECUTABLE_MAGIC[Deno.build.os] ?? [];
  if (!magic.some((m) => m.every((byte, i) => binary[i] === byte))) {
    return `not an executable binary for ${Deno.build.os}`;
  }
  const versions = denoVersionsIn(binary);
  if (!versions.has(version)) {
    return versions.size === 0
      ? `no Deno runtime in it (no "Deno/${version}" version string)`
      : `it is Deno ${[...versions].join(", ")}'s, not ${version}'s`;
  }
  if (indexOfBytes(binary, new TextEncoder().encode("DENORT_BIN")) >= 0) {
    return "it is the deno CLI, not its denort runtime";
  }
  return undefined;
}

async function canDownload(): Promise<boolean> {
  try {
    const res = await fetch("https://dl.deno.land/", { signal: AbortSignal.timeout(5_000) });
    await res.body?.cancel();
    return true;
  } catch {
    return false;
  }
}

async function main(args: string[]) {
  // --no-build-info leaves build_info.json alone (the compile test: other tests read it then).
  const buildInfo = !args.includes("--no-build-info");
  const payloadOnly = args.includes("--payload-only");
  args = args.filter((a) => a !== "--no-build-info" && a !== "--payload-only");
  const outAt = args.indexOf("--out");
  const outDir = outAt >= 0 ? args[outAt + 1] : "dist";
  const names = outAt >= 0 ? args.filter((_, i) => i !== outAt && i !== outAt + 1) : args;
  const denort = Deno.env.get("DENORT_BIN");
  if (payloadOnly && !denort) {
    console.error("Cannot compile: --payload-only needs DENORT_BIN (any executable)");
    Deno.exit(1);
  }
  if (denort) {
    const problem = await denortProblem(denort);
    const refused = `DENORT_BIN=${denort} is not the denort runtime of Deno ${Deno.version.deno} ` +
      `for ${Deno.build.target}: ${problem}`;
    if (problem && !payloadOnly) {
      console.error(`Cannot compile: ${refused}`);
      Deno.exit(1);
    }
    if (problem) {
      console.log(
        `compile: payload only: ${refused}; the files written hold each service's ` +
          "payload but do not run",
      );
    }
  }
  if (!denort && !cachedDenort() && !await canDownload()) {
    console.error(
      `Cannot compile: the denort ${Deno.version.deno} runtime cannot be downloaded here; ` +
        `set DENORT_BIN to a denort binary of Deno ${Deno.version.deno} for ${Deno.build.target}`,
    );
    Deno.exit(1);
  }
  const services = existingServices(root).filter((s) =>
    names.length === 0 || names.includes(s.name)
  );
  // One type check of every selected service and the workers it embeds, then compiles that skip
  // their own: the same guarantee as a checking compile per service, with the modules the
  // services share (the kit, npm types) checked once instead of once per service.
  // The kit's modules imported by URL on first use go into every binary
  // (shared/lifecycle/on_demand.ts), and each service's own, as its modules declare them
  // (deploy/lazy_modules.ts).
  const declared = new Map(
    await Promise.all(services.map(async (s) => [s.name, await lazyModulesOf(s.entry)] as const)),
  );
  const includes = (svc: ServiceDeployment) => [
    ...new Set([...svc.include, ...declared.get(svc.name)!, ...KIT_ON_DEMAND]),
  ];
  const roots = services.flatMap((s) => [s.entry, ...includes(s).filter((p) => p.endsWith(".ts"))]);
  const checked = await new Deno.Command(Deno.execPath(), { args: ["check", ...roots], cwd: root })
    .spawn().status;
  if (!checked.success) {
    console.error("Cannot compile: deno check failed (see above)");
    Deno.exit(1);
  }
  for (const svc of services) {
    const output = `${outDir}/${svc.name}`;
    const args = [
      "compile",
      "--no-check", // checked above, all services at once
      "--node-modules-dir=none",
      "--exclude-unused-npm",
      ...svc.permissions,
      ...(svc.v8Flags?.length ? [`--v8-flags=${svc.v8Flags.join(",")}`] : []),
      ...includes(svc).flatMap((p) => ["--include", p]),
      "--output",
      output,
      svc.entry,
    ];
    console.log(`compile: ${svc.name} -> ${output}`);
    const run = () => new Deno.Command(Deno.execPath(), { args, cwd: root }).spawn().status;
    const dir = new URL(`services/${svc.name}/`, root);
    const infoFile = new URL("build_info.json", dir);
    const hasInfo = buildInfo && await Deno.stat(infoFile).then(() => true, () => false);
    const { success } = hasInfo
      ? await withBuildInfo(infoFile, await releaseBuildInfo(dir), run)
      : await run();
    if (!success) {
      console.error(`Cannot compile ${svc.name}: deno compile failed (see above)`);
      Deno.exit(1);
    }
  }
}

if (import.meta.main) await main(Deno.args);
