// deno-lint-ignore-file no-console -- a command-line check talks to its user on the console
/**
 * `deno task doc` (part of `deno task ok`): the documentation of the kits and of the deployed
 * services stays complete and its examples run.
 *  1. `deno doc --lint` on every export of the product kit `shared/` and of the test kit
 *     `testing/`, of each service in `deploy/services.ts` (a new service joins when it is
 *     deployed; `PENDING` names the ones not documented yet, with the reason) and of the
 *     workspace members inside a service's directory and of the libraries in `LIBRARIES` (the Starlark interpreter);
 *     then on each kit's `.` entry alone, which must document itself (a type it names is
 *     exported from it, not only from another subpath);
 *  2. `deno test --doc` on the kits' modules: every `@example` runs (and must not throw).
 *
 * Types of npm packages the kit exposes on purpose (the OpenTelemetry `Meter` and
 * `MeterProvider`) are documented by their packages; references to them are not errors here.
 *
 * @module
 */
import { SERVICES } from "../../deploy/services.ts";

const root = new URL("../../", import.meta.url);
const UPSTREAM_TYPES = new Set(["Meter", "MeterProvider"]);
/**
 * Deployed services whose exports are not documented yet, each with the reason. Printed on every
 * run; remove an entry as soon as `deno doc --lint` is clean on that service.
 */
const PENDING: Record<string, string> = {};
/** Top-level workspace members that are libraries, documented as the kit is. */
const LIBRARIES = ["starlark"];

async function exportMap(dir: string): Promise<Record<string, string>> {
  const config = JSON.parse(await Deno.readTextFile(new URL(`${dir}/deno.json`, root)));
  const exports = typeof config.exports === "string" ? { ".": config.exports } : config.exports;
  return Object.fromEntries(
    Object.entries(exports ?? {}).map((
      [key, path],
    ) => [key, `${dir}/${String(path).replace(/^\.\//, "")}`]),
  );
}

async function exportsOf(dir: string): Promise<string[]> {
  return Object.values(await exportMap(dir));
}

/** A service's directory and the workspace members inside it (root `deno.json` "workspace"). */
async function serviceMembers(name: string): Promise<string[]> {
  const dir = `services/${name}`;
  const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", root)));
  const nested = (config.workspace as string[]).map((path) => path.replace(/^\.\/|\/$/g, ""))
    .filter((path) => path.startsWith(`${dir}/`) && !path.includes("*"));
  return [dir, ...nested];
}

async function deno(args: string[]): Promise<{ success: boolean; text: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args,
    cwd: root,
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decode = (b: Uint8Array) => new TextDecoder().decode(b);
  return { success: out.success, text: decode(out.stdout) + decode(out.stderr) };
}

/** The lint errors of `text`, one block each, minus references to upstream types. */
function lintErrors(text: string): string[] {
  return text.split(/\n(?=error\[)/).filter((block) => block.startsWith("error["))
    .map((block) => block.split("\n\n")[0])
    .filter((block) => {
      const ref = block.match(/^error\[private-type-ref\]: .* references private type '(\w+)'/);
      return !(ref && UPSTREAM_TYPES.has(ref[1]));
    });
}

/** The kits: the product kit and the test kit. */
const KITS = ["shared", "testing"];

/** Runs `deno doc --lint` on `entries` together; prints the problems and returns false if any. */
async function docLintClean(entries: string[]): Promise<boolean> {
  const lint = await deno(["doc", "--lint", ...entries]);
  const errors = lintErrors(lint.text);
  if (errors.length > 0 || (!lint.success && !/^error: Found \d+ documentation/m.test(lint.text))) {
    console.error(errors.length > 0 ? errors.join("\n\n") : lint.text);
    console.error(`doc: deno doc --lint found ${errors.length} problem(s) in ${entries.join(" ")}`);
    return false;
  }
  return true;
}

async function kitModules(): Promise<string[]> {
  const files: string[] = [];
  async function walk(dir: string) {
    for await (const entry of Deno.readDir(new URL(dir, root))) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory && entry.name !== "testdata") await walk(path);
      else if (/(?<!_test|_test_support)\.ts$/.test(entry.name)) files.push(path);
    }
  }
  for (const kit of KITS) await walk(kit);
  return files.sort();
}

async function main(): Promise<number> {
  const services = SERVICES.filter((s) => !(s.name in PENDING));
  for (const [name, why] of Object.entries(PENDING)) {
    console.log(`doc: not yet checked: ${name}: ${why}`);
  }
  const entries = [
    ...(await Promise.all(KITS.map(exportsOf))).flat(),
    ...(await Promise.all(LIBRARIES.map(exportsOf))).flat(),
    ...(await Promise.all(
      (await Promise.all(services.map((s) => serviceMembers(s.name)))).flat().map(exportsOf),
    )).flat(),
  ];
  if (!await docLintClean(entries)) return 1;
  console.log(`doc: deno doc --lint is clean on ${entries.length} entry points`);
  const dots = await Promise.all(KITS.map(async (kit) => (await exportMap(kit))["."]));
  for (const dot of dots) if (!await docLintClean([dot])) return 1;
  console.log(`doc: deno doc --lint is clean on ${dots.join(" and ")}, each alone`);
  const examples = await deno(["test", "-A", "--doc", "--parallel", ...await kitModules()]);
  if (!examples.success) {
    console.error(examples.text);
    console.error("doc: an example of the kit failed (deno test --doc)");
    return 1;
  }
  console.log(`doc: ${examples.text.match(/ok \| (\d+) passed/)?.[1] ?? "?"} kit examples ran`);
  return 0;
}

if (import.meta.main) Deno.exit(await main());
