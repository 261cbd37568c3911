/**
 * The service's name and version, as its records and metric resource carry them.
 *
 * @module
 */
import config from "./deno.json" with { type: "json" };

/** `service.name`. */
export const SERVICE_NAME = "image-proxy";
/** `service.version` (from the member's `deno.json`). */
export const VERSION: string = config.version;
