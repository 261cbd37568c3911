/**
 * The systemd notify protocol (`sd_notify(3)`) without libsystemd: one datagram per state to the
 * Unix socket `NOTIFY_SOCKET` names (a path, or `@name` for the abstract namespace), sent from a
 * socket bound in the abstract namespace (so no file is created and no write grant is used beyond
 * the one the target path needs). `READY=1` goes out after preflight; with `WATCHDOG_USEC` set,
 * {@linkcode Watchdog} sends `WATCHDOG=1` every half of it, but only while both the listener and
 * the reconcile loop have made progress within their stall bound, so systemd restarts a stalled
 * controller (`WatchdogSec=` in the unit). Without `NOTIFY_SOCKET` nothing is sent.
 *
 * @module
 */
import type { Logger } from "@svc/shared/log";
import type { EnvLookup } from "@svc/shared/settings";

/**
 * The socket address `NOTIFY_SOCKET` names: an absolute path as is, `@name` as the abstract
 * `\0name`; anything else (unset, empty, relative, `vsock:`) is not supported (undefined).
 */
export function notifyAddress(value: string | undefined): string | undefined {
  if (!value) return undefined;
  if (value.startsWith("@") && value.length > 1) return `\0${value.slice(1)}`;
  if (value.startsWith("/")) return value;
  return undefined;
}

/** A variable, or undefined when it is unset or not granted (a run without the notify grant). */
function readEnv(env: EnvLookup, name: string): string | undefined {
  try {
    return env(name);
  } catch (err) {
    if (err instanceof Deno.errors.NotCapable) return undefined;
    throw err;
  }
}

/** Sends notify states to systemd. */
export interface Notifier {
  /** Sends one state line (`READY=1`, `WATCHDOG=1`, `STOPPING=1`); failures are logged, not thrown. */
  send(state: string): Promise<void>;
  /** Closes the sending socket. */
  close(): void;
}

/**
 * The notifier of `NOTIFY_SOCKET`, or undefined when it is unset (or names no supported socket,
 * which is logged once).
 */
export function createNotifier(env: EnvLookup, logger: Logger): Notifier | undefined {
  const raw = readEnv(env, "NOTIFY_SOCKET");
  const target = notifyAddress(raw);
  if (!target) {
    if (raw) logger.warn("NOTIFY_SOCKET names no Unix socket; not notifying systemd");
    return undefined;
  }
  let socket: Deno.DatagramConn | undefined;
  let warned = false;
  const encoder = new TextEncoder();
  return {
    async send(state: string) {
      try {
        socket ??= Deno.listenDatagram({
          transport: "unixpacket",
          path: `\0runner-ctl-notify-${crypto.randomUUID()}`,
        });
        await socket.send(encoder.encode(state), { transport: "unixpacket", path: target });
      } catch (err) {
        if (!warned) logger.warn("cannot notify systemd", { state, error: String(err) });
        warned = true;
      }
    },
    close() {
      try {
        socket?.close();
      } catch { /* already closed */ }
      socket = undefined;
    },
  };
}

/** The ping interval systemd asks for: half of `WATCHDOG_USEC` (ms), undefined when unset. */
export function watchdogIntervalMs(env: EnvLookup): number | undefined {
  const usec = Number(readEnv(env, "WATCHDOG_USEC"));
  return Number.isSafeInteger(usec) && usec > 0 ? Math.max(1, Math.floor(usec / 2000)) : undefined;
}

/** The loops whose progress the watchdog watches. */
export type WatchedLoop = "listener" | "reconcile";

/** Options of {@linkcode Watchdog}. */
export interface WatchdogOptions {
  notifier: Notifier;
  logger: Logger;
  /** A loop with no progress for longer than this is stalled (ms). */
  stallMs: number;
  /** Clock (ms). */
  now: () => number;
}

/**
 * Pings only while both loops make progress. {@linkcode Watchdog.tick} is one check (a timer calls
 * it every half `WATCHDOG_USEC`; tests call it on an injected clock).
 */
export class Watchdog {
  readonly #o: WatchdogOptions;
  readonly #last: Record<WatchedLoop, number>;
  #stalled: WatchedLoop | undefined;
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(o: WatchdogOptions) {
    this.#o = o;
    const t = o.now();
    this.#last = { listener: t, reconcile: t };
  }

  /** The loop finished a step (a poll ended, a pass ended). */
  progress(loop: WatchedLoop): void {
    this.#last[loop] = this.#o.now();
  }

  /** The loop that has made no progress within the stall bound, if any. */
  stalled(): WatchedLoop | undefined {
    const now = this.#o.now();
    for (const loop of ["listener", "reconcile"] as const) {
      if (now - this.#last[loop] > this.#o.stallMs) return loop;
    }
    return undefined;
  }

  /** Pings when healthy; returns whether it did. The first stalled check is logged as an error. */
  async tick(): Promise<boolean> {
    const stalled = this.stalled();
    if (stalled === undefined) {
      if (this.#stalled) this.#o.logger.info("watchdog: progress again", { loop: this.#stalled });
      this.#stalled = undefined;
      await this.#o.notifier.send("WATCHDOG=1");
      return true;
    }
    if (this.#stalled !== stalled) {
      this.#o.logger.error("watchdog: a loop makes no progress; no ping (systemd restarts it)", {
        loop: stalled,
        idle_ms: this.#o.now() - this.#last[stalled],
        stall_ms: this.#o.stallMs,
      });
    }
    this.#stalled = stalled;
    return false;
  }

  /** Ticks every `intervalMs` until {@linkcode Watchdog.stop}. */
  start(intervalMs: number): void {
    this.stop();
    const timer = setInterval(() => void this.tick(), intervalMs);
    Deno.unrefTimer(timer);
    this.#timer = timer;
  }

  /** Stops the ticks. */
  stop(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
