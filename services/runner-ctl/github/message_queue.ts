/**
 * The message queue of a session (a separate host on github.com): GetMessage (the long poll) and
 * DeleteMessage (the acknowledgement), both authenticated with the session's queue token.
 * `message_poll_timeout` cuts a poll on the client: the cut poll counts as "no message".
 *
 * @module
 */
import { ActionsError } from "./errors.ts";
import { call, type HttpDeps, jsonOf } from "./http.ts";
import { serviceUrl } from "./service_url.ts";
import type { RunnerScaleSetMessage } from "./types.ts";

/** How long an uncut poll may take before we give up on it (the service holds ~50 s). */
const LONG_POLL_LIMIT_MS = 90_000;

/** Options of {@linkcode getMessage}. */
export interface GetMessageOptions {
  queueUrl: string;
  queueToken: string;
  lastMessageId: number;
  maxCapacity: number;
  /** `github.message_poll_timeout` in ms; 0 keeps the upstream long poll. */
  pollTimeoutMs: number;
  signal?: AbortSignal;
}

/**
 * One poll. Resolves the message, or undefined for 202 (none) and for a poll cut at
 * `pollTimeoutMs`.
 *
 * @throws {ActionsError} `unauthorized` when the queue token expired.
 */
export async function getMessage(
  http: HttpDeps,
  o: GetMessageOptions,
): Promise<RunnerScaleSetMessage | undefined> {
  const what = "get a message";
  const query: Record<string, string> = {};
  if (o.lastMessageId > 0) query.lastMessageId = String(o.lastMessageId);
  const url = serviceUrl(o.queueUrl, { what, query });
  const cut = o.pollTimeoutMs > 0 ? AbortSignal.timeout(o.pollTimeoutMs) : undefined;
  const signal = cut && o.signal ? AbortSignal.any([cut, o.signal]) : cut ?? o.signal;
  try {
    const res = await call(http, {
      what,
      method: "GET",
      url,
      headers: {
        Authorization: `Bearer ${o.queueToken}`,
        Accept: "application/json; api-version=6.0-preview",
        "X-ScaleSetMaxCapacity": String(o.maxCapacity),
      },
      timeoutMs: LONG_POLL_LIMIT_MS,
      signal,
    });
    if (res.status === 202 || res.text.trim() === "") return undefined;
    const msg = jsonOf<RunnerScaleSetMessage>(what, res);
    if (typeof msg.messageId !== "number") {
      throw new ActionsError("bad_response", `Cannot ${what}: the message has no id`);
    }
    return msg;
  } catch (err) {
    if (cut?.aborted && !o.signal?.aborted) return undefined; // cut poll = empty response
    throw err;
  }
}

/** Acknowledges (deletes) a message so it is not redelivered. */
export async function deleteMessage(
  http: HttpDeps,
  o: { queueUrl: string; queueToken: string; messageId: number; signal?: AbortSignal },
): Promise<void> {
  const what = "delete a message";
  await call(http, {
    what,
    method: "DELETE",
    url: serviceUrl(o.queueUrl, { what, segments: [o.messageId] }),
    headers: { Authorization: `Bearer ${o.queueToken}`, "Content-Type": "application/json" },
    signal: o.signal,
  });
}

/** Decodes the double-encoded job messages of a message body; malformed bodies give []. */
export function jobMessagesOf(msg: RunnerScaleSetMessage): Record<string, unknown>[] {
  if (msg.messageType !== "RunnerScaleSetJobMessages" || typeof msg.body !== "string") return [];
  try {
    const parsed = JSON.parse(msg.body);
    return Array.isArray(parsed)
      ? parsed.filter((m) => m && typeof m === "object" && !Array.isArray(m))
      : [];
  } catch {
    return [];
  }
}
