/**
 * Who a process is: its service name and build metadata, in one shape every service uses for
 * `--version` ({@linkcode versionLine}, printed by `runMain`), its log identity
 * (`service.name`, `service.version`, written by `createLogger`) and its metric resource. Each
 * service keeps a `build_info.json` beside its entry with the development values `dev`, `none`,
 * `unknown`; `deno task compile` writes the release version, commit and date into that file for
 * the duration of the compile (deploy/build_info.ts), so a binary carries them.
 *
 * @module
 */

/** Version, commit and build date of a build. */
export interface BuildInfo {
  /** Release version (`dev` in a development build). */
  version: string;
  /** Commit the build was made from (`none` in a development build). */
  commit: string;
  /** Build date, RFC 3339 (`unknown` in a development build). */
  date: string;
}

/** A service's name with its build: what `--version` prints and every log line carries. */
export interface ServiceIdentity {
  /** `service.name`, e.g. `mock-oidc`. */
  name: string;
  /** The build metadata; `build.version` is `service.version`. */
  build: BuildInfo;
}

/**
 * The `--version` line: `<name> <version> (commit <commit>, built <date>)`.
 *
 * @example Usage
 * ```ts
 * import { versionLine } from "@svc/shared/build-info";
 * import assert from "node:assert/strict";
 * const build = { version: "dev", commit: "none", date: "unknown" };
 * assert.equal(versionLine({ name: "demo", build }), "demo dev (commit none, built unknown)");
 * ```
 */
export function versionLine(identity: ServiceIdentity): string {
  const { name, build } = identity;
  return `${name} ${build.version} (commit ${build.commit}, built ${build.date})`;
}

/** Whether the command line asks for the version: exactly `--version`. */
export function versionRequested(args: readonly string[]): boolean {
  return args.length === 1 && args[0] === "--version";
}
