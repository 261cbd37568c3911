/**
 * The ONE process clock of mock-oidc. Token issuance (`iat`, `nbf`, `exp`, `expires_in`) and
 * verification (userinfo, introspect, device and code expiry) all read it, so freezing or
 * advancing it through `/_mock/clock` changes what the protocol endpoints accept.
 *
 * @module
 */

/** Observable clock state, as `/_mock/clock` answers it (docs/mock-oidc.md#control-plane). */
export interface ClockState {
  frozen: boolean;
  now: Date;
}

/** A wall clock that can be frozen at an instant and moved forward. All times in ms. */
export interface Clock {
  /** Current time in epoch milliseconds (frozen instant while frozen). */
  now(): number;
  /** Snapshot for the control plane. */
  state(): ClockState;
  /** Freeze at `atMs` (epoch ms). */
  freeze(atMs: number): void;
  /** Return to the wall clock. */
  unfreeze(): void;
  /** Freeze at the current time (if not frozen) and move forward by `ms`. */
  advance(ms: number): void;
}

/** Options of {@linkcode createClock}. */
export interface ClockOptions {
  /** Wall-clock source in epoch ms. @default Date.now */
  now?: () => number;
  /** Start frozen at this instant (epoch ms), e.g. from `tokenProvider.systemTime`. */
  frozenAt?: number;
}

/**
 * Create the process clock.
 *
 * @example
 * ```ts
 * const clock = createClock({ frozenAt: Date.parse("2020-01-21T00:00:00Z") });
 * clock.advance(90_000);
 * clock.state(); // { frozen: true, now: 2020-01-21T00:01:30.000Z }
 * ```
 */
export function createClock(options: ClockOptions = {}): Clock {
  const wall = options.now ?? Date.now;
  let frozenAt: number | undefined = options.frozenAt;
  const now = () => frozenAt ?? wall();
  return {
    now,
    state: () => ({ frozen: frozenAt !== undefined, now: new Date(now()) }),
    freeze(atMs) {
      if (!Number.isFinite(atMs)) {
        throw new RangeError("Cannot freeze clock: instant is not finite");
      }
      frozenAt = atMs;
    },
    unfreeze() {
      frozenAt = undefined;
    },
    advance(ms) {
      if (!Number.isFinite(ms)) {
        throw new RangeError("Cannot advance clock: duration is not finite");
      }
      frozenAt = now() + ms;
    },
  };
}
