/**
 * Build metadata for `--version`, the log identity and the User-Agent. A development build reads
 * `dev`, `none`, `unknown`; `deno task compile` writes the release values into `build_info.json`
 * for the duration of the compile (see deploy/compile.ts).
 *
 * @module
 */
import { type ServiceIdentity, versionLine as kitVersionLine } from "@svc/shared/build-info";
import info from "./build_info.json" with { type: "json" };

/** Version, commit and build date. */
export const BUILD: { version: string; commit: string; date: string } = info;

/** `service.name` and the build (`service.version`). */
export const IDENTITY: ServiceIdentity = { name: "runner-ctl", build: BUILD };

/** The `--version` line. */
export function versionLine(): string {
  return kitVersionLine(IDENTITY);
}

/** The User-Agent of GitHub calls: a JSON blob, as actions/scaleset and ARC send. */
export function userAgent(): string {
  return JSON.stringify({
    system: "runner-ctl",
    version: BUILD.version,
    commit_sha: BUILD.commit,
    subsystem: "controller",
    kind: "scaleset",
  });
}
