/**
 * The scale-set listener: get-or-create the scale set, open a message session, then long-poll
 * forever. Each message's JobAvailable jobs are acquired, then the message is acknowledged, then
 * its jobs are handed to the controller (acquisition at-least-once, callbacks at-most-once, as
 * docs/runner-ctl.md#order-per-message says). Recovers from every failure the reference clients
 * meet: 401 on the queue (refresh the session, retry once), 404 on refresh (open a new session),
 * 409 on create (a stale session: wait and retry), an empty queue URL, and a scale set the service
 * deleted (get-or-create again, re-checking labels and self-update).
 *
 * @module
 */
import type { Logger } from "@svc/shared/log";
import type { ActionsClient } from "./actions.ts";
import { jwtExp } from "./jwt_exp.ts";
import { ActionsError } from "./errors.ts";
import { abortableSleep, backoffMs, type HttpDeps, jittered } from "./http.ts";
import { deleteMessage, getMessage, jobMessagesOf } from "./message_queue.ts";
import { ensureScaleSet, ScaleSetPolicyError } from "./scale_set.ts";
import type { JobMessage, MessageSession, RunnerScaleSet, Statistics } from "./types.ts";

/** A queue token this close to its `exp` is renewed before the next poll. */
const QUEUE_TOKEN_RENEW_MS = 60_000;

/** What the listener reports to the controller. */
export interface ListenerHandler {
  /** The scale set is resolved (again). */
  onScaleSet(set: RunnerScaleSet): void;
  /** Scaling input: from the session at creation, then from every message and every empty poll. */
  onStatistics(stats: Statistics): void;
  /** Job messages in order (JobAvailable after it was acquired). */
  onJob(msg: JobMessage): void | Promise<void>;
}

/** Options of {@linkcode runListener}. */
export interface ListenerOptions {
  client: ActionsClient;
  http: HttpDeps;
  handler: ListenerHandler;
  logger: Logger;
  scaleSet: string;
  runnerGroup: string;
  ownerName: string;
  maxCapacity: () => number;
  pollTimeoutMs: number;
  /**
   * Time limit of a session delete (serve.ts: at most `timeouts.shutdown`, so a hung service cannot
   * stretch the shutdown past its budget), and of a session create that shutdown overtakes.
   * @default {10000}
   */
  closeTimeoutMs?: number;
  signal: AbortSignal;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /**
   * Called when a step ends: `poll` after every poll that returned (a message or none), `retry`
   * when a failure is about to be retried (the watchdog counts both as progress; metrics the
   * first).
   */
  onProgress?: (step: "poll" | "retry") => void;
}

/** Thrown for failures no retry can fix (a scale set that does not fit). */
class ListenerFatalError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "ListenerFatalError";
  }
}

/**
 * Opens a message session that shutdown does not cut short: the service may have made the
 * session already, and an aborted request would leave it alive under our owner name, unknown to
 * us and so undeletable (the next start would get 409 until it expires). Once shutdown starts the
 * create may run `closeTimeoutMs` more; the session it returns is then deleted on the way out.
 */
async function createSession(options: ListenerOptions, setId: number): Promise<MessageSession> {
  options.signal.throwIfAborted();
  const grace = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const onShutdown = () => {
    timer = setTimeout(
      () => grace.abort(new DOMException("session create outlived the shutdown", "TimeoutError")),
      options.closeTimeoutMs ?? 10_000,
    );
  };
  options.signal.addEventListener("abort", onShutdown, { once: true });
  try {
    return await options.client.createSession(setId, options.ownerName, grace.signal);
  } finally {
    options.signal.removeEventListener("abort", onShutdown);
    clearTimeout(timer);
  }
}

function isCode(err: unknown, ...codes: string[]): boolean {
  return err instanceof ActionsError && codes.includes(err.code);
}

/**
 * Runs until `signal` aborts (then deletes its session and resolves).
 *
 * @throws {ListenerFatalError} when the scale set exists but does not fit.
 */
