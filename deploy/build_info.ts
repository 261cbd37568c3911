/**
 * Release build metadata for `--version` and the log identity
 * (`shared/lifecycle/build_info.ts`; every service has one): a service with a `build_info.json`
 * next to its entry gets version (its `deno.json` version, or `RELEASE_VERSION`), commit
 * (`git rev-parse HEAD`) and date (`SOURCE_DATE_EPOCH` or now) written into that file for the
 * duration of its compile; the file in the repository keeps the development values `dev`, `none`,
 * `unknown`.
 *
 * @module
 */

/** The metadata a release binary carries. */
export interface BuildInfo {
  version: string;
  commit: string;
  date: string;
}

/** Computes the release metadata of the service in `dir` (a `services/<name>/` URL). */
export async function releaseBuildInfo(
  dir: URL,
  env: (k: string) => string | undefined = (k) => Deno.env.get(k),
  now: () => number = Date.now,
): Promise<BuildInfo> {
  const { version = "0.0.0" } = JSON.parse(await Deno.readTextFile(new URL("deno.json", dir)));
  const git = await new Deno.Command("git", {
    args: ["rev-parse", "HEAD"],
    cwd: dir,
    stdout: "piped",
    stderr: "null",
  }).output().catch(() => undefined);
  const commit = git?.success ? new TextDecoder().decode(git.stdout).trim() : "none";
  const epoch = env("SOURCE_DATE_EPOCH");
  const date = new Date(epoch && /^\d+$/.test(epoch) ? Number(epoch) * 1000 : now())
    .toISOString().replace(/\.\d{3}Z$/, "Z");
  return { version: env("RELEASE_VERSION") || version, commit, date };
}

/** Runs `compile` with the release metadata in `file`, then restores the file. */
export async function withBuildInfo<T>(
  file: URL,
  info: BuildInfo,
  compile: () => Promise<T>,
): Promise<T> {
  const original = await Deno.readTextFile(file);
  await Deno.writeTextFile(file, JSON.stringify(info) + "\n");
  try {
    return await compile();
  } finally {
    await Deno.writeTextFile(file, original);
  }
}
