/**
 * The service's name and build metadata (`build_info.json`, release values written by
 * `deno task compile`): what `--version` prints, and the `service.name`/`service.version` its
 * records and metric resource carry.
 *
 * @module
 */
import type { ServiceIdentity } from "@svc/shared/build-info";
import build from "./build_info.json" with { type: "json" };

/** `service.name` and the build (`service.version`). */
export const IDENTITY: ServiceIdentity = { name: "image-proxy", build };
