/**
 * Which image new runners are created from, kept current. `incus.image` is looked up as an alias
 * first: an alias *follows* — it is resolved again every `incus.image_refresh_interval` and after a
 * create fails, and a new target is used for every new runner from then on. A value that is no
 * alias is a fingerprint (full, or a unique prefix) and is *pinned*: it is only checked to still
 * exist, never replaced. An image (or alias) that is gone is an {@linkcode ImageGoneError} naming
 * the setting; it is checked again on the same schedule, so its return is picked up without a
 * restart.
 *
 * @module
 */
import { resourcePath } from "./resource_path.ts";
import { IncusError, type IncusTransport } from "./transport.ts";

/** `incus.image` no longer resolves to an image of the runners' type. */
export class ImageGoneError extends IncusError {
  readonly code = "image_missing";
  constructor(configured: string, follows: boolean) {
    super(
      404,
      follows
        ? `incus.image ${JSON.stringify(configured)}: the alias no longer names an image ` +
          "(import the image again under this alias, or change incus.image / " +
          "RUNNER_CTL_INCUS_IMAGE)"
        : `incus.image ${JSON.stringify(configured)}: the pinned image no longer exists ` +
          "(import it again, or change incus.image / RUNNER_CTL_INCUS_IMAGE)",
    );
    this.name = "ImageGoneError";
  }
}

/** An image as resolved. */
export interface ResolvedImage {
  /** The full (64 hex) fingerprint. */
  fingerprint: string;
  /** `virtual-machine` or `container`. */
  type: string;
  /** The profiles Incus gives an instance created from it that names none. */
  profiles: string[];
  /** True when the configured value is an alias (it follows), false when pinned. */
  follows: boolean;
}

async function getOr404(
  transport: IncusTransport,
  what: string,
  path: string,
  signal?: AbortSignal,
): Promise<Record<string, unknown> | undefined> {
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
 * Resolves `image` (an alias, else a fingerprint). With `follows` given, only that form is tried:
 * an alias that is gone is not taken for a fingerprint later, nor the other way round.
 *
 * @throws {ImageGoneError} when it names no image; {@linkcode IncusError} when Incus fails.
 */
export async function resolveImage(
  transport: IncusTransport,
  image: string,
  o: { follows?: boolean; signal?: AbortSignal } = {},
): Promise<ResolvedImage> {
  const alias = o.follows === false ? undefined : await getOr404(
    transport,
    "read an image alias",
    resourcePath("images/aliases", image),
    o.signal,
  );
  const follows = o.follows ?? alias !== undefined;
  const fp = alias ? String(alias.target) : image;
  if (alias || (!follows && /^[0-9a-f]{1,64}$/.test(image))) {
    const img = await getOr404(transport, "read an image", resourcePath("images", fp), o.signal);
    if (img && typeof img.fingerprint === "string" && /^[0-9a-f]{64}$/.test(img.fingerprint)) {
      const profiles = Array.isArray(img.profiles)
        ? img.profiles.filter((p): p is string => typeof p === "string" && p !== "")
        : [];
      return {
        fingerprint: img.fingerprint,
        type: String(img.type ?? alias?.type ?? ""),
        profiles,
        follows,
      };
    }
  }
  throw new ImageGoneError(image, follows);
}

/** Options of {@linkcode ImageSource}. */
export interface ImageSourceOptions {
  transport: IncusTransport;
  /** `incus.image` as configured. */
  configured: string;
  /** What preflight resolved. */
  initial: ResolvedImage;
  /** The runners' instance type: an image of another type counts as gone. */
  type: string;
  /** `incus.image_refresh_interval` (ms). */
  intervalMs: number;
  /** Clock (ms). */
  now: () => number;
}

/** What a check found. */
export type ImageCheck =
  | {
    outcome: "same" | "changed";
    fingerprint: string;
    previous: string;
    /** The image had been gone and is back. */
    recovered: boolean;
  }
  | {
    outcome: "gone";
    error: ImageGoneError; /** The first check that found it gone. */
    first: boolean;
  };

/** The current image of new runners, checked on a schedule. */
export class ImageSource {
  /** The fingerprint new runners are created from. */
  fingerprint: string;
  /** True when `incus.image` is an alias (it follows); false when pinned. */
  readonly follows: boolean;
  /** The image is gone (no runner is created until it is back). */
  gone = false;
  /** The next scheduled check (ms). */
  nextCheckAt: number;
  readonly #o: ImageSourceOptions;

  constructor(o: ImageSourceOptions) {
    this.#o = o;
    this.fingerprint = o.initial.fingerprint;
    this.follows = o.initial.follows;
    this.nextCheckAt = o.now() + o.intervalMs;
  }

  /** Checks at the next pass (after a create failed). */
  checkSoon(): void {
    this.nextCheckAt = Math.min(this.nextCheckAt, this.#o.now());
  }

  /** Whether a check is due at `now`. */
  due(now: number): boolean {
    return now >= this.nextCheckAt;
  }

  /**
   * Resolves `incus.image` again and schedules the next check.
   *
   * @throws {IncusError} when Incus cannot be asked (the current image stays in use).
   */
  async check(signal?: AbortSignal): Promise<ImageCheck> {
    this.nextCheckAt = this.#o.now() + this.#o.intervalMs;
    let img: ResolvedImage;
    try {
      // A pinned image is asked for by its full fingerprint: it never becomes another image.
      const name = this.follows ? this.#o.configured : this.fingerprint;
      img = await resolveImage(this.#o.transport, name, { follows: this.follows, signal });
      if (img.type !== this.#o.type) throw new ImageGoneError(this.#o.configured, this.follows);
    } catch (err) {
      if (!(err instanceof ImageGoneError) && !(err instanceof IncusError && err.status === 404)) {
        throw err;
      }
      const first = !this.gone;
      this.gone = true;
      // Named by the configured value (a pinned image was asked for by its full fingerprint).
      return {
        outcome: "gone",
        error: new ImageGoneError(this.#o.configured, this.follows),
        first,
      };
    }
    const recovered = this.gone;
    this.gone = false;
    const previous = this.fingerprint;
    this.fingerprint = img.fingerprint;
    return {
      outcome: previous === img.fingerprint ? "same" : "changed",
      fingerprint: img.fingerprint,
      previous,
      recovered,
    };
  }
}
