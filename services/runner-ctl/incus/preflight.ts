/**
 * Preflight against the local Incus: the daemon answers and supports the instance type, the
 * project exists, the image alias or fingerprint resolves to one full fingerprint of the right
 * type (an alias follows, a fingerprint pins: see `image_source.ts`), and the profiles exist. Their configuration and devices are merged in order and pinned:
 * every runner is created from this snapshot, never from profiles that may change later. Without
 * `incus.profiles`, Incus's own choice for a create that names none (the image's profiles, else
 * `default`, from the default project when the project does not have its own profiles) is
 * reproduced.
 *
 * @module
 */
import { ImageGoneError, resolveImage } from "./image_source.ts";
import { resourcePath } from "./resource_path.ts";
import { IncusError, type IncusTransport } from "./transport.ts";

/** What every runner instance is created from. */
export interface PinnedTemplate {
  fingerprint: string;
  /** True when `incus.image` is an alias (new runners follow it), false when it is pinned. */
  follows: boolean;
  type: "virtual-machine" | "container";
  profiles: string[];
  config: Record<string, string>;
  devices: Record<string, Record<string, string>>;
  serverVersion: string;
}

/** Options of {@linkcode preflight}. */
export interface PreflightOptions {
  image: string;
  profiles: string[];
  type: "virtual-machine" | "container";
  signal?: AbortSignal;
}

async function getOr404(
  transport: IncusTransport,
  what: string,
  path: string,
  signal?: AbortSignal,
) {
  try {
    return (await transport.call(what, "GET", path, { signal })).metadata as Record<
      string,
      unknown
    >;
  } catch (err) {
    if (err instanceof IncusError && err.status === 404) return undefined;
    throw err;
  }
}

/**
 * Runs the checks and pins the template.
 *
 * @throws {IncusError} naming the missing or unfit resource.
 */
export async function preflight(
  transport: IncusTransport,
  options: PreflightOptions,
): Promise<PinnedTemplate> {
  const server =
    (await transport.call("read the server", "GET", "/1.0", { signal: options.signal }))
      .metadata as { environment?: { server_version?: string; driver?: string } };
  const driver = server.environment?.driver ?? "";
  const wanted = options.type === "virtual-machine" ? "qemu" : "lxc";
  if (driver && !driver.split("|").map((d) => d.trim()).includes(wanted)) {
    throw new IncusError(400, `Cannot run preflight: this Incus has no ${wanted} driver`);
  }
  const project = await getOr404(
    transport,
    "read the project",
    resourcePath("projects", transport.project),
    options.signal,
  );
  if (!project) throw new IncusError(404, "Cannot run preflight: the project does not exist");
  const image = await resolveImage(transport, options.image, { signal: options.signal }).catch(
    (err) => {
      if (!(err instanceof ImageGoneError)) throw err;
      throw new IncusError(
        404,
        "Cannot run preflight: the image alias or fingerprint does not exist (incus.image)",
      );
    },
  );
  if (image.type !== options.type) {
    throw new IncusError(400, `Cannot run preflight: the image is not a ${options.type} image`);
  }
  // As Incus does for a create that names no profiles: the image's profiles, else `default`.
  const names = options.profiles.length > 0
    ? options.profiles
    : image.profiles.length > 0
    ? image.profiles
    : ["default"];
  const config: Record<string, string> = {};
  const devices: Record<string, Record<string, string>> = {};
  for (const name of names) {
    const p = await getOr404(
      transport,
      "read a profile",
      resourcePath("profiles", name),
      options.signal,
    );
    if (!p) {
      throw new IncusError(
        404,
        `Cannot run preflight: profile ${JSON.stringify(name)} does not exist`,
      );
    }
    Object.assign(config, p.config ?? {});
    Object.assign(devices, p.devices ?? {});
  }
  return {
    fingerprint: image.fingerprint,
    follows: image.follows,
    type: options.type,
    profiles: names,
    config,
    devices,
    serverVersion: server.environment?.server_version ?? "unknown",
  };
}
