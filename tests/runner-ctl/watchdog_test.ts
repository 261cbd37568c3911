/**
 * The systemd notify protocol against a fake `NOTIFY_SOCKET` (a datagram listener in the test):
 * runner-ctl as shipped (its permission flags) sends `READY=1` once preflight has passed and its
 * loops run, `WATCHDOG=1` every half `WATCHDOG_USEC` while healthy, `STOPPING=1` at SIGTERM, and
 * nothing more without `WATCHDOG_USEC`. In process, on a clock the test moves: a reconcile loop
 * stuck on a hung Incus call stops the pings (one error naming the loop), and they resume when it
 * moves again.
 */
import assert from "node:assert/strict";
import { createLogger } from "@svc/shared/log";
import { waitUntil } from "@svc/testing";
import { loadSettings } from "../../services/runner-ctl/load_settings.ts";
import { serve } from "../../services/runner-ctl/serve.ts";
import { startController, waitFor, withSimulation } from "./_test_support.ts";

function fakeNotifySocket() {
  const name = `runner-ctl-test-${crypto.randomUUID()}`;
  const conn = Deno.listenDatagram({ transport: "unixpacket", path: `\0${name}` });
  const got: string[] = [];
  const pump = (async () => {
    try {
      for await (const [data] of conn) got.push(new TextDecoder().decode(data));
    } catch { /* closed */ }
  })();
  return {
    env: `@${name}`,
    got,
    async close() {
      conn.close();
      await pump;
    },
  };
}

const pings = (got: string[]) => got.filter((s) => s === "WATCHDOG=1").length;

Deno.test("as shipped: READY=1 after preflight, WATCHDOG=1 while healthy, STOPPING=1 at SIGTERM", async () => {
  const sock = fakeNotifySocket();
  try {
    await withSimulation({}, async (sim) => {
      const p = startController(sim, {
        env: { NOTIFY_SOCKET: sock.env, WATCHDOG_USEC: "100000" },
      });
      await waitFor("READY=1", () => sock.got.includes("READY=1"));
      await waitFor("its log line", () => p.lines.some((l) => l.msg === "systemd notified"));
      const msgs = p.lines.map((l) => l.msg);
      assert.ok(msgs.indexOf("preflight passed") < msgs.indexOf("systemd notified"));
      assert.equal(p.lines.find((l) => l.msg === "systemd notified")?.watchdog_ping_ms, 50);
      assert.equal(sock.got[0], "READY=1", "nothing before READY=1");
      await waitFor("three pings", () => pings(sock.got) >= 3);
      assert.equal(await p.stop(), 0, p.stderr());
      assert.equal(sock.got.at(-1), "STOPPING=1");
      assert.equal(sock.got.filter((s) => s === "READY=1").length, 1);
    });
  } finally {
    await sock.close();
  }
});

Deno.test("as shipped without WATCHDOG_USEC: READY=1 and STOPPING=1 only", async () => {
  const sock = fakeNotifySocket();
  try {
    await withSimulation({}, async (sim) => {
      const p = startController(sim, { env: { NOTIFY_SOCKET: sock.env } });
      await waitFor("READY=1", () => sock.got.includes("READY=1"));
      await waitFor(
        "a message session",
        () => p.lines.some((l) => l.msg === "message session created"),
      );
      assert.equal(await p.stop(), 0, p.stderr());
      assert.deepEqual(sock.got, ["READY=1", "STOPPING=1"]);
      const notified = p.lines.find((l) => l.msg === "systemd notified");
      assert.equal(notified?.watchdog_ping_ms, undefined);
    });
  } finally {
    await sock.close();
  }
});

Deno.test("a reconcile loop stuck on a hung Incus call gets no ping; pings resume when it moves", async () => {
  const sock = fakeNotifySocket();
  try {
    await withSimulation({}, async (sim) => {
      const simEnv = sim.env({ NOTIFY_SOCKET: sock.env, WATCHDOG_USEC: "20000" });
      const env = (k: string) => simEnv[k];
      const client = Deno.createHttpClient({ caCerts: [sim.github.caCert] });
      const lines: Record<string, unknown>[] = [];
      let offset = 0;
      const now = () => Date.now() + offset;
      const ctl = await serve(await loadSettings({ args: [], env }), {
        env,
        logger: createLogger({ write: (l) => lines.push(JSON.parse(l)) }),
        fetch: (input, init) => fetch(input, { ...init, client }),
        handleSignals: false,
        hostname: "watchdog-test",
        now,
      });
      try {
        await waitFor("pings", () => pings(sock.got) >= 2);
        // Incus answers only after 6 s (real clock: the hang under test); once a pass is caught in
        // it, the clock jumps past the stall bound (200 ms + 2 × (90 s + 1 s)).
        const seen = sim.incus.seen.length;
        sim.incus.faults.slowMs = 6000;
        await waitUntil(() => sim.incus.seen.length > seen, { what: "a hung call" });
        offset = 200 + 2 * (90_000 + 1000) + 1000;
        await waitFor(
          "the reconcile stall",
          () => lines.some((l) => l.level === "error" && l.loop === "reconcile"),
        );
        const stall = lines.find((l) => l.level === "error" && l.loop === "reconcile")!;
        assert.equal(
          stall.msg,
          "watchdog: a loop makes no progress; no ping (systemd restarts it)",
        );
        assert.equal(stall.stall_ms, 200 + 2 * (90_000 + 1000));
        const during = pings(sock.got);
        // The listener kept polling (its own stall, if reported first, cleared on its next poll).
        assert.ok(lines.some((l) => l.msg === "message session created"));
        // Incus answers again: the loop moves, and the pings resume.
        sim.incus.faults.slowMs = 0;
        assert.equal(pings(sock.got), during, "no ping while it is stuck");
        await waitFor(
          "progress again",
          () => lines.some((l) => l.msg === "watchdog: progress again"),
        );
        await waitFor("pings again", () => pings(sock.got) > during + 1);
      } finally {
        sim.incus.faults.slowMs = 0;
        await ctl.shutdown();
        client.close();
      }
    });
  } finally {
    await sock.close();
  }
});
