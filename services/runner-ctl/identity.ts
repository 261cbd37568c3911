/**
 * The service's name and build metadata (`build_info.json`, release values written by
 * `deno task compile`): what `--version` prints and every log line carries, and the User-Agent
 * of GitHub calls. A development build reads `dev`, `none`, `unknown`.
 *
 * @module
 */
import type { ServiceIdentity } from "@svc/shared/build-info";
import build from "./build_info.json" with { type: "json" };

/** `service.name` and the build (`service.version`). */
export const IDENTITY: ServiceIdentity = { name: "runner-ctl", build };

/** The User-Agent of GitHub calls: a JSON blob, as actions/scaleset and ARC send. */
export function userAgent(): string {
  return JSON.stringify({
    system: "runner-ctl",
    version: build.version,
    commit_sha: build.commit,
    subsystem: "controller",
    kind: "scaleset",
  });
}
