/**
 * Test support: the fake Incus daemon on a temp Unix socket and the real client over it.
 *
 * @module
 */
import { type FakeIncusOptions, startFakeIncus } from "../../../tests/fakes/incus/fake_incus.ts";
import { InstanceClient } from "./instances.ts";
import { IncusTransport } from "./transport.ts";

/** Starts the fake and a client for project `default`. */
export async function incusSetup(
  options: FakeIncusOptions & { operationTimeoutMs?: number; concurrency?: number } = {},
) {
  const fake = await startFakeIncus(options);
  const transport = new IncusTransport({ socket: fake.path, project: "default" });
  const instances = new InstanceClient({
    transport,
    operationTimeoutMs: options.operationTimeoutMs ?? 10_000,
    concurrency: options.concurrency ?? 2,
  });
  return {
    fake,
    transport,
    instances,
    async close() {
      transport.close();
      await fake.close();
    },
  };
}
