/**
 * The one way a name enters an Incus API path. Names come from the configuration (project, image,
 * profiles), from our own runner names, and from Incus's own answers (instance names of the owner
 * listing, operation ids, an image alias's target, an image's profiles): none of them may pick a
 * path other than `/1.0/<collection>/<name>[/<sub>]`. `encodeURIComponent` alone is not enough:
 * it leaves `.` as it is, and the URL parser removes `.` and `..` segments, so an instance named
 * `..` made `DELETE /1.0/instances/..` a `DELETE /1.0/`.
 *
 * @module
 */
import { IncusError } from "./transport.ts";

/** Collections the controller and `validate` address by name. */
export type IncusCollection =
  | "instances"
  | "operations"
  | "projects"
  | "profiles"
  | "images"
  | "images/aliases";

/** The sub-resources of a named resource the controller reads or changes. */
export type IncusSubResource = "state" | "console" | "wait";

/** Longest name accepted outside `instances` and `operations` (UTF-8 bytes). */
export const MAX_NAME_BYTES = 255;

// Incus's instance names are host names (shared/validate IsHostname): 1 to 63 of [A-Za-z0-9-],
// not starting or ending with "-", not all digits. They are also capture file names.
const HOSTNAME = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;
const OPERATION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// deno-lint-ignore no-control-regex -- control characters are what this refuses
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const encoder = new TextEncoder();

/**
 * Whether `name` can be an Incus instance name (a host name): our runner names always are, and
 * an instance listed by Incus under another name cannot be one of ours.
 *
 * @example Usage
 * ```ts
 * import { isInstanceName } from "./resource_path.ts";
 * isInstanceName("linux-x64-0a1b2c3d"); // true
 * isInstanceName(".."); // false
 * ```
 */
export function isInstanceName(name: string): boolean {
  return HOSTNAME.test(name) && !/^\d+$/.test(name);
}

function validName(collection: IncusCollection, name: string): boolean {
  if (collection === "instances") return isInstanceName(name);
  if (collection === "operations") return OPERATION_ID.test(name);
  // Profiles, projects and image aliases may hold "/" or spaces (escaped below), never a name
  // the URL parser would resolve or Incus could not store.
  return name !== "" && name !== "." && name !== ".." && !CONTROL.test(name) &&
    encoder.encode(name).byteLength <= MAX_NAME_BYTES;
}

/**
 * `/1.0/<collection>/<name>[/<sub>]` with `name` checked for its collection and escaped.
 *
 * @example Usage
 * ```ts
 * import { resourcePath } from "./resource_path.ts";
 * resourcePath("instances", "runner-0a1b2c3d", "state"); // "/1.0/instances/runner-0a1b2c3d/state"
 * resourcePath("images/aliases", "debian/12"); // "/1.0/images/aliases/debian%2F12"
 * ```
 * @throws {IncusError} 400 when `name` is not a valid name of that collection (never echoed).
 */
export function resourcePath(
  collection: IncusCollection,
  name: string,
  sub?: IncusSubResource,
): string {
  if (typeof name !== "string" || !validName(collection, name)) {
    throw new IncusError(400, `Cannot address Incus ${collection}: not a valid name`);
  }
  return `/1.0/${collection}/${encodeURIComponent(name)}${sub ? `/${sub}` : ""}`;
}
