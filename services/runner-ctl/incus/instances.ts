/**
 * The instance calls of the controller: create (with the owner tags), inject the JIT config,
 * start, stop, delete, read, list by owner, read the console log. Each async call runs as one
 * Incus operation inside the `concurrency.incus_operations` semaphore and is waited on for at
 * most `timeouts.incus_operation`; one still running then is cancelled and keeps its slot until
 * it ends or a grace passes (see `operation_cancel.ts`), so the semaphore's bound holds on Incus.
 *
 * @module
 */
import type { Logger } from "@svc/shared/log";
import { silentLogger } from "@svc/shared/log";
import { settleTimedOut } from "./operation_cancel.ts";
import { waitOperation } from "./operation_wait.ts";
import { isInstanceName, resourcePath } from "./resource_path.ts";
import { Semaphore } from "@svc/shared/semaphore";
import { IncusError, type IncusTransport, type Operation } from "./transport.ts";

/** The `user.*` keys the controller writes on every instance it manages. */
export const TAG = {
  owner: "user.runner-ctl-owner",
  scaleSet: "user.runner-ctl-scale-set",
  runnerId: "user.runner-ctl-runner-id",
  /** The JIT config the guest reads from /dev/incus/sock; blanked once the guest is Ready. */
  jitConfig: "user.runner-ctl-jitconfig",
  /** The fingerprint of the image the instance was created from (image rotation reads it). */
  image: "user.runner-ctl-image",
} as const;

/** An instance as listed. */
export interface InstanceInfo {
  name: string;
  status: string;
  statusCode: number;
  config: Record<string, string>;
  createdAt: string;
}

/** What create needs. */
export interface CreateSpec {
  name: string;
  type: "virtual-machine" | "container";
  fingerprint: string;
  config: Record<string, string>;
  devices: Record<string, Record<string, string>>;
}

/** Options of {@linkcode InstanceClient}. */
export interface InstanceClientOptions {
  transport: IncusTransport;
  operationTimeoutMs: number;
  concurrency: number;
  /**
   * How long an operation still running at its timeout keeps its slot after the cancel request
   * before it is abandoned. @default {operationTimeoutMs}
   */
  cancelGraceMs?: number;
  /** Where timeouts, cancels and abandoned operations are logged. @default {silentLogger()} */
  logger?: Logger;
  /**
   * Called when an operation ends (metrics): its verb (`create`, `start`, `stop`, `delete`), its
   * time in ms (the wait for a slot excluded) and its error when it failed.
   */
  onOperation?: (operation: string, ms: number, error?: unknown) => void;
}

/** Instance operations. */
export class InstanceClient {
  readonly transport: IncusTransport;
  readonly semaphore: Semaphore;
  #timeoutMs: number;
  #graceMs: number;
  #log: Logger;
  #onOperation: InstanceClientOptions["onOperation"];

  constructor(options: InstanceClientOptions) {
    this.#onOperation = options.onOperation;
    this.transport = options.transport;
    this.semaphore = new Semaphore(options.concurrency);
    this.#timeoutMs = options.operationTimeoutMs;
    this.#graceMs = options.cancelGraceMs ?? options.operationTimeoutMs;
    this.#log = options.logger ?? silentLogger();
  }

