/**
 * `/_mock/clock`: read, freeze/unfreeze and advance the global clock. Advancing freezes first,
 * so time then stands still at the new instant.
 * @module
 */
import { parseDuration } from "@svc/shared/duration";
import { type ControlClock, controlJson } from "./control_deps.ts";
import { readJsonBody, validateObject, validationError } from "./validation.ts";

/** RFC 3339 date-time with a zone, as OpenAPI's `date-time` format requires. */
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

function clockState(clock: ControlClock): { frozen: boolean; now: string } {
  const state = clock.state();
  return { frozen: state.frozen, now: state.now.toISOString() };
}

/** GET /_mock/clock */
export function getClock(clock: ControlClock): Response {
  return controlJson(clockState(clock));
}

/** PUT /_mock/clock with `{frozen, instant}`; `instant` is required when freezing. */
export async function putClock(req: Request, clock: ControlClock): Promise<Response> {
  const body = validateObject<{ frozen: boolean; instant?: string }>(await readJsonBody(req), {
    frozen: { type: "boolean", required: true },
    instant: { type: "string" },
  });
  if (!body.frozen) {
    clock.unfreeze();
    return controlJson(clockState(clock));
  }
  if (body.instant === undefined) {
    throw validationError([{
      location: "body.instant",
      message: "instant is required when frozen is true",
    }]);
  }
  const at = Date.parse(body.instant);
  if (!RFC3339.test(body.instant) || Number.isNaN(at)) {
    throw validationError([{
      location: "body.instant",
      message: "expected an RFC 3339 date-time",
      value: body.instant,
    }]);
  }
  clock.freeze(at);
  return controlJson(clockState(clock));
}

/** POST /_mock/clock/advance with `{duration}`, a non-negative Go duration. */
export async function advanceClock(req: Request, clock: ControlClock): Promise<Response> {
  const body = validateObject<{ duration: string }>(await readJsonBody(req), {
    duration: { type: "string", required: true },
  });
  let ms: number;
  try {
    ms = parseDuration(body.duration);
  } catch {
    throw validationError([{
      location: "body.duration",
      message: "expected a Go duration such as 90s, 5m or 1h1m",
      value: body.duration,
    }]);
  }
  if (ms < 0) {
    throw validationError([{
      location: "body.duration",
      message: "the clock only moves forward",
      value: body.duration,
    }]);
  }
  const state = clock.state();
  if (!state.frozen) clock.freeze(state.now.getTime());
  clock.advance(ms);
  return controlJson(clockState(clock));
}
