/**
 * Which listeners mock-oidc opens, checked before anything binds: `--control-addr` must differ
 * from `--addr` and `--metrics-addr` (and the metrics listener from the API listener).
 *
 * `serving/` holds what serves the process rather than the protocol: listeners, operational
 * routes, static files, mock-oidc's own metrics.
 * @module
 */
import { configError } from "../config/config_error.ts";

export interface ListenerPlan {
  api: string;
  /** Dedicated metrics listener; absent when `/metrics` is served on the API listener. */
  metrics?: string;
  /** Dedicated control listener; absent when `/_mock` is co-located on the API listener. */
  control?: string;
}

export interface ListenerSettings {
  /** The resolved API listen address (`--addr`, or hostname + port). */
  api: string;
  metricsAddr: string;
  controlAddr: string;
}

const WILDCARDS = new Set(["", "0.0.0.0", "[::]", "::"]);

function split(addr: string): { host: string; port: string } {
  const at = addr.lastIndexOf(":");
  return { host: addr.slice(0, at), port: addr.slice(at + 1) };
}

/** Two addresses collide when they name the same fixed port on overlapping interfaces. */
export function sameListenAddress(a: string, b: string): boolean {
  const x = split(a);
  const y = split(b);
  if (x.port !== y.port || Number(x.port) === 0) return false;
  return x.host === y.host || WILDCARDS.has(x.host) || WILDCARDS.has(y.host);
}

/** Validates the listener flags; throws a SettingsError naming the offending flag. */
export function planListeners(settings: ListenerSettings): ListenerPlan {
  const plan: ListenerPlan = { api: settings.api };
  if (settings.metricsAddr !== "") {
    if (sameListenAddress(settings.metricsAddr, settings.api)) {
      throw configError("--metrics-addr", `must differ from --addr (both ${settings.api})`);
    }
    plan.metrics = settings.metricsAddr;
  }
  if (settings.controlAddr !== "") {
    for (
      const [flag, other] of [["--addr", settings.api], ["--metrics-addr", settings.metricsAddr]]
    ) {
      if (other !== "" && sameListenAddress(settings.controlAddr, other)) {
        throw configError("--control-addr", `must differ from ${flag} (both ${other})`);
      }
    }
    plan.control = settings.controlAddr;
  }
  return plan;
}