  /** Runs one async call and waits; "unknown" (the op vanished) resolves undefined. */
  async #operation(
    what: string,
    method: string,
    path: string,
    body?: unknown,
    signal?: AbortSignal,
  ) {
    return await this.semaphore.run(async () => {
      const started = performance.now();
      try {
        const out = await this.#run(what, method, path, body, signal);
        this.#onOperation?.(what.split(" ")[0], performance.now() - started);
        return out;
      } catch (err) {
        this.#onOperation?.(what.split(" ")[0], performance.now() - started, err);
        throw err;
      }
    });
  }

  async #run(
    what: string,
    method: string,
    path: string,
    body?: unknown,
    signal?: AbortSignal,
  ): Promise<Operation | undefined> {
    const deadline = AbortSignal.timeout(this.#timeoutMs);
    const sig = signal ? AbortSignal.any([signal, deadline]) : deadline;
    let env;
    try {
      env = await this.transport.call(what, method, path, { body, signal: sig });
    } catch (err) {
      if (deadline.aborted && !signal?.aborted) {
        throw new IncusError(504, `Cannot ${what}: the operation timed out`);
      }
      throw err;
    }
    if (env.type !== "async") return undefined;
    const op = env.metadata as Operation;
    let out = await waitOperation(this.transport, op.id, this.#timeoutMs, signal);
    let cancelled = false;
    if (out.kind === "timeout") {
      // Still running on Incus: cancel it where Incus allows, and hold the slot until it ends.
      out = await settleTimedOut(this.transport, op.id, {
        what,
        timeoutMs: this.#timeoutMs,
        graceMs: this.#graceMs,
        logger: this.#log,
        signal,
      });
      cancelled = out.kind === "failure" && out.error === "canceled";
    }
    if (out.kind === "failure" && cancelled) {
      throw new IncusError(504, `Cannot ${what}: the operation timed out and was cancelled`);
    }
    if (out.kind === "failure") throw new IncusError(500, `Cannot ${what}: ${out.error}`);
    if (out.kind === "timeout") {
      throw new IncusError(504, `Cannot ${what}: the operation timed out`);
    }
    return out.kind === "success" ? out.operation : undefined;
  }

  /** Creates a stopped instance from a pinned image with pinned config and devices. */
  async create(spec: CreateSpec, signal?: AbortSignal): Promise<void> {
    await this.#operation("create an instance", "POST", "/1.0/instances", {
      name: spec.name,
      type: spec.type,
      source: { type: "image", fingerprint: spec.fingerprint },
      profiles: [],
      config: spec.config,
      devices: spec.devices,
      ephemeral: false,
    }, signal);
  }

  /** Merges config keys (PATCH); an empty value removes the key. */
  async patchConfig(name: string, config: Record<string, string>, signal?: AbortSignal) {
    await this.transport.call("update an instance", "PATCH", resourcePath("instances", name), {
      body: { config },
      signal,
    });
  }

  /** Starts, or stops (forced: the runner is ephemeral and its job is over or never began). */
  async setState(name: string, action: "start" | "stop", signal?: AbortSignal) {
    await this.#operation(
      `${action} an instance`,
      "PUT",
      resourcePath("instances", name, "state"),
      {
        action,
        timeout: 30,
        force: action === "stop",
      },
      signal,
    );
  }

  /** Deletes a stopped instance. */
  async delete(name: string, signal?: AbortSignal): Promise<void> {
    await this.#operation(
      "delete an instance",
      "DELETE",
      resourcePath("instances", name),
      undefined,
      signal,
    );
  }

  /** The instance, or undefined when it does not exist. */
  async get(name: string, signal?: AbortSignal): Promise<InstanceInfo | undefined> {
    try {
      const env = await this.transport.call(
        "read an instance",
        "GET",
        resourcePath("instances", name),
        {
          signal,
        },
      );
      return infoOf(env.metadata as Record<string, unknown>);
    } catch (err) {
      if (err instanceof IncusError && err.status === 404) return undefined;
      throw err;
    }
  }

  /** Runtime state: status code and process count (−1 for a VM until its agent answers). */
  async state(
    name: string,
    signal?: AbortSignal,
  ): Promise<{ status: string; statusCode: number; processes: number }> {
    const env = await this.transport.call(
      "read an instance state",
      "GET",
      resourcePath("instances", name, "state"),
      {
        signal,
      },
    );
    const s = env.metadata as { status: string; status_code: number; processes: number };
    return { status: s.status, statusCode: s.status_code, processes: s.processes };
  }

  /**
   * Instances tagged with this owner: a server-side filter when the owner is a plain token
   * (Incus filter values have no usable quoting), always checked again here. An instance whose
   * name is not a valid Incus instance name is left out: Incus cannot have made it, it is none of
   * ours, and its name must not reach an API path or a capture file name.
   */
  async listOwned(owner: string, signal?: AbortSignal): Promise<InstanceInfo[]> {
    const query: Record<string, string> = { recursion: "1" };
    // Incus 6.0.4 answers 400 "Invalid filter: unterminated quote" to a double-quoted value.
    if (/^[A-Za-z0-9._:@-]+$/.test(owner)) query.filter = `config.${TAG.owner} eq ${owner}`;
    const env = await this.transport.call("list instances", "GET", "/1.0/instances", {
      query,
      signal,
    });
    const list = (env.metadata as Record<string, unknown>[] | null) ?? [];
    return list.map(infoOf).filter((i) => i.config[TAG.owner] === owner && isInstanceName(i.name));
  }

  /** The accumulated console log (raw bytes). */
  async consoleLog(name: string, signal?: AbortSignal): Promise<Uint8Array> {
    const res = await this.transport.raw(
      "GET",
      this.transport.url(resourcePath("instances", name, "console"), { type: "log" }),
      { signal },
    );
    if (!res.ok) {
      await this.transport.envelope("read the console log", res);
    }
    return new Uint8Array(await res.arrayBuffer());
  }
}

function infoOf(m: Record<string, unknown>): InstanceInfo {
  const config = (m.expanded_config ?? m.config ?? {}) as Record<string, string>;
  return {
    name: String(m.name),
    status: String(m.status),
    statusCode: Number(m.status_code),
    config,
    createdAt: String(m.created_at ?? ""),
  };
}