export async function runListener(options: ListenerOptions): Promise<void> {
  const sleep = options.sleep ?? abortableSleep;
  const log = options.logger;
  let failures = 0;
  let set: RunnerScaleSet | undefined;
  let session: MessageSession | undefined;
  const backoff = async () => {
    await sleep(jittered(options.http, backoffMs(options.http.retry, failures++)), options.signal)
      .catch(() => {});
  };
  // A session whose delete failed stays alive on the service, and a new session under the same
  // owner is refused (409) until it expires: its delete is retried before the next create.
  let stale: { setId: number; sessionId: string } | undefined;
  const deleteSession = async (s: { setId: number; sessionId: string }) => {
    try {
      await options.client.deleteSession(
        s.setId,
        s.sessionId,
        AbortSignal.timeout(options.closeTimeoutMs ?? 10_000),
      );
      if (stale === s) stale = undefined;
    } catch (err) {
      if (isCode(err, "not_found", "scale_set_not_found")) {
        if (stale === s) stale = undefined;
        return;
      }
      stale = s;
      log.warn("message session not deleted", { error: String(err) });
    }
  };
  const closeSession = async () => {
    if (!session || !set) return;
    const s = { setId: set.id, sessionId: session.sessionId };
    session = undefined;
    await deleteSession(s);
  };
  while (!options.signal.aborted) {
    try {
      if (!set) {
        const r = await ensureScaleSet(options.client, {
          name: options.scaleSet,
          runnerGroup: options.runnerGroup,
          signal: options.signal,
        });
        set = r.set;
        log.info(r.created ? "scale set created" : "scale set found", { scale_set_id: set.id });
        options.handler.onScaleSet(set);
      }
      if (stale) await deleteSession(stale);
      session = await createSession(options, set.id);
      if (!session.messageQueueUrl || !session.messageQueueAccessToken || !session.sessionId) {
        log.warn("message session has no queue; checking the scale set again");
        await closeSession();
        set = undefined;
        options.onProgress?.("retry");
        await backoff();
        continue;
      }
      log.info("message session created", { session_id: session.sessionId });
      if (session.statistics) options.handler.onStatistics(session.statistics);
      failures = 0;
      await pollLoop(options, set, () => session!, (s) => session = s);
    } catch (err) {
      if (options.signal.aborted) break;
      if (err instanceof ScaleSetPolicyError) throw new ListenerFatalError(err.message);
      if (isCode(err, "scale_set_not_found")) {
        log.warn("scale set is gone; creating it again");
        session = undefined;
        set = undefined;
      } else if (isCode(err, "session_conflict")) {
        log.warn("another message session is active for this scale set; retrying");
      } else {
        log.warn("listener failed; retrying", { error: String(err) });
        await closeSession();
      }
      options.onProgress?.("retry");
      await backoff();
    }
  }
  await closeSession();
}

async function pollLoop(
  options: ListenerOptions,
  set: RunnerScaleSet,
  current: () => MessageSession,
  replace: (s: MessageSession) => void,
): Promise<void> {
  let lastMessageId = 0;
  let lastStats: Statistics | undefined = current().statistics;
  // Calls the queue; after a 401 refreshes the session (a 404 there opens a new one) and retries.
  const withToken = async <T>(fn: (s: MessageSession) => Promise<T>): Promise<T> => {
    try {
      return await fn(current());
    } catch (err) {
      if (!isCode(err, "unauthorized")) throw err;
      try {
        replace(await options.client.refreshSession(set.id, current().sessionId, options.signal));
      } catch (refreshErr) {
        if (!isCode(refreshErr, "not_found")) throw refreshErr;
        options.logger.warn("message session was evicted; opening a new one");
        replace(await createSession(options, set.id));
        lastMessageId = 0;
      }
      return await fn(current());
    }
  };
  while (!options.signal.aborted) {
    // Renew the queue token before it runs out, not only after a 401 (as GARM does).
    const exp = jwtExp(current().messageQueueAccessToken);
    if (exp !== undefined && exp * 1000 - Date.now() < QUEUE_TOKEN_RENEW_MS) {
      replace(await options.client.refreshSession(set.id, current().sessionId, options.signal));
    }
    const msg = await withToken((s) =>
      getMessage(options.http, {
        queueUrl: s.messageQueueUrl,
        queueToken: s.messageQueueAccessToken,
        lastMessageId,
        maxCapacity: options.maxCapacity(),
        pollTimeoutMs: options.pollTimeoutMs,
        signal: options.signal,
      })
    );
    options.onProgress?.("poll");
    if (!msg) {
      if (lastStats) options.handler.onStatistics(lastStats);
      continue;
    }
    if (msg.statistics) lastStats = msg.statistics;
    const jobs = jobMessagesOf(msg) as unknown as JobMessage[];
    const available = jobs.filter((j) => j.messageType === "JobAvailable")
      .map((j) => j.runnerRequestId).filter((id) => Number.isSafeInteger(id));
    if (available.length > 0) {
      const acquired = await withToken((s) =>
        options.client.acquireJobs(set.id, s.messageQueueAccessToken, available, options.signal)
      );
      options.logger.info("jobs acquired", {
        requested: available.length,
        acquired: acquired.length,
      });
    }
    // The contract's order (docs/runner-ctl.md#order-per-message): the message is acknowledged
    // before the callbacks run (a crash can leave a job without a proof); acquisition comes first,
    // so an unacknowledged JobAvailable is acquired again on redelivery.
    await withToken((s) =>
      deleteMessage(options.http, {
        queueUrl: s.messageQueueUrl,
        queueToken: s.messageQueueAccessToken,
        messageId: msg.messageId,
        signal: options.signal,
      })
    );
    lastMessageId = msg.messageId;
    for (const job of jobs) await options.handler.onJob(job);
    if (lastStats) options.handler.onStatistics(lastStats);
  }
}
