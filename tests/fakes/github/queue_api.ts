/**
 * The message queue of the fake (`/queue/<session>`): GetMessage holds up to `longPollMs` and
 * answers 202 when nothing came (a "no wake" fault leaves lifecycle messages for the next poll),
 * requires `X-ScaleSetMaxCapacity`, honours `lastMessageId`; DeleteMessage acknowledges.
 *
 * @module
 */
import { exception, json } from "./errors.ts";
import type { Waiter, World } from "./world.ts";
import { bearer } from "./world.ts";

/** Answers GetMessage (the long poll) and DeleteMessage (the acknowledgement). */
export async function handleQueue(
  w: World,
  req: Request,
  sid: string,
  ackId?: number,
): Promise<Response> {
  const s = w.sessions.get(sid);
  if (!s) return json({ message: "session not found" }, 401);
  if (bearer(req) !== s.token) return json({ message: "token expired" }, 401);
  if (ackId !== undefined) {
    if (req.method !== "DELETE") return json({ message: "method" }, 405);
    const msg = w.messages.find((x) => x.messageId === ackId && x.scaleSetId === s.scaleSetId);
    if (msg) msg.acked = true;
    return new Response(null, { status: 204 });
  }
  if (req.method !== "GET") return json({ message: "method" }, 405);
  const cap = req.headers.get("x-scalesetmaxcapacity");
  if (cap === null || !/^\d+$/.test(cap)) {
    return exception(400, "ArgumentException", "X-ScaleSetMaxCapacity missing", w.bom());
  }
  const last = Number(new URL(req.url).searchParams.get("lastMessageId") ?? 0);
  const pick = () => {
    if (w.redeliver) {
      const r = w.redeliver;
      w.redeliver = undefined;
      return r;
    }
    return w.messages.find((x) => x.scaleSetId === s.scaleSetId && !x.acked && x.messageId > last);
  };
  let msg = pick();
  if (!msg) {
    // A poll whose client went away still waits out its time (the fake does not read
    // req.signal): its message, if any, stays unacknowledged and is delivered again.
    const woken = await new Promise<boolean>((resolve) => {
      const waiter: Waiter = { scaleSetId: s.scaleSetId, wake: () => done(true) };
      const t = setTimeout(() => done(false), w.options.longPollMs ?? 50_000);
      function done(v: boolean) {
        clearTimeout(t);
        w.waiters.delete(waiter);
        resolve(v);
      }
      w.waiters.add(waiter);
    });
    if (woken && w.sessions.get(sid)?.token === s.token) msg = pick();
  }
  if (!msg) return new Response(null, { status: 202 });
  return json(
    {
      messageId: msg.messageId,
      messageType: "RunnerScaleSetJobMessages",
      body: JSON.stringify(msg.jobs),
      statistics: w.stats(s.scaleSetId),
    },
    200,
    w.bom(),
  );
}
