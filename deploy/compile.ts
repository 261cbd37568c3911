// deno-lint-ignore-file no-console -- a command-line tool talks to its user on the console
/**
 * `deno task compile [service...] [--out DIR] [--no-build-info]`: one self-contained binary per
 * service under `dist/` (or DIR), with the service's explicit permissions baked in, and the
 * release version, commit and date in services that print them (`deploy/build_info.ts`). `deno compile` needs the `denort` runtime of the
 * same Deno version; it downloads it, or takes it from `DENORT_BIN` when the download is not
 * possible (this workplace has no route to the download host).
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
  args = args.filter((a) => a !== "--no-build-info");
  const outAt = args.indexOf("--out");
  const outDir = outAt >= 0 ? args[outAt + 1] : "dist";
  const names = outAt >= 0 ? args.filter((_, i) => i !== outAt && i !== outAt + 1) : args;
  const denort = Deno.env.get("DENORT_BIN");
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
